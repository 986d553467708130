package offload

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/dash/unit"
)

// The host profile's files.
const (
	FileCPUExpert = "cpu_expert.csv"
	FileH2D       = "h2d.csv"
)

// DataError is malformed host-offload data: the file, the 1-based line
// (the header is line 1; 0 when the file as a whole is at fault), the
// column when one is at fault, and why.
type DataError struct {
	// File and Line locate the problem.
	File string
	Line int
	// Column is the CSV column at fault ("" for a whole row or file).
	Column string
	// Reason says what is wrong.
	Reason string
}

func (e *DataError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Column != "" {
		return fmt.Sprintf("%s: column %q: %s", loc, e.Column, e.Reason)
	}
	return loc + ": " + e.Reason
}

// CPUPoint is one measured expert layer on the host CPU.
type CPUPoint struct {
	// Threads is the core cap; Batch the token batch.
	Threads, Batch int
	// ActiveExperts is the number of distinct experts the last run touched.
	ActiveExperts int
	// Median, Min and Max are over Reps runs.
	Median, Min, Max unit.Duration
	// Reps is the number of timed runs.
	Reps int
}

// CopyPoint is one measured host-to-GPU copy.
type CopyPoint struct {
	// Pinned is true for page-locked host buffers.
	Pinned bool
	// Size is the copy's size.
	Size unit.Bytes
	// Median is its median time.
	Median unit.Duration
}

// csvTable reads a CSV file with a required set of columns, in any order.
type csvTable struct {
	file string
	col  map[string]int
	rows [][]string
	line []int
}

func readCSV(r io.Reader, file string, columns []string) (*csvTable, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	t := &csvTable{file: file, col: map[string]int{}}
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &DataError{File: file, Reason: "empty file (want a header: " + strings.Join(columns, ",") + ")"}
		}
		return nil, &DataError{File: file, Line: 1, Reason: err.Error()}
	}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if _, dup := t.col[h]; dup {
			return nil, &DataError{File: file, Line: 1, Column: h, Reason: "appears twice in the header"}
		}
		t.col[h] = i
	}
	for _, c := range columns {
		if _, ok := t.col[c]; !ok {
			return nil, &DataError{File: file, Line: 1, Column: c, Reason: "missing from the header (want " + strings.Join(columns, ",") + ")"}
		}
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, &DataError{File: file, Line: line, Reason: err.Error()}
		}
		if len(rec) != len(header) {
			return nil, &DataError{File: file, Line: line, Reason: fmt.Sprintf("%d fields, the header has %d", len(rec), len(header))}
		}
		t.rows = append(t.rows, rec)
		t.line = append(t.line, line)
	}
	if len(t.rows) == 0 {
		return nil, &DataError{File: file, Reason: "no data rows"}
	}
	return t, nil
}

// row reads typed cells of one row, remembering the first error.
type row struct {
	t   *csvTable
	i   int
	err error
}

func (r *row) fail(col, reason string) {
	if r.err == nil {
		r.err = &DataError{File: r.t.file, Line: r.t.line[r.i], Column: col, Reason: reason}
	}
}

func (r *row) str(col string) string { return strings.TrimSpace(r.t.rows[r.i][r.t.col[col]]) }

// positive reads a finite number > 0.
func (r *row) positive(col string) float64 {
	s := r.str(col)
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil:
		r.fail(col, fmt.Sprintf("%q is not a number", s))
	case math.IsNaN(v) || math.IsInf(v, 0) || v <= 0:
		r.fail(col, fmt.Sprintf("%s must be a positive finite number", s))
	case v > 1e15:
		r.fail(col, fmt.Sprintf("%s is beyond any plausible measurement", s))
	}
	return v
}

// count reads a whole number >= 1.
func (r *row) count(col string) int {
	s := r.str(col)
	v, err := strconv.Atoi(s)
	switch {
	case err != nil:
		r.fail(col, fmt.Sprintf("%q is not a whole number", s))
	case v < 1 || v > 1<<20:
		r.fail(col, fmt.Sprintf("%d is out of range (1 to %d)", v, 1<<20))
	}
	return v
}

func (r *row) boolean(col string) bool {
	switch s := strings.ToLower(r.str(col)); s {
	case "true", "1", "yes":
		return true
	case "false", "0", "no":
		return false
	default:
		r.fail(col, fmt.Sprintf("%q is not True or False", r.str(col)))
		return false
	}
}

func micros(us float64) unit.Duration {
	return unit.Duration(math.Round(us * float64(unit.Microsecond)))
}

// ParseCPUExpert reads cpu_expert.csv: threads, batch, active_experts_last,
// median_us, min_us, max_us, reps. Every value must be positive, min <=
// median <= max, and each (threads, batch) appear once. file names the
// source in errors.
func ParseCPUExpert(r io.Reader, file string) ([]CPUPoint, error) {
	t, err := readCSV(r, file, []string{"threads", "batch", "active_experts_last", "median_us", "min_us", "max_us", "reps"})
	if err != nil {
		return nil, err
	}
	seen := map[[2]int]int{}
	var out []CPUPoint
	for i := range t.rows {
		c := row{t: t, i: i}
		p := CPUPoint{Threads: c.count("threads"), Batch: c.count("batch"), ActiveExperts: c.count("active_experts_last"), Reps: c.count("reps")}
		med, lo, hi := c.positive("median_us"), c.positive("min_us"), c.positive("max_us")
		if c.err == nil && (lo > med || med > hi) {
			c.fail("median_us", fmt.Sprintf("median %g outside [min %g, max %g]", med, lo, hi))
		}
		key := [2]int{p.Threads, p.Batch}
		if prev, dup := seen[key]; dup && c.err == nil {
			c.fail("", fmt.Sprintf("threads %d, batch %d already measured on line %d", p.Threads, p.Batch, prev))
		}
		if c.err != nil {
			return nil, c.err
		}
		seen[key] = t.line[i]
		p.Median, p.Min, p.Max = micros(med), micros(lo), micros(hi)
		out = append(out, p)
	}
	return out, nil
}

// ParseH2D reads h2d.csv: pinned, MB (1e6 bytes), median_us (a GBps
// column, when present, is derived and ignored). Each (pinned, MB) appears
// once.
func ParseH2D(r io.Reader, file string) ([]CopyPoint, error) {
	t, err := readCSV(r, file, []string{"pinned", "MB", "median_us"})
	if err != nil {
		return nil, err
	}
	type key struct {
		pinned bool
		mb     float64
	}
	seen := map[key]int{}
	var out []CopyPoint
	for i := range t.rows {
		c := row{t: t, i: i}
		pinned := c.boolean("pinned")
		mb, us := c.positive("MB"), c.positive("median_us")
		k := key{pinned, mb}
		if prev, dup := seen[k]; dup && c.err == nil {
			c.fail("", fmt.Sprintf("pinned=%v, %g MB already measured on line %d", pinned, mb, prev))
		}
		if c.err != nil {
			return nil, c.err
		}
		seen[k] = t.line[i]
		out = append(out, CopyPoint{Pinned: pinned, Size: unit.Bytes(math.Round(mb * 1e6)), Median: micros(us)})
	}
	return out, nil
}
