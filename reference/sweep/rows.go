package sweep

import (
	"errors"
	"slices"
	"strings"

	"github.com/dashlab/dashlab/internal/safeio"
)

// Row statuses.
const (
	// StatusOK is a point with a result.
	StatusOK = "ok"
	// StatusDoesNotFit is a point whose model and KV cache do not fit its
	// memory system (not simulated).
	StatusDoesNotFit = "does_not_fit"
	// StatusFailed is a point whose run failed.
	StatusFailed = "failed"
)

// Fixed columns around the axes and metrics.
const (
	colPoint  = "point"
	colKey    = "key"
	colPoints = "sweep_points"
	colSweep  = "sweep"
	colStatus = "status"
	colError  = "error"
)

// MaxRowBytes bounds one row as a line of a CSV or JSONL file (1 MiB): at
// most 64 axis values of 1 KiB, the metrics and an error cut to 1 KiB fit
// well inside it. A longer line is not a row of a sweep file; it is refused
// (or, as the torn last line of a killed run, dropped) without being held.
const MaxRowBytes = 1 << 20

// maxErrorText bounds a row's error message (1 KiB, cut with its length).
const maxErrorText = 1 << 10

// Row is one point's outcome.
type Row struct {
	// Point is the point's index in the sweep; Points the sweep's size.
	Point, Points int
	// Key is the point's stable key.
	Key string
	// Sweep identifies the sweep (its ID: the base and every point), so
	// that rows of two sweeps are never taken for one; empty in files
	// written before the column existed (Header.Legacy).
	Sweep string
	// Values are the axis values, in the header's axis order.
	Values []string
	// Metrics are the metric values in the header's order (NaN: none).
	Metrics []float64
	// Status is StatusOK, StatusDoesNotFit or StatusFailed.
	Status string
	// Error is the reason for a status other than ok (one line).
	Error string
	// Result is the kind's full result, in process only (not written).
	Result any
}

// Header is the shape of a sweep's rows.
type Header struct {
	// Axes are the axes' paths; Metrics the metric columns.
	Axes, Metrics []string
	// Legacy is a file written before rows named their sweep (no sweep
	// column): it is read, resumed and merged in its own layout.
	Legacy bool
}

// Header returns the plan's row shape.
func (p *Plan) Header() Header { return Header{Axes: p.Axes(), Metrics: p.Metrics()} }

// Columns lists a file's columns: point, key, sweep_points, sweep (unless
// Legacy), the axes, the metrics, status and error.
func (h Header) Columns() []string {
	out := []string{colPoint, colKey, colPoints}
	if !h.Legacy {
		out = append(out, colSweep)
	}
	out = append(out, h.Axes...)
	out = append(out, h.Metrics...)
	return append(out, colStatus, colError)
}

// fixed is the number of columns before the axes.
func (h Header) fixed() int {
	if h.Legacy {
		return 3
	}
	return 4
}

// Equal reports whether two headers have the same columns.
func (h Header) Equal(o Header) bool { return h.sameShape(o) && h.Legacy == o.Legacy }

// sameShape reports whether two headers have the same axes and metrics,
// whatever their layout.
func (h Header) sameShape(o Header) bool {
	return slices.Equal(h.Axes, o.Axes) && slices.Equal(h.Metrics, o.Metrics)
}

// headerFromColumns splits a file's columns back into axes and metrics:
// the metric columns are the kind's, recognised by name.
func headerFromColumns(cols []string) (Header, error) {
	n := len(cols)
	if n < 5 || cols[0] != colPoint || cols[1] != colKey || cols[2] != colPoints || cols[n-2] != colStatus || cols[n-1] != colError {
		shown := cols
		if len(shown) > 8 {
			shown = append(slices.Clone(shown[:8]), "...")
		}
		for i := range shown {
			shown[i] = safeio.Clip(shown[i])
		}
		return Header{}, errors.New("not a sweep file: want columns point, key, sweep_points, sweep, the axes, the metrics, status, error; have " + strings.Join(shown, ", "))
	}
	h := Header{Legacy: cols[3] != colSweep}
	mid := cols[h.fixed() : n-2]
	for _, k := range KindNames() {
		kd, _ := kindByName(k)
		m := kd.Metrics()
		if len(mid) > len(m) && slices.Equal(mid[len(mid)-len(m):], m) {
			h.Axes, h.Metrics = slices.Clone(mid[:len(mid)-len(m)]), slices.Clone(m)
			return h, nil
		}
	}
	return Header{}, errors.New("columns " + safeio.Clip(strings.Join(mid, ", ")) + ": no known kind's metrics at the end")
}

// clipError cuts a row's error message to maxErrorText bytes.
func clipError(s string) string { return safeio.ClipTo(s, maxErrorText) }
