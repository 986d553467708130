package serve

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/dash/unit"
)

// MaxTraceBytes bounds a trace file (256 MiB).
const MaxTraceBytes = 256 << 20

// TraceError is a trace refused: the file, the 1-based line (0 for the file
// as a whole) and the reason.
type TraceError struct {
	File   string
	Line   int
	Reason string
}

func (e *TraceError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Reason)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
}

// ReadTrace reads a request trace: CSV (.csv) with the header
// arrival_s,prompt_tokens,output_tokens (in any order), or JSON Lines
// (.jsonl, .ndjson) with objects holding those three keys. Arrivals are
// seconds from the start, sorted; lengths are positive integers. Anything
// else is refused with a *TraceError naming the file, line and reason.
func ReadTrace(path string) ([]Request, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > MaxTraceBytes {
		return nil, &TraceError{File: path, Reason: fmt.Sprintf("%d bytes: larger than the limit of %d", st.Size(), MaxTraceBytes)}
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return DecodeTraceCSV(f, path)
	case ".jsonl", ".ndjson":
		return DecodeTraceJSONL(f, path)
	}
	return nil, &TraceError{File: path, Reason: "unknown trace format: want a .csv or .jsonl file"}
}

// limited reads at most MaxTraceBytes of r, refusing more.
func limited(r io.Reader, name string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxTraceBytes+1))
	if err != nil {
		return nil, &TraceError{File: name, Reason: err.Error()}
	}
	if len(data) > MaxTraceBytes {
		return nil, &TraceError{File: name, Reason: fmt.Sprintf("larger than the limit of %d bytes", MaxTraceBytes)}
	}
	return data, nil
}

// traceBuilder checks and collects requests line by line.
type traceBuilder struct {
	name string
	reqs []Request
}

func (b *traceBuilder) add(line int, arrival float64, prompt, output string) error {
	fail := func(format string, a ...any) error {
		return &TraceError{File: b.name, Line: line, Reason: fmt.Sprintf(format, a...)}
	}
	if math.IsNaN(arrival) || math.IsInf(arrival, 0) || arrival < 0 || arrival > 1e9 {
		return fail("arrival_s = %v: must be a finite number of seconds between 0 and 1e9", arrival)
	}
	p, err := tokens("prompt_tokens", prompt)
	if err != nil {
		return fail("%v", err)
	}
	o, err := tokens("output_tokens", output)
	if err != nil {
		return fail("%v", err)
	}
	t := unit.FromSeconds(arrival)
	if n := len(b.reqs); n > 0 && t < b.reqs[n-1].Arrival {
		return fail("arrival_s = %v is before the previous request's (%v s): arrivals must be sorted", arrival, b.reqs[n-1].Arrival.Seconds())
	}
	if len(b.reqs) >= MaxRequests {
		return fail("more than %d requests", MaxRequests)
	}
	b.reqs = append(b.reqs, Request{ID: len(b.reqs), Arrival: t, Prompt: p, Output: o})
	return nil
}

func (b *traceBuilder) done() ([]Request, error) {
	if len(b.reqs) == 0 {
		return nil, &TraceError{File: b.name, Reason: "no requests"}
	}
	return b.reqs, nil
}

// tokens parses a positive integer token count.
func tokens(field, s string) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s = %q: not an integer", field, s)
	}
	if n < 1 || n > MaxTokens {
		return 0, fmt.Errorf("%s = %d: must be between 1 and %d", field, n, MaxTokens)
	}
	return int(n), nil
}

var traceColumns = []string{"arrival_s", "prompt_tokens", "output_tokens"}

// DecodeTraceCSV reads a CSV trace from r; name labels errors.
func DecodeTraceCSV(r io.Reader, name string) ([]Request, error) {
	data, err := limited(r, name)
	if err != nil {
		return nil, err
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, &TraceError{File: name, Line: 1, Reason: "no header: want " + strings.Join(traceColumns, ",")}
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if _, dup := col[h]; dup {
			return nil, &TraceError{File: name, Line: 1, Reason: fmt.Sprintf("column %q appears twice", h)}
		}
		col[h] = i
	}
	for _, c := range traceColumns {
		if _, ok := col[c]; !ok {
			return nil, &TraceError{File: name, Line: 1, Reason: fmt.Sprintf("missing column %q (want %s)", c, strings.Join(traceColumns, ","))}
		}
	}
	if len(col) != len(traceColumns) {
		return nil, &TraceError{File: name, Line: 1, Reason: fmt.Sprintf("unexpected columns in %q: want exactly %s", strings.Join(header, ","), strings.Join(traceColumns, ","))}
	}
	b := &traceBuilder{name: name}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, &TraceError{File: name, Line: pe.Line, Reason: pe.Err.Error()}
			}
			return nil, &TraceError{File: name, Line: line, Reason: err.Error()}
		}
		s := strings.TrimSpace(rec[col["arrival_s"]])
		a, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, &TraceError{File: name, Line: line, Reason: fmt.Sprintf("arrival_s = %q: not a number", s)}
		}
		if err := b.add(line, a, rec[col["prompt_tokens"]], rec[col["output_tokens"]]); err != nil {
			return nil, err
		}
	}
	return b.done()
}

// DecodeTraceJSONL reads a JSON Lines trace from r; name labels errors.
// Blank lines are skipped; unknown keys are refused.
func DecodeTraceJSONL(r io.Reader, name string) ([]Request, error) {
	data, err := limited(r, name)
	if err != nil {
		return nil, err
	}
	b := &traceBuilder{name: name}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), MaxTraceBytes)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var rec struct {
			Arrival *float64     `json:"arrival_s"`
			Prompt  *json.Number `json:"prompt_tokens"`
			Output  *json.Number `json:"output_tokens"`
		}
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		dec.UseNumber()
		if err := dec.Decode(&rec); err != nil {
			return nil, &TraceError{File: name, Line: line, Reason: err.Error()}
		}
		if dec.More() {
			return nil, &TraceError{File: name, Line: line, Reason: "more than one JSON value on the line"}
		}
		switch {
		case rec.Arrival == nil:
			return nil, &TraceError{File: name, Line: line, Reason: `missing key "arrival_s"`}
		case rec.Prompt == nil:
			return nil, &TraceError{File: name, Line: line, Reason: `missing key "prompt_tokens"`}
		case rec.Output == nil:
			return nil, &TraceError{File: name, Line: line, Reason: `missing key "output_tokens"`}
		}
		if err := b.add(line, *rec.Arrival, rec.Prompt.String(), rec.Output.String()); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &TraceError{File: name, Line: line + 1, Reason: err.Error()}
	}
	return b.done()
}

// WriteTraceCSV writes requests as a CSV trace that ReadTrace reads back.
func WriteTraceCSV(w io.Writer, reqs []Request) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, strings.Join(traceColumns, ","))
	for _, r := range reqs {
		fmt.Fprintf(bw, "%s,%d,%d\n", strconv.FormatFloat(r.Arrival.Seconds(), 'f', -1, 64), r.Prompt, r.Output)
	}
	return bw.Flush()
}
