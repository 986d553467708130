package charts

import (
	"errors"
	"fmt"
	"math"

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
	// drawn in that series' color as hollow diamonds, not joined (the paper publishes
	// points, and a line between them would draw what it never drew); each appears in the
	// legend as "NAME (paper)".
	Paper      []XYSeries
	LogX, LogY bool
	// RefLines are horizontal reference lines, Bands shaded horizontal ranges.
	RefLines []RefLine
	Bands    []Band
}

// Lines builds a line chart over a numeric (or logarithmic) x axis, with the paper's
// published points as markers. A logarithmic x axis spans the data's powers of ten, not
// one more. A chart of more than maxAnimatedPoints points draws without the opening
// animation.
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
	xAxis := opts.XAxis{Type: axisType(spec.LogX), Name: spec.XName, NameLocation: "middle", NameGap: 30}
	if spec.LogX {
		// ECharts rounds a log axis out to whole powers of ten: data from 1 to 32 would
		// get an axis to 100. The axis ends at the data instead.
		if lo, hi, ok := xRange(append(append([]XYSeries(nil), spec.Series...), spec.Paper...)); ok && lo > 0 {
			xAxis.Min, xAxis.Max = lo, hi
		}
	}
	line.SetGlobalOptions(
		ec.WithXAxisOpts(xAxis),
		ec.WithYAxisOpts(yAxis),
	)
	line.Accept(styleVisitor{})
	if n := pointCount(spec.Series) + pointCount(spec.Paper); n > maxAnimatedPoints {
		line.SetGlobalOptions(ec.WithAnimation(false))
	}
	colors := map[string]string{}
	add := func(s XYSeries, color, name string, paper bool) error {
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
		item := opts.ItemStyle{Color: color}
		symbol, size := "circle", 8
		if paper {
			style.Opacity = opts.Float(0) // points only
			symbol, size = "diamond", 12
			item = opts.ItemStyle{Color: "#ffffff", BorderColor: color, BorderWidth: 2.5}
		}
		line.AddSeries(name, data,
			ec.WithLineChartOpts(opts.LineChart{Symbol: symbol, SymbolSize: float32(size), ShowSymbol: opts.Bool(true)}),
			ec.WithLineStyleOpts(style),
			ec.WithItemStyleOpts(item))
		return nil
	}
	for i, s := range spec.Series {
		c := seriesColor(i, s.Name, s.Color)
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
	if err := addRefs(&line.RectChart, spec.RefLines, spec.Bands, spec.LogY, firstX(spec.Series)); err != nil {
		return nil, err
	}
	fitLegend(&line.RectChart, spec.Common)
	return line, nil
}

// firstX is the first finite x of the series (1 when there is none: valid on a log axis).
func firstX(series []XYSeries) float64 {
	for _, s := range series {
		for _, p := range s.Points {
			if finite(p.X) && finite(p.Y) {
				return p.X
			}
		}
	}
	return 1
}

// xRange is the smallest and largest finite x of the series.
func xRange(series []XYSeries) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, p := range s.Points {
			if finite(p.X) && finite(p.Y) {
				lo, hi = math.Min(lo, p.X), math.Max(hi, p.X)
			}
		}
	}
	return lo, hi, lo <= hi
}

// maxAnimatedPoints is the most points a line chart animates. ECharts animates every
// symbol of a line; past a thousand that costs more than it shows, and under headless
// Chromium's virtual clock (docker/chartcheck) the animation frames of notebook 07's
// time series kept the page from settling for minutes, now and then.
const maxAnimatedPoints = 1000

// pointCount is the number of points of the series.
func pointCount(series []XYSeries) int {
	n := 0
	for _, s := range series {
		n += len(s.Points)
	}
	return n
}
