package charts

import (
	"errors"
	"fmt"
	"math"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// ScatterPoint is one labelled point of a scatter chart.
type ScatterPoint struct {
	Label string // shown in the tooltip, e.g. "Qwen3, B=64"
	X, Y  float64
}

// ScatterGroup is one named group (one color) of points.
type ScatterGroup struct {
	Name   string
	Points []ScatterPoint
	Color  string
}

// ScatterSpec describes a predicted-vs-measured scatter chart: X is the paper's
// (measured) value, Y the simulated (predicted) one, so points on the dashed y = x line
// agree with the paper.
type ScatterSpec struct {
	Common
	XName, YName string // e.g. "Paper: E2E latency (s)", "Simulated: E2E latency (s)"
	Groups       []ScatterGroup
	// Band, when > 0, adds dotted lines y = x·(1 ± Band), e.g. 0.1 for ±10 %.
	Band       float64
	LogX, LogY bool
	// RefName names the y = x line; default "y = x (matches paper)".
	RefName string
}

// Scatter builds a predicted-vs-measured scatter chart with the y = x reference line
// (agreement with the paper) dashed and an optional ±Band.
func Scatter(spec ScatterSpec) (*ec.Scatter, error) {
	if len(spec.Groups) == 0 {
		return nil, errors.New("charts: Scatter needs at least one group")
	}
	sc := ec.NewScatter()
	sc.SetGlobalOptions(commonGlobal(spec.Common, "item")...)
	sc.SetGlobalOptions(
		ec.WithXAxisOpts(opts.XAxis{Type: axisType(spec.LogX), Name: spec.XName, NameLocation: "middle", NameGap: 30, Scale: opts.Bool(true)}),
		ec.WithYAxisOpts(opts.YAxis{Type: axisType(spec.LogY), Name: spec.YName, NameLocation: "end", NameGap: 14, Scale: opts.Bool(true)}),
	)
	sc.Accept(styleVisitor{})
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, g := range spec.Groups {
		var data []opts.ScatterData
		for _, p := range g.Points {
			if !finite(p.X) || !finite(p.Y) {
				continue
			}
			if (spec.LogX && p.X <= 0) || (spec.LogY && p.Y <= 0) {
				return nil, fmt.Errorf("charts: group %q: point %q (%v, %v) on a log axis", g.Name, p.Label, p.X, p.Y)
			}
			lo, hi = math.Min(lo, math.Min(p.X, p.Y)), math.Max(hi, math.Max(p.X, p.Y))
			data = append(data, opts.ScatterData{Name: p.Label, Value: []float64{p.X, p.Y}, SymbolSize: 10})
		}
		sc.AddSeries(g.Name, data, ec.WithItemStyleOpts(opts.ItemStyle{Color: seriesColor(i, g.Name, g.Color)}))
	}
	if lo <= hi {
		ref := func(name string, f float64, dash string, color string) {
			l := ec.NewLine()
			l.AddSeries(name, []opts.LineData{{Value: []float64{lo, lo * f}}, {Value: []float64{hi, hi * f}}},
				ec.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false), Symbol: "none"}),
				ec.WithLineStyleOpts(opts.LineStyle{Color: color, Type: dash, Width: 1.5}),
				ec.WithItemStyleOpts(opts.ItemStyle{Color: color}))
			sc.Overlap(l)
		}
		refName := spec.RefName
		if refName == "" {
			refName = "y = x (matches paper)"
		}
		ref(refName, 1, "dashed", PaperColor)
		if spec.Band > 0 {
			name := fmt.Sprintf("±%g%%", spec.Band*100)
			ref(name, 1+spec.Band, "dotted", "#888888")
			if 1-spec.Band > 0 {
				ref(name, 1-spec.Band, "dotted", "#888888")
			}
		}
	}
	fitLegend(&sc.RectChart, spec.Common)
	return sc, nil
}
