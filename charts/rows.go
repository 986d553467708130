package charts

import (
	"math"

	"github.com/dashlab/dashlab/summary"
)

// A figure lists the paper's numbers it draws as rows the harness judged (a summary's
// Rows): it picks them by paper id, labels them (Metric) for its table and draws their
// published values as ticks and lines. It never judges one itself.

// paperOf is the published value of a paper id among rows, NaN when rows have none.
func paperOf(rows []summary.Row, id string) float64 {
	if r, ok := rowOf(rows, id); ok {
		return r.Paper
	}
	return math.NaN()
}

// labelled returns the row of a paper id with its Metric set for a figure's table
// (false when rows have none).
func labelled(rows []summary.Row, id, metric string) (summary.Row, bool) {
	r, ok := rowOf(rows, id)
	r.Metric = metric
	return r, ok
}

// rowOf is the row of a paper id: its own, else one reporting it under a variant
// (a figure drawn for one variant carries that variant's rows).
func rowOf(rows []summary.Row, id string) (summary.Row, bool) {
	if r, ok := summary.RowByID(rows, id); ok {
		return r, true
	}
	for _, r := range rows {
		if r.BaseID() == id {
			return r, true
		}
	}
	return summary.Row{}, false
}

// rowLabel names a paper id's row in a figure's table.
type rowLabel struct{ id, metric string }

// labelRows returns the rows of the labels' ids, in the labels' order, each with its
// Metric set; ids rows has none of are left out.
func labelRows(rows []summary.Row, labels []rowLabel) []summary.Row {
	var out []summary.Row
	for _, l := range labels {
		if r, ok := labelled(rows, l.id, l.metric); ok {
			out = append(out, r)
		}
	}
	return out
}
