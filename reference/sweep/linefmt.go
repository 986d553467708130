package sweep

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
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/internal/safeio"
)

// lineFormat is a text format with one row per line (CSV, JSONL).
type lineFormat interface {
	// header is the header line ("" when the format has none).
	header(h Header) string
	// encode is one row as one line, newline included.
	encode(h Header, r Row) string
	// parseHeader reads the header from the first line; the bool reports
	// whether that line is a header (false: it is a row to decode).
	parseHeader(line string) (Header, bool, error)
	// decode reads one row.
	decode(h Header, line string) (Row, error)
	// tornFirst reports whether text, the first line of a file cut short
	// (no newline), can be the beginning of a file of this shape: a
	// header (or first row) torn by a kill, not another file.
	tornFirst(h Header, text string) bool
}

func (csvFormat) tornFirst(h Header, text string) bool {
	return strings.HasPrefix(csvFormat{}.header(h), text)
}

func (jsonlFormat) tornFirst(_ Header, text string) bool {
	const start = `{"point":`
	return strings.HasPrefix(start, text) || strings.HasPrefix(text, start)
}

func formatFloat(f float64) string {
	if math.IsNaN(f) {
		return ""
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

func parseFloat(s string) (float64, error) {
	if s == "" {
		return math.NaN(), nil
	}
	return strconv.ParseFloat(s, 64)
}

// csvFormat writes a header line, then the columns in order; a metric
// without a value is an empty cell.
type csvFormat struct{}

func csvLine(cells []string) string {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(cells)
	w.Flush()
	return b.String()
}

func (csvFormat) header(h Header) string { return csvLine(h.Columns()) }

func (csvFormat) encode(h Header, r Row) string {
	cells := []string{strconv.Itoa(r.Point), r.Key, strconv.Itoa(r.Points)}
	if !h.Legacy {
		cells = append(cells, r.Sweep)
	}
	cells = append(cells, r.Values...)
	for _, m := range r.Metrics {
		cells = append(cells, formatFloat(m))
	}
	return csvLine(append(cells, r.Status, r.Error))
}

func csvCells(line string) ([]string, error) {
	rd := csv.NewReader(strings.NewReader(line))
	rd.FieldsPerRecord = -1
	return rd.Read()
}

func (csvFormat) parseHeader(line string) (Header, bool, error) {
	cells, err := csvCells(line)
	if err != nil {
		return Header{}, true, err
	}
	h, err := headerFromColumns(cells)
	return h, true, err
}

func (csvFormat) decode(h Header, line string) (Row, error) {
	cells, err := csvCells(line)
	if err != nil {
		return Row{}, err
	}
	if want := len(h.Columns()); len(cells) != want {
		return Row{}, fmt.Errorf("%d cells, want %d", len(cells), want)
	}
	return rowFromCells(h, cells)
}

// rowFromCells reads a row from its columns as text.
func rowFromCells(h Header, cells []string) (Row, error) {
	var r Row
	var err error
	if r.Point, err = strconv.Atoi(cells[0]); err != nil {
		return Row{}, fmt.Errorf("point %s: not an integer", safeio.Quote(cells[0]))
	}
	r.Key = cells[1]
	if r.Points, err = strconv.Atoi(cells[2]); err != nil {
		return Row{}, fmt.Errorf("sweep_points %s: %v", safeio.Quote(cells[2]), err)
	}
	if !h.Legacy {
		r.Sweep = cells[3]
	}
	na, f0 := len(h.Axes), h.fixed()
	r.Values = cells[f0 : f0+na]
	for i, c := range cells[f0+na : f0+na+len(h.Metrics)] {
		f, err := parseFloat(c)
		if err != nil {
			return Row{}, fmt.Errorf("%s %s: not a number", h.Metrics[i], safeio.Quote(c))
		}
		r.Metrics = append(r.Metrics, f)
	}
	r.Status, r.Error = cells[len(cells)-2], cells[len(cells)-1]
	return r, r.check()
}

// check refuses a row that cannot be one of a sweep's.
func (r Row) check() error {
	switch {
	case r.Point < 0 || r.Points < 1 || r.Point >= r.Points:
		return fmt.Errorf("point %d of %d: out of range", r.Point, r.Points)
	case r.Key == "":
		return errors.New("empty key")
	case r.Status != StatusOK && r.Status != StatusDoesNotFit && r.Status != StatusFailed:
		return fmt.Errorf("status %s: want ok, does_not_fit or failed", safeio.Quote(r.Status))
	}
	return nil
}

// jsonlFormat writes one JSON object per line, keys in column order; a
// metric without a value is null.
type jsonlFormat struct{}

func (jsonlFormat) header(Header) string { return "" }

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (jsonlFormat) encode(h Header, r Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"point":%d,"key":%s,"sweep_points":%d`, r.Point, jsonString(r.Key), r.Points)
	if !h.Legacy {
		fmt.Fprintf(&b, `,"sweep":%s`, jsonString(r.Sweep))
	}
	for i, a := range h.Axes {
		fmt.Fprintf(&b, ",%s:%s", jsonString(a), jsonString(r.Values[i]))
	}
	for i, m := range h.Metrics {
		v := "null"
		if !math.IsNaN(r.Metrics[i]) {
			v = formatFloat(r.Metrics[i])
		}
		fmt.Fprintf(&b, ",%s:%s", jsonString(m), v)
	}
	fmt.Fprintf(&b, `,"status":%s,"error":%s}`+"\n", jsonString(r.Status), jsonString(r.Error))
	return b.String()
}

// jsonFields reads an object's keys in order and its values as text.
func jsonFields(line string) ([]string, []any, error) {
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, errors.New("not a JSON object")
	}
	var keys []string
	var vals []any
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys, vals = append(keys, t.(string)), append(vals, v)
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, nil, errors.New("unterminated JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, errors.New("text after the JSON object")
	}
	return keys, vals, nil
}

func (jsonlFormat) parseHeader(line string) (Header, bool, error) {
	keys, _, err := jsonFields(line)
	if err != nil {
		return Header{}, false, err
	}
	h, err := headerFromColumns(keys)
	return h, false, err
}

func (jsonlFormat) decode(h Header, line string) (Row, error) {
	keys, vals, err := jsonFields(line)
	if err != nil {
		return Row{}, err
	}
	cols := h.Columns()
	if len(keys) != len(cols) {
		return Row{}, fmt.Errorf("%d fields, want %d", len(keys), len(cols))
	}
	cells := make([]string, len(cols))
	for i, k := range keys {
		if k != cols[i] {
			return Row{}, fmt.Errorf("field %d is %s, want %q", i+1, safeio.Quote(k), cols[i])
		}
		switch v := vals[i].(type) {
		case nil:
			cells[i] = ""
		case string:
			cells[i] = v
		case json.Number:
			cells[i] = v.String()
		default:
			return Row{}, fmt.Errorf("field %s: not a string or number", safeio.Quote(k))
		}
	}
	return rowFromCells(h, cells)
}

// lineScan is what reading a line file found.
type lineScan struct {
	// header is the file's header; hasHeader is false for an empty file.
	header    Header
	hasHeader bool
	// good is the length of the file's complete part; torn reports a last
	// row cut short (by a crash) after it.
	good int64
	torn bool
}

// scanLines reads a CSV or JSONL sweep file, handing each complete row to
// fn. A last line without its newline is torn (a run killed while writing
// it): it is reported, not handed over. On the first line that means a
// torn header, and only when want (the shape of the sweep about to resume
// the file; nil when only reading) says the line can begin such a file:
// otherwise the file is refused as not a sweep file, so that no other
// file is ever truncated. Any other line that does not parse, or is over
// MaxRowBytes, is an error: the file is damaged. Lines are read within
// MaxRowBytes whatever their length.
func scanLines(path string, lf lineFormat, want *Header, fn func(Row) error) (lineScan, error) {
	var s lineScan
	f, err := os.Open(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	var buf []byte
	var off int64
	for lineNo := 1; ; lineNo++ {
		buf = buf[:0]
		var n int64
		complete, tooLong := false, false
		for {
			chunk, err := br.ReadSlice('\n')
			n += int64(len(chunk))
			if !tooLong && len(buf)+len(chunk) <= MaxRowBytes+1 {
				buf = append(buf, chunk...)
			} else {
				tooLong = true
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			if err == nil {
				complete = true
				break
			}
			if errors.Is(err, io.EOF) {
				break
			}
			return s, err
		}
		if n == 0 {
			break // end of file
		}
		text := strings.TrimSuffix(string(buf), "\n")
		if !complete { // the last line, cut short
			if !s.hasHeader && (tooLong || want == nil || !lf.tornFirst(*want, text)) {
				return s, notSweepFile(path, text, tooLong)
			}
			s.torn = true
			break
		}
		if tooLong {
			return s, fmt.Errorf("%s: line %d: longer than %d bytes: not a row of a sweep file", path, lineNo, MaxRowBytes)
		}
		if !s.hasHeader {
			h, isHeader, err := lf.parseHeader(text)
			if err != nil {
				return s, notSweepFile(path, text, false)
			}
			s.header, s.hasHeader = h, true
			if isHeader {
				off += n
				s.good = off
				continue
			}
		}
		r, err := lf.decode(s.header, text)
		if err != nil {
			return s, fmt.Errorf("%s: line %d: %v (the file is damaged: a run stopped while writing leaves only its last line incomplete)", path, lineNo, err)
		}
		if err := fn(r); err != nil {
			return s, err
		}
		off += n
		s.good = off
	}
	return s, nil
}

// notSweepFile refuses a file whose first line cannot begin a sweep file.
func notSweepFile(path, first string, tooLong bool) error {
	if tooLong {
		return fmt.Errorf("%s: not a sweep file (its first line is longer than %d bytes): use another output file", path, MaxRowBytes)
	}
	return fmt.Errorf("%s: not a sweep file (its first line is %s): use another output file", path, safeio.Quote(first))
}
