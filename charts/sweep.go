package charts

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/dashlab/dashlab/summary"
)

// SweepMark marks one cell of a sweep heat map (the paper's design point).
type SweepMark struct {
	// X and Y are the cell's axis values, as the sweep's rows carry them.
	X, Y string
	// Label names the mark ("the paper").
	Label string
}

// SweepHeatMap draws a metric of a sweep over two of its axes (from
// sweep.Table.Heat) as a heat map with a continuous colour scale, the
// value in each cell, and the marked cells ringed. Cells without a value
// (points that do not fit or failed) stay blank.
func SweepHeatMap(c Common, h summary.HeatMap, marks ...SweepMark) (Chart, error) {
	if len(h.X) == 0 || len(h.Y) == 0 {
		return nil, errors.New("charts: SweepHeatMap: empty heat map")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	var data []opts.HeatMapData
	for y, row := range h.Z {
		for x, v := range row {
			if !finite(v) {
				continue
			}
			lo, hi = min(lo, v), max(hi, v)
			data = append(data, opts.HeatMapData{Value: [3]interface{}{x, y, roundSig(v, 4)}})
		}
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("charts: SweepHeatMap: no cell of %s has a value", h.Metric)
	}
	if hi == lo {
		hi = lo + 1
	}
	if c.Height == "" {
		c.Height = "520px"
	}
	hm := ec.NewHeatMap()
	hm.SetGlobalOptions(commonGlobal(c, "item")...)
	hm.SetGlobalOptions(
		ec.WithXAxisOpts(opts.XAxis{Type: "category", Name: h.XAxis, NameLocation: "middle", NameGap: 30, Data: h.X}),
		ec.WithYAxisOpts(opts.YAxis{Type: "category", Name: h.YAxis, Data: h.Y}),
		ec.WithVisualMapOpts(opts.VisualMap{Type: "continuous", Calculable: opts.Bool(true), Min: float32(lo), Max: float32(hi),
			Orient: "horizontal", Left: "center", Top: "35", Text: []string{h.Metric, ""},
			InRange: &opts.VisualMapInRange{Color: []string{"#f7fbff", "#9ecae1", "#3182bd", "#08306b"}}}),
	)
	setGrid(&hm.RectChart, func(g *opts.Grid) { g.Top = "100" })
	hm.AddSeries(h.Metric, data, ec.WithLabelOpts(opts.Label{Show: opts.Bool(true), Color: "#202124"}))
	for _, m := range marks {
		x, y := cellIndex(h.X, m.X), cellIndex(h.Y, m.Y)
		if x < 0 || y < 0 {
			return nil, fmt.Errorf("charts: SweepHeatMap: mark %q at (%s, %s): not a cell (x: %v, y: %v)", m.Label, m.X, m.Y, h.X, h.Y)
		}
		s := ec.NewScatter()
		s.AddSeries(m.Label, []opts.ScatterData{{Value: []interface{}{x, y}, Symbol: "rect", SymbolSize: 34}},
			ec.WithItemStyleOpts(opts.ItemStyle{Color: "rgba(0,0,0,0)", BorderColor: PaperColor, BorderWidth: 3}),
			ec.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "top", Formatter: m.Label, Color: PaperColor}))
		hm.Overlap(s)
	}
	return hm, nil
}

// cellIndex finds a mark's value among a heat map's axis values; a value
// typed with the ASCII "us" ("3us") finds the row label "3µs".
func cellIndex(values []string, v string) int {
	if i := slices.Index(values, v); i >= 0 || !strings.HasSuffix(v, "us") {
		return i
	}
	return slices.Index(values, strings.TrimSuffix(v, "us")+"µs")
}

// roundSig rounds v to n significant digits.
func roundSig(v float64, n int) float64 {
	if v == 0 || !finite(v) {
		return v
	}
	p := math.Pow(10, float64(n)-math.Ceil(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}
