package serve

import (
	"bufio"
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
	"github.com/dashlab/dashlab/internal/safeio"
)

// MaxTraceBytes bounds a trace file (256 MiB). A trace is read as a stream:
// memory grows with its requests (at most MaxRequests), not its size.
const MaxTraceBytes = 256 << 20

// MaxTraceLineBytes bounds one line of a trace (64 KiB; a row is under 100
// bytes). A longer line is refused before it is held in memory.
const MaxTraceLineBytes = safeio.MaxLineBytes

// MaxArrivalSeconds bounds an arrival time (1e9 s, about 31.7 years): the
// simulated clock counts nanoseconds in an int64 and stops at about 73
// years, so every trace and Poisson stream ends well inside it.
const MaxArrivalSeconds = 1e9

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
// (.jsonl, .ndjson) with objects holding exactly those three keys (spelt
// so, each once). Arrivals are seconds from the start, sorted, from 0 to
// MaxArrivalSeconds; lengths are integers from 1 to MaxTokens; at most
// MaxRequests requests and MaxGeneratedTokens output tokens in all,
// MaxTraceBytes bytes and MaxTraceLineBytes per line.
// A UTF-8 byte-order mark is skipped. Anything else is refused with a
// *TraceError naming the file, line and reason (values cut to a readable
// length).
func ReadTrace(path string) ([]Request, error) {
	if path == "" {
		return nil, &TraceError{File: `""`, Reason: "no trace file named"}
	}
	format := strings.ToLower(filepath.Ext(path))
	if format != ".csv" && format != ".jsonl" && format != ".ndjson" {
		return nil, &TraceError{File: path, Reason: "unknown trace format: want a .csv or .jsonl file"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxTraceBytes {
		return nil, &TraceError{File: path, Reason: fmt.Sprintf("%d bytes: larger than the limit of %d", st.Size(), MaxTraceBytes)}
	} else if err == nil && st.IsDir() {
		return nil, &TraceError{File: path, Reason: "a directory, not a trace file"}
	}
	if format == ".csv" {
		return DecodeTraceCSV(f, path)
	}
	return DecodeTraceJSONL(f, path)
}

// traceReader wraps a trace's bytes: the size and line limits, the BOM.
func traceReader(r io.Reader, name string) *safeio.LineReader {
	return safeio.NewLineReader(r, name, MaxTraceLineBytes, MaxTraceBytes)
}

// readErr turns a read error into a *TraceError at line.
func readErr(name string, line int, err error) error {
	var ll *safeio.LineTooLongError
	var tl *safeio.TooLargeError
	switch {
	case errors.As(err, &ll):
		return &TraceError{File: name, Line: ll.Line, Reason: fmt.Sprintf("line longer than the limit of %d bytes", ll.Limit)}
	case errors.As(err, &tl):
		return &TraceError{File: name, Reason: fmt.Sprintf("larger than the limit of %d bytes", MaxTraceBytes)}
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		if errors.As(pe.Err, &ll) || errors.As(pe.Err, &tl) {
			return readErr(name, line, pe.Err)
		}
		return &TraceError{File: name, Line: pe.Line, Reason: pe.Err.Error()}
	}
	return &TraceError{File: name, Line: line, Reason: err.Error()}
}

// traceBuilder checks and collects requests line by line.
type traceBuilder struct {
	name   string
	reqs   []Request
	tokens int // output tokens so far
}

func (b *traceBuilder) add(line int, arrival, prompt, output string) error {
	fail := func(format string, a ...any) error {
		return &TraceError{File: b.name, Line: line, Reason: fmt.Sprintf(format, a...)}
	}
	if len(b.reqs) >= MaxRequests {
		return fail("more than %d requests", MaxRequests)
	}
	arrival = strings.TrimSpace(arrival)
	a, err := strconv.ParseFloat(arrival, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return fail("arrival_s = %s: not a number", safeio.Quote(arrival))
	}
	if math.IsNaN(a) || math.IsInf(a, 0) || a < 0 || a > MaxArrivalSeconds || errors.Is(err, strconv.ErrRange) {
		return fail("arrival_s = %s: must be a finite number of seconds from 0 to %g", safeio.Clip(arrival), float64(MaxArrivalSeconds))
	}
	p, err := tokens("prompt_tokens", prompt)
	if err != nil {
		return fail("%v", err)
	}
	o, err := tokens("output_tokens", output)
	if err != nil {
		return fail("%v", err)
	}
	t := unit.FromSeconds(a)
	if n := len(b.reqs); n > 0 && t < b.reqs[n-1].Arrival {
		return fail("arrival_s = %v is before the previous request's (%v s): arrivals must be sorted", a, b.reqs[n-1].Arrival.Seconds())
	}
	if b.tokens += o; b.tokens > MaxGeneratedTokens {
		return fail("more than %d output tokens in all (a run keeps every inter-token gap)", MaxGeneratedTokens)
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

// tokens parses a token count: an integer from 1 to MaxTokens.
func tokens(field, s string) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.ParseInt(s, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("%s = %s: must be between 1 and %d", field, safeio.Clip(s), MaxTokens)
	}
	if err != nil {
		return 0, fmt.Errorf("%s = %s: not an integer", field, safeio.Quote(s))
	}
	if n < 1 || n > MaxTokens {
		return 0, fmt.Errorf("%s = %d: must be between 1 and %d", field, n, MaxTokens)
	}
	return int(n), nil
}

var traceColumns = []string{"arrival_s", "prompt_tokens", "output_tokens"}

// DecodeTraceCSV reads a CSV trace from r (see ReadTrace); name labels
// errors.
func DecodeTraceCSV(r io.Reader, name string) ([]Request, error) {
	lr := traceReader(r, name)
	cr := csv.NewReader(lr)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, &TraceError{File: name, Line: 1, Reason: "no header: want " + strings.Join(traceColumns, ",")}
	}
	if err != nil {
		return nil, readErr(name, 1, err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if _, dup := col[h]; dup {
			return nil, &TraceError{File: name, Line: 1, Reason: fmt.Sprintf("column %s appears twice", safeio.Quote(h))}
		}
		col[h] = i
	}
	for _, c := range traceColumns {
		if _, ok := col[c]; !ok {
			return nil, &TraceError{File: name, Line: 1, Reason: fmt.Sprintf("missing column %q (want %s)", c, strings.Join(traceColumns, ","))}
		}
	}
	if len(col) != len(traceColumns) {
		return nil, &TraceError{File: name, Line: 1, Reason: fmt.Sprintf("unexpected columns in %s: want exactly %s", safeio.Quote(strings.Join(header, ",")), strings.Join(traceColumns, ","))}
	}
	ia, ip, io_ := col["arrival_s"], col["prompt_tokens"], col["output_tokens"]
	b := &traceBuilder{name: name}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, readErr(name, lr.Line(), err)
		}
		line, _ := cr.FieldPos(0)
		if err := b.add(line, rec[ia], rec[ip], rec[io_]); err != nil {
			return nil, err
		}
	}
	return b.done()
}

// DecodeTraceJSONL reads a JSON Lines trace from r (see ReadTrace); name
// labels errors. Blank lines are skipped; a key other than the three, a key
// given twice or spelt in another case, and a value that is not a number
// are refused.
func DecodeTraceJSONL(r io.Reader, name string) ([]Request, error) {
	lr := traceReader(r, name)
	b := &traceBuilder{name: name}
	// the line limit keeps every line within the buffer
	br := bufio.NewReaderSize(lr, MaxTraceLineBytes+16)
	for line := 1; ; line++ {
		data, err := br.ReadSlice('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, readErr(name, line, err)
		}
		if text := strings.TrimSpace(string(data)); text != "" {
			vals, perr := traceObject(text)
			if perr != nil {
				return nil, &TraceError{File: name, Line: line, Reason: perr.Error()}
			}
			if err := b.add(line, vals[0], vals[1], vals[2]); err != nil {
				return nil, err
			}
		}
		if err != nil { // io.EOF
			break
		}
	}
	return b.done()
}

// traceObject reads one JSON object with exactly the trace's keys, each
// once and a number, and returns the numbers' text in traceColumns order.
func traceObject(text string) ([3]string, error) {
	var out [3]string
	var seen [3]bool
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return out, errors.New("not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return out, jsonErr(err)
		}
		key, _ := t.(string)
		i := -1
		for j, c := range traceColumns {
			if key == c {
				i = j
			}
		}
		if i < 0 {
			return out, fmt.Errorf("unknown key %s (want exactly %s)", safeio.Quote(key), strings.Join(traceColumns, ", "))
		}
		if seen[i] {
			return out, fmt.Errorf("key %q appears twice", key)
		}
		seen[i] = true
		v, err := dec.Token()
		if err != nil {
			return out, jsonErr(err)
		}
		n, ok := v.(json.Number)
		if !ok {
			return out, fmt.Errorf("%s = %s: want a number", key, jsonValue(v))
		}
		out[i] = n.String()
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return out, errors.New("unterminated JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return out, errors.New("more than one JSON value on the line")
	}
	for i, ok := range seen {
		if !ok {
			return out, fmt.Errorf("missing key %q", traceColumns[i])
		}
	}
	return out, nil
}

func jsonErr(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON: %v", se)
	}
	return err
}

// jsonValue names a JSON token that is not a number.
func jsonValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return safeio.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case json.Delim:
		return "an array or object"
	}
	return fmt.Sprint(v)
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
