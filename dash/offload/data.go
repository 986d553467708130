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
	"github.com/dashlab/dashlab/internal/safeio"
)

// Bounds of the host data. Every shipped value is far inside them; a value
// outside is a unit slip or a damaged file, refused with its file, line and
// column.
const (
	// MaxDataBytes bounds a host-data file (1 MiB; the shipped ones are
	// under 1 KB); MaxDataLineBytes one of its lines (64 KiB).
	MaxDataBytes     = safeio.MaxInputBytes
	MaxDataLineBytes = safeio.MaxLineBytes
	// MinMicros and MaxMicros bound every time (0.1 µs .. 10,000 s): below,
	// nanosecond rounding would distort the fits; above, no expert layer
	// or copy takes that long.
	MinMicros = 0.1
	MaxMicros = 1e10
	// MinMB and MaxMB bound a copy's size (1 byte .. 1 TB, in MB = 1e6 B).
	MinMB = 1e-6
	MaxMB = 1e6
	// MaxCopyGBps bounds a copy's implied rate (2 TB/s: above any
	// host-to-GPU link, NVLink-C2C's 900 GB/s included).
	MaxCopyGBps = 2000
	// MaxCount bounds threads, batch, active_experts_last and reps (1 ..
	// 1,048,576).
	MaxCount = 1 << 20
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
	lr := safeio.NewLineReader(r, file, MaxDataLineBytes, MaxDataBytes)
	cr := csv.NewReader(lr)
	cr.FieldsPerRecord = -1
	t := &csvTable{file: file, col: map[string]int{}}
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &DataError{File: file, Reason: "empty file (want a header: " + strings.Join(columns, ",") + ")"}
		}
		return nil, readError(file, lr.Line(), err)
	}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if _, dup := t.col[h]; dup {
			return nil, &DataError{File: file, Line: 1, Column: safeio.Clip(h), Reason: "appears twice in the header"}
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
		if err != nil {
			return nil, readError(file, lr.Line(), err)
		}
		line, _ := cr.FieldPos(0)
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

// readError is a read or parse error as a *DataError at its line.
func readError(file string, line int, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		line, err = pe.Line, pe.Err
	}
	var ll *safeio.LineTooLongError
	var tl *safeio.TooLargeError
	switch {
	case errors.As(err, &ll):
		return &DataError{File: file, Line: ll.Line, Reason: fmt.Sprintf("line longer than the limit of %d bytes", ll.Limit)}
	case errors.As(err, &tl):
		return &DataError{File: file, Reason: fmt.Sprintf("larger than the limit of %d bytes", MaxDataBytes)}
	}
	return &DataError{File: file, Line: line, Reason: err.Error()}
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

// number reads a finite number in [lo, hi]; what names the quantity.
func (r *row) number(col string, lo, hi float64, what string) float64 {
	s := r.str(col)
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		r.fail(col, fmt.Sprintf("%s is not a number", safeio.Quote(s)))
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi:
		r.fail(col, fmt.Sprintf("%s: outside the plausible range %g .. %g %s", safeio.Clip(s), lo, hi, what))
	}
	return v
}

// micros reads a time in µs within [MinMicros, MaxMicros].
func (r *row) micros(col string) float64 { return r.number(col, MinMicros, MaxMicros, "µs") }

// count reads a whole number in [1, MaxCount].
func (r *row) count(col string) int {
	s := r.str(col)
	v, err := strconv.Atoi(s)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		r.fail(col, fmt.Sprintf("%s is not a whole number", safeio.Quote(s)))
	case err != nil || v < 1 || v > MaxCount:
		r.fail(col, fmt.Sprintf("%s is out of range (1 to %d)", safeio.Clip(s), MaxCount))
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
		r.fail(col, fmt.Sprintf("%s is not True or False", safeio.Quote(r.str(col))))
		return false
	}
}

func micros(us float64) unit.Duration {
	return unit.Duration(math.Round(us * float64(unit.Microsecond)))
}

// ParseCPUExpert reads cpu_expert.csv: threads, batch, active_experts_last,
// median_us, min_us, max_us, reps. Counts are whole numbers from 1 to
// MaxCount, times from MinMicros to MaxMicros, min <= median <= max, and
// each (threads, batch) appears once. file names the source in errors.
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
		med, lo, hi := c.micros("median_us"), c.micros("min_us"), c.micros("max_us")
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

// ParseH2D reads h2d.csv: pinned, MB (1e6 bytes, MinMB to MaxMB),
// median_us (MinMicros to MaxMicros, at most MaxCopyGBps); a GBps column,
// when present, is derived and ignored. Each (pinned, MB) appears once.
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
		mb, us := c.number("MB", MinMB, MaxMB, "MB"), c.micros("median_us")
		if gbps := mb * 1e6 / (us * 1e3); c.err == nil && gbps > MaxCopyGBps {
			c.fail("median_us", fmt.Sprintf("%g MB in %g µs is %.4g GB/s: beyond any host-to-GPU link (at most %d GB/s)", mb, us, gbps, MaxCopyGBps))
		}
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
