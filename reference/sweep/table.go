package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/summary"
)

// Table is a sweep's rows in memory, found by their axis values.
type Table struct {
	// Header gives the axes and metrics.
	Header Header
	// Rows are the rows in point order.
	Rows []Row
}

// Collect runs the whole plan in process on workers goroutines (0: one per
// CPU) and returns its rows, each with its full result (sim.Result for
// fixed runs).
func Collect(ctx context.Context, p *Plan, workers int) (*Table, error) {
	t := &Table{Header: p.Header()}
	err := p.Run(ctx, RunOptions{Workers: workers}, func(r Row) error {
		t.Rows = append(t.Rows, r)
		return nil
	})
	return t, err
}

// Load reads a sweep file (CSV, JSONL or Parquet).
func Load(path string) (*Table, error) {
	t := &Table{}
	h, err := ReadRows(path, func(r Row) error {
		t.Rows = append(t.Rows, r)
		return nil
	})
	t.Header = h
	return t, err
}

// Err joins the errors of the rows that failed (rows of points that do not
// fit their memory system are not errors: they have StatusDoesNotFit).
func (t *Table) Err() error {
	var errs []error
	for _, r := range t.Rows {
		if r.Status == StatusFailed {
			errs = append(errs, fmt.Errorf("point %d %v: %s", r.Point, r.Values, r.Error))
		}
	}
	return errors.Join(errs...)
}

func (t *Table) axis(path string) (int, error) {
	i := slices.Index(t.Header.Axes, path)
	if i < 0 {
		return 0, fmt.Errorf("%q is not an axis of the sweep (axes: %s)", path, strings.Join(t.Header.Axes, ", "))
	}
	return i, nil
}

// normalize writes a value the way rows carry it ("3 us" -> "3µs").
func normalize(path, value string) string {
	f, err := resolvePath(path, "", nil)
	if rest, ok := strings.CutPrefix(path, "overrides."); err != nil && ok {
		if k, kerr := dash.LookupKnob(rest); kerr == nil { // a knob of a kind's own (KnobKind)
			f, err = field{typ: k.Type()}, nil
		}
	}
	if err != nil {
		return value
	}
	v, err := parseValue(value, f.typ)
	if err != nil {
		return value
	}
	l, err := label(v)
	if err != nil {
		return value
	}
	return l
}

// Select returns the rows whose axes have the given values, as pairs of
// path and value ("system", "dash", "overrides.hbf.t_read", "3µs"; "3us"
// and "3 us" find it too).
func (t *Table) Select(pairs ...string) (*Table, error) {
	if len(pairs)%2 != 0 {
		return nil, fmt.Errorf("select: %d arguments: want path, value pairs", len(pairs))
	}
	type cond struct {
		axis  int
		value string
	}
	var conds []cond
	for i := 0; i < len(pairs); i += 2 {
		ai, err := t.axis(pairs[i])
		if err != nil {
			return nil, fmt.Errorf("select: %w", err)
		}
		conds = append(conds, cond{ai, normalize(pairs[i], pairs[i+1])})
	}
	out := &Table{Header: t.Header}
	for _, r := range t.Rows {
		ok := true
		for _, c := range conds {
			ok = ok && r.Values[c.axis] == c.value
		}
		if ok {
			out.Rows = append(out.Rows, r)
		}
	}
	return out, nil
}

// Find returns the one row whose axes have the given values (pairs of path
// and value); it is an error when none or several match.
func (t *Table) Find(pairs ...string) (Row, error) {
	s, err := t.Select(pairs...)
	if err != nil {
		return Row{}, err
	}
	switch len(s.Rows) {
	case 1:
		return s.Rows[0], nil
	case 0:
		return Row{}, fmt.Errorf("find %v: no row", pairs)
	}
	return Row{}, fmt.Errorf("find %v: %d rows match: give the other axes too", pairs, len(s.Rows))
}

// Metric returns a row's value of a metric column (NaN when the point has
// no result).
func (t *Table) Metric(r Row, metric string) (float64, error) {
	i := slices.Index(t.Header.Metrics, metric)
	if i < 0 {
		return math.NaN(), fmt.Errorf("%q is not a metric (metrics: %s)", metric, strings.Join(t.Header.Metrics, ", "))
	}
	return r.Metrics[i], nil
}

// Value returns a row's value of an axis.
func (t *Table) Value(r Row, axis string) (string, error) {
	i, err := t.axis(axis)
	if err != nil {
		return "", err
	}
	return r.Values[i], nil
}

// Heat arranges a metric over two axes. Every other axis must have one
// value in the table (Select first); a cell with two rows is an error.
func (t *Table) Heat(xAxis, yAxis, metric string) (summary.HeatMap, error) {
	xi, err := t.axis(xAxis)
	if err != nil {
		return summary.HeatMap{}, err
	}
	yi, err := t.axis(yAxis)
	if err != nil {
		return summary.HeatMap{}, err
	}
	mi := slices.Index(t.Header.Metrics, metric)
	if mi < 0 {
		return summary.HeatMap{}, fmt.Errorf("%q is not a metric (metrics: %s)", metric, strings.Join(t.Header.Metrics, ", "))
	}
	h := summary.HeatMap{XAxis: xAxis, YAxis: yAxis, Metric: metric}
	xs, ys := map[string]int{}, map[string]int{}
	for _, r := range t.Rows {
		if _, ok := xs[r.Values[xi]]; !ok {
			xs[r.Values[xi]] = len(h.X)
			h.X = append(h.X, r.Values[xi])
		}
		if _, ok := ys[r.Values[yi]]; !ok {
			ys[r.Values[yi]] = len(h.Y)
			h.Y = append(h.Y, r.Values[yi])
		}
	}
	h.Z = make([][]float64, len(h.Y))
	filled := make([][]bool, len(h.Y))
	for y := range h.Z {
		h.Z[y] = make([]float64, len(h.X))
		filled[y] = make([]bool, len(h.X))
		for x := range h.Z[y] {
			h.Z[y][x] = math.NaN()
		}
	}
	for _, r := range t.Rows {
		x, y := xs[r.Values[xi]], ys[r.Values[yi]]
		if filled[y][x] {
			return summary.HeatMap{}, fmt.Errorf("heat map of %s over %s x %s: two rows at (%s, %s): other axes vary; Select one value of each first",
				metric, xAxis, yAxis, r.Values[xi], r.Values[yi])
		}
		filled[y][x] = true
		h.Z[y][x] = r.Metrics[mi]
	}
	return h, nil
}
