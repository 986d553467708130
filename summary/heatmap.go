package summary

// HeatMap is a metric over two axes: Z[y][x] for the X and Y values in the
// order they first appear (the sweep's order); NaN where a point has no
// result.
type HeatMap struct {
	// XAxis and YAxis are the axes' paths; Metric the metric column.
	XAxis, YAxis, Metric string
	// X and Y are the axes' values.
	X, Y []string
	// Z holds the metric, Z[y][x].
	Z [][]float64
}
