package sweep

import (
	"errors"
	"slices"
	"strings"
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
	colStatus = "status"
	colError  = "error"
)

// Row is one point's outcome.
type Row struct {
	// Point is the point's index in the sweep; Points the sweep's size.
	Point, Points int
	// Key is the point's stable key.
	Key string
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
}

// Header returns the plan's row shape.
func (p *Plan) Header() Header { return Header{Axes: p.Axes(), Metrics: p.Metrics()} }

// Columns lists a file's columns: point, key, sweep_points, the axes, the
// metrics, status and error.
func (h Header) Columns() []string {
	out := []string{colPoint, colKey, colPoints}
	out = append(out, h.Axes...)
	out = append(out, h.Metrics...)
	return append(out, colStatus, colError)
}

// Equal reports whether two headers have the same columns.
func (h Header) Equal(o Header) bool {
	return slices.Equal(h.Axes, o.Axes) && slices.Equal(h.Metrics, o.Metrics)
}

// headerFromColumns splits a file's columns back into axes and metrics:
// the metric columns are the kind's, recognised by name.
func headerFromColumns(cols []string) (Header, error) {
	n := len(cols)
	if n < 5 || cols[0] != colPoint || cols[1] != colKey || cols[2] != colPoints || cols[n-2] != colStatus || cols[n-1] != colError {
		return Header{}, errors.New("not a sweep file: want columns point, key, sweep_points, the axes, the metrics, status, error; have " + strings.Join(cols, ", "))
	}
	mid := cols[3 : n-2]
	for _, k := range KindNames() {
		kd, _ := kindByName(k)
		m := kd.Metrics()
		if len(mid) > len(m) && slices.Equal(mid[len(mid)-len(m):], m) {
			return Header{Axes: slices.Clone(mid[:len(mid)-len(m)]), Metrics: slices.Clone(m)}, nil
		}
	}
	return Header{}, errors.New("columns " + strings.Join(mid, ", ") + ": no known kind's metrics at the end")
}
