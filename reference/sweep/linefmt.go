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

func (csvFormat) encode(_ Header, r Row) string {
	cells := []string{strconv.Itoa(r.Point), r.Key, strconv.Itoa(r.Points)}
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
		return Row{}, fmt.Errorf("point %q: %v", cells[0], err)
	}
	r.Key = cells[1]
	if r.Points, err = strconv.Atoi(cells[2]); err != nil {
		return Row{}, fmt.Errorf("sweep_points %q: %v", cells[2], err)
	}
	na := len(h.Axes)
	r.Values = cells[3 : 3+na]
	for i, c := range cells[3+na : 3+na+len(h.Metrics)] {
		f, err := parseFloat(c)
		if err != nil {
			return Row{}, fmt.Errorf("%s %q: %v", h.Metrics[i], c, err)
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
		return fmt.Errorf("status %q: want ok, does_not_fit or failed", r.Status)
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
			return Row{}, fmt.Errorf("field %d is %q, want %q", i+1, k, cols[i])
		}
		switch v := vals[i].(type) {
		case nil:
			cells[i] = ""
		case string:
			cells[i] = v
		case json.Number:
			cells[i] = v.String()
		default:
			return Row{}, fmt.Errorf("field %q: not a string or number", k)
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
// fn. A last line without its newline, or that does not parse, is a torn
// row (reported, not handed over); a bad line before the last is an error.
func scanLines(path string, lf lineFormat, fn func(Row) error) (lineScan, error) {
	var s lineScan
	f, err := os.Open(path)
	if err != nil {
		return s, err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	var off int64
	lineNo := 0
	var badErr error
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			if line != "" {
				s.torn = true
			}
			break
		}
		if err != nil {
			return s, err
		}
		lineNo++
		if badErr != nil { // a bad line followed by another: corrupt, not torn
			return s, badErr
		}
		text := strings.TrimSuffix(line, "\n")
		if !s.hasHeader {
			h, isHeader, err := lf.parseHeader(text)
			if err != nil {
				badErr = fmt.Errorf("%s: line %d: %v", path, lineNo, err)
				continue
			}
			s.header, s.hasHeader = h, true
			if isHeader {
				off += int64(len(line))
				s.good = off
				continue
			}
		}
		r, err := lf.decode(s.header, text)
		if err != nil {
			badErr = fmt.Errorf("%s: line %d: %v", path, lineNo, err)
			continue
		}
		if err := fn(r); err != nil {
			return s, err
		}
		off += int64(len(line))
		s.good = off
	}
	if badErr != nil {
		s.torn = true
	}
	return s, nil
}
