package charts

import (
	"errors"
	"fmt"
	"math"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// Series is one named series of values, one value per category of a bar chart.
type Series struct {
	Name   string
	Values []float64 // math.NaN() marks a missing value
	Color  string    // CSS color; empty takes the next one of Palette
}

// BarSpec describes a grouped bar chart: one group of bars per category, one bar per
// series in each group.
type BarSpec struct {
	Common
	XName      string // category axis name, e.g. "Batch size"
	YName      string // value axis name with its unit, e.g. "Throughput (tokens/s)"
	Categories []string
	Series     []Series
	// Paper holds the paper's published values: Paper[i].Name names one of Series and
	// Paper[i].Values has one value per category (NaN where the paper gives none). Each is
	// drawn as a dark dashed tick across the matching bar, in one legend entry
	// "Paper (published)".
	Paper []Series
	LogY  bool
	// YMin and YMax fix the value axis range (0: automatic).
	YMin, YMax float64
	// RefLines are horizontal reference lines (a published geomean, a capacity), each
	// with a legend entry; Bands are shaded ranges (a published range).
	RefLines []RefLine
	Bands    []Band
	// Absent marks bars that have no value for a reason (NaN in Series), e.g. "does not
	// fit": the reason is written where the bar would stand, so that a missing bar is never
	// mistaken for a zero or silently dropped.
	Absent []BarNote
	// LabelRotate rotates the category labels (degrees); every label is shown.
	LabelRotate float64
}

// BarNote is a text written in place of one bar (see BarSpec.Absent).
type BarNote struct {
	Series, Category string
	Text             string
}

// The bar layout the paper overlay reproduces: ECharts' bar series with these gaps put
// n bars of width w = 0.8·band/(n + 0.3·(n−1)) in each category band.
const (
	barCategoryGap = "20%"
	barGap         = "30%"
)

const paperBarTickJS = `function (params, api) {
  var n = %d;
  var k = api.value(2);
  var p = api.coord([api.value(0), api.value(1)]);
  var band = api.size([1, 0])[0];
  var w = band * 0.8 / (n + 0.3 * (n - 1));
  var x = p[0] - band * 0.4 + k * 1.3 * w;
  var c = api.visual('color');
  return { type: 'group', children: [
    { type: 'line', z2: 99, shape: { x1: x - 3, y1: p[1], x2: x + w + 3, y2: p[1] }, style: { stroke: '#ffffff', lineWidth: 5 } },
    { type: 'line', z2: 100, shape: { x1: x - 2, y1: p[1], x2: x + w + 2, y2: p[1] }, style: { stroke: '%s', lineWidth: 2.5, lineDash: [6, 3] } },
    { type: 'circle', z2: 101, shape: { cx: x + w / 2, cy: p[1], r: 3.5 }, style: { fill: '#ffffff', stroke: '%s', lineWidth: 2 } }
  ] };
}`

const paperTooltipJS = `function (p) { return p.marker + 'Paper, ' + p.value[3] + ' @ ' + p.name + ': <b>' + p.value[1] + '</b>'; }`

// GroupedBar builds a grouped bar chart with the paper's published values overlaid. A
// chart of one series whose categories are systems ("DASH", "RelayOnly") draws each bar
// in its system's colour (SystemColor), as every other figure does.
func GroupedBar(spec BarSpec) (*ec.Bar, error) {
	if len(spec.Categories) == 0 || len(spec.Series) == 0 {
		return nil, errors.New("charts: GroupedBar needs categories and series")
	}
	index := map[string]int{}
	for i, s := range spec.Series {
		if len(s.Values) != len(spec.Categories) {
			return nil, fmt.Errorf("charts: bar series %q has %d values for %d categories", s.Name, len(s.Values), len(spec.Categories))
		}
		if _, dup := index[s.Name]; dup {
			return nil, fmt.Errorf("charts: two bar series named %q", s.Name)
		}
		index[s.Name] = i
	}
	bar := ec.NewBar()
	bar.SetGlobalOptions(commonGlobal(spec.Common, "item")...)
	xAxis := opts.XAxis{Type: "category", Name: spec.XName, NameLocation: "middle", NameGap: 30,
		AxisLabel: &opts.AxisLabel{Interval: "0", Rotate: spec.LabelRotate}}
	lines := 1
	for _, c := range spec.Categories {
		lines = max(lines, 1+strings.Count(c, "\n"))
	}
	xAxis.NameGap = 20 + 15*lines
	if spec.LabelRotate != 0 {
		xAxis.NameGap = 70
	}
	yAxis := opts.YAxis{Type: axisType(spec.LogY), Name: spec.YName, NameLocation: "end", NameGap: 14}
	if spec.YMin != 0 {
		yAxis.Min = spec.YMin
	} else if spec.LogY {
		// Bars on a log axis grow from the axis minimum: put it at the power of ten below
		// the smallest value, so that no bar hangs down from 1.
		lo := math.Inf(1)
		for _, s := range spec.Series {
			for _, v := range s.Values {
				if finite(v) && v > 0 {
					lo = math.Min(lo, v)
				}
			}
		}
		if finite(lo) {
			yAxis.Min = math.Pow(10, math.Floor(math.Log10(lo)))
		}
	}
	if spec.YMax != 0 {
		yAxis.Max = spec.YMax
	} else if d, m := valueMax(spec.Series, spec.RefLines, spec.Bands); axisMaxFor(d, m, spec.LogY) != nil {
		yAxis.Max = axisMaxFor(d, m, spec.LogY)
	}
	bar.SetGlobalOptions(ec.WithXAxisOpts(xAxis), ec.WithYAxisOpts(yAxis))
	bar.SetXAxis(spec.Categories)
	bar.Accept(styleVisitor{})
	for i, s := range spec.Series {
		data := make([]opts.BarData, len(s.Values))
		for j, v := range s.Values {
			switch {
			case math.IsNaN(v):
				data[j] = opts.BarData{Value: "-"}
			case math.IsInf(v, 0):
				return nil, fmt.Errorf("charts: bar series %q: infinite value at %q", s.Name, spec.Categories[j])
			case spec.LogY && v <= 0:
				return nil, fmt.Errorf("charts: bar series %q: value %v at %q on a log axis", s.Name, v, spec.Categories[j])
			default:
				data[j] = opts.BarData{Value: v}
				if c := SystemColor(spec.Categories[j]); c != "" && len(spec.Series) == 1 {
					// one series over systems: each bar in its system's colour
					data[j].ItemStyle = &opts.ItemStyle{Color: c}
				}
			}
		}
		bar.AddSeries(s.Name, data,
			ec.WithBarChartOpts(opts.BarChart{BarGap: barGap, BarCategoryGap: barCategoryGap}),
			ec.WithItemStyleOpts(opts.ItemStyle{Color: seriesColor(i, s.Name, s.Color)}))
	}
	if len(spec.Paper) > 0 {
		var data []opts.CustomData
		for _, p := range spec.Paper {
			k, ok := index[p.Name]
			if !ok {
				return nil, fmt.Errorf("charts: paper series %q matches no bar series", p.Name)
			}
			if len(p.Values) != len(spec.Categories) {
				return nil, fmt.Errorf("charts: paper series %q has %d values for %d categories", p.Name, len(p.Values), len(spec.Categories))
			}
			for j, v := range p.Values {
				if !finite(v) || (spec.LogY && v <= 0) {
					continue
				}
				data = append(data, opts.CustomData{Name: spec.Categories[j], Value: []interface{}{j, v, k, p.Name}})
			}
		}
		render, err := jsFunc(fmt.Sprintf(paperBarTickJS, len(spec.Series), PaperColor, PaperColor))
		if err != nil {
			return nil, err
		}
		tip, err := jsFunc(paperTooltipJS)
		if err != nil {
			return nil, err
		}
		custom := ec.NewCustom()
		custom.AddSeries("Paper (published)", data,
			ec.WithCustomChartOpts(opts.CustomChart{RenderItem: render}),
			ec.WithEncodeOpts(opts.Encode{X: 0, Y: 1}),
			ec.WithItemStyleOpts(opts.ItemStyle{Color: PaperColor}),
			ec.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: tip})) // added after the bars: drawn on top
		bar.Overlap(custom)
	}
	if err := addBarNotes(bar, spec, index); err != nil {
		return nil, err
	}
	if err := addRefs(&bar.RectChart, spec.RefLines, spec.Bands, spec.LogY, 0); err != nil {
		return nil, err
	}
	fitLegend(&bar.RectChart, spec.Common)
	if perSystem(spec) {
		// Its bars take their systems' colours, which the category axis names: a legend
		// entry for the series would show one colour for several.
		var names []string
		for _, ser := range bar.MultiSeries {
			if ser.Name != spec.Series[0].Name {
				names = append(names, ser.Name)
			}
		}
		bar.SetGlobalOptions(ec.WithLegendOpts(opts.Legend{Show: opts.Bool(len(names) > 0), Bottom: "4", Type: "scroll", Data: names}))
	}
	return bar, nil
}

// perSystem reports whether a bar chart draws its one series in its categories' system
// colours.
func perSystem(spec BarSpec) bool {
	if len(spec.Series) != 1 {
		return false
	}
	for _, c := range spec.Categories {
		if SystemColor(c) != "" {
			return true
		}
	}
	return false
}
