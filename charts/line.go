package charts

import (
	"errors"
	"fmt"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Point is one (x, y) point.
type Point struct{ X, Y float64 }

// XYSeries is one named series of points.
type XYSeries struct {
	Name   string
	Points []Point // points with a NaN coordinate are left out
	Color  string
}

// LineSpec describes a line chart over a numeric x axis.
type LineSpec struct {
	Common
	XName, YName string // axis names with units, e.g. "tR (µs)", "E2E latency reduction (%)"
	Series       []XYSeries
	// Paper holds the paper's published points. One whose Name equals a series' name is
	// drawn dashed in that series' color; each appears in the legend as "NAME (paper)".
	Paper      []XYSeries
	LogX, LogY bool
	// RefLines are horizontal reference lines, Bands shaded horizontal ranges.
	RefLines []RefLine
	Bands    []Band
}

// Lines builds a line chart over a numeric (or logarithmic) x axis, with the paper's
// published points as dashed series.
func Lines(spec LineSpec) (*ec.Line, error) {
	if len(spec.Series) == 0 {
		return nil, errors.New("charts: Lines needs at least one series")
	}
	line := ec.NewLine()
	line.SetGlobalOptions(commonGlobal(spec.Common, "axis")...)
	yAxis := opts.YAxis{Type: axisType(spec.LogY), Name: spec.YName, NameLocation: "end", NameGap: 14}
	var ys []float64
	for _, s := range append(append([]XYSeries(nil), spec.Series...), spec.Paper...) {
		for _, p := range s.Points {
			ys = append(ys, p.Y)
		}
	}
	if d, m := valueMax([]Series{{Values: ys}}, spec.RefLines, spec.Bands); axisMaxFor(d, m, spec.LogY) != nil {
		yAxis.Max = axisMaxFor(d, m, spec.LogY)
	}
	line.SetGlobalOptions(
		ec.WithXAxisOpts(opts.XAxis{Type: axisType(spec.LogX), Name: spec.XName, NameLocation: "middle", NameGap: 30}),
		ec.WithYAxisOpts(yAxis),
	)
	line.Accept(styleVisitor{})
	colors := map[string]string{}
	add := func(s XYSeries, color, name string, dashed bool) error {
		var data []opts.LineData
		for _, p := range s.Points {
			if !finite(p.X) || !finite(p.Y) {
				continue
			}
			if (spec.LogX && p.X <= 0) || (spec.LogY && p.Y <= 0) {
				return fmt.Errorf("charts: series %q: point (%v, %v) on a log axis", name, p.X, p.Y)
			}
			data = append(data, opts.LineData{Value: []float64{p.X, p.Y}})
		}
		style := opts.LineStyle{Color: color, Width: 2}
		symbol := "circle"
		if dashed {
			style.Type = "dashed"
			symbol = "diamond"
		}
		line.AddSeries(name, data,
			ec.WithLineChartOpts(opts.LineChart{Symbol: symbol, SymbolSize: 8, ShowSymbol: opts.Bool(true)}),
			ec.WithLineStyleOpts(style),
			ec.WithItemStyleOpts(opts.ItemStyle{Color: color}))
		return nil
	}
	for i, s := range spec.Series {
		c := colorAt(i, s.Color)
		colors[s.Name] = c
		if err := add(s, c, s.Name, false); err != nil {
			return nil, err
		}
	}
	for i, p := range spec.Paper {
		c, ok := colors[p.Name]
		if p.Color != "" {
			c = p.Color
		} else if !ok {
			c = colorAt(len(spec.Series)+i, "")
		}
		if err := add(p, c, p.Name+" (paper)", true); err != nil {
			return nil, err
		}
	}
	if err := addRefs(line, spec.RefLines, spec.Bands, spec.LogY); err != nil {
		return nil, err
	}
	fitLegend(&line.RectChart, spec.Common)
	return line, nil
}
