package charts

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// Palette is the series colors the builders use in order, ECharts' default light palette;
// a Series' Color overrides it. The paper overlay of a series uses that series' color.
var Palette = []string{
	"#5470c6", "#91cc75", "#fac858", "#ee6666", "#73c0de",
	"#3ba272", "#fc8452", "#9a60b4", "#ea7ccc",
}

// PaperColor draws the paper's published values where they are not tied to one series.
const PaperColor = "#222222"

// Common holds what every builder takes.
type Common struct {
	// ID is the chart's element id and the suffix of its JavaScript variables: letters,
	// digits and _ (other characters become _). Set it for reproducible output and keep it
	// unique within a page or notebook; empty gives a random one.
	ID       string
	Title    string
	Subtitle string // e.g. the workload, or "made-up example data"
	// Width and Height are CSS sizes; defaults 900px and 480px.
	Width, Height string
}

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

// Interval is one bar of a timeline: [Start, End] on one lane.
type Interval struct {
	Lane       string  // e.g. "Direct", "Relay", "GPU compute"
	Start, End float64 // in the timeline's time unit
	Kind       string  // legend entry and color, e.g. "expert weights"; empty: the lane
	Label      string  // shown in the tooltip, e.g. "expert 17"
}

// Marker is a named instant, drawn as a dashed vertical line.
type Marker struct {
	Name string
	At   float64
}

// TimelineSpec describes a Gantt-like timeline: horizontal bars of [start, end]
// intervals, one row per lane.
type TimelineSpec struct {
	Common
	TimeName  string   // time axis name with its unit, e.g. "Time (µs)"
	Lanes     []string // top-to-bottom order; empty: order of first appearance
	Intervals []Interval
	// Kinds fixes the legend order and colors of interval kinds; kinds not listed follow
	// in order of first appearance with the next Palette colors.
	Kinds []Series // only Name and Color are used
	// Paper holds published instants (e.g. the paper's layer completion time), drawn as
	// dark dashed vertical lines with their names.
	Paper []Marker
	// TimeMin and TimeMax fix the time axis (both 0: automatic), e.g. to draw several
	// timelines on one scale.
	TimeMin, TimeMax float64
}

var idBadChars = regexp.MustCompile(`[^A-Za-z0-9_]`)

// SanitizeID turns s into a valid chart id: letters, digits and _.
func SanitizeID(s string) string { return idBadChars.ReplaceAllString(s, "_") }

func (c Common) init() opts.Initialization {
	w, h := c.Width, c.Height
	if w == "" {
		w = "900px"
	}
	if h == "" {
		h = "480px"
	}
	return opts.Initialization{
		ChartID:         SanitizeID(c.ID),
		Width:           w,
		Height:          h,
		BackgroundColor: "#ffffff", // light theme even inside a dark notebook theme
		Theme:           "white",
	}
}

// styleVisitor finishes the option where go-echarts has no field: value-axis names sit
// above the y axis, left-aligned, so a long name with its unit is never clipped by the
// chart's left edge or drawn over the tick labels.
type styleVisitor struct{ ec.BaseConfigurationVisitor }

func (styleVisitor) VisitYAxis(axes []opts.YAxis) interface{} {
	out := make([]interface{}, len(axes))
	for i, a := range axes {
		if a.Name == "" || a.NameLocation != "end" {
			out[i] = a
			continue
		}
		out[i] = struct {
			opts.YAxis
			NameTextStyle map[string]interface{} `json:"nameTextStyle"`
		}{a, map[string]interface{}{"align": "left", "color": "#444"}}
	}
	return out
}

// VisitXAxis gives category labels an explicit line height: ECharts otherwise draws the
// lines of a two-line label ("Qwen3\nB=64") almost on top of each other.
func (styleVisitor) VisitXAxis(axes []opts.XAxis) interface{} {
	out := make([]interface{}, len(axes))
	for i, a := range axes {
		if a.Type != "category" {
			out[i] = a
			continue
		}
		label := map[string]interface{}{"lineHeight": 15, "color": "#333"}
		if cats, ok := a.Data.([]string); ok && len(cats) > 12 {
			label["fontSize"] = 11
		}
		if a.AxisLabel != nil {
			if a.AxisLabel.Interval != "" {
				label["interval"] = a.AxisLabel.Interval
			}
			if a.AxisLabel.Rotate != 0 {
				label["rotate"] = a.AxisLabel.Rotate
			}
		}
		out[i] = struct {
			opts.XAxis
			AxisLabel map[string]interface{} `json:"axisLabel"`
		}{a, label}
	}
	return out
}

// commonGlobal gives the options every builder sets: light theme, title, legend at the
// bottom, a save-as-image button.
func commonGlobal(c Common, trigger string) []ec.GlobalOpts {
	return []ec.GlobalOpts{
		ec.WithInitializationOpts(c.init()),
		ec.WithTitleOpts(opts.Title{
			Title: c.Title, Subtitle: c.Subtitle, Left: "center",
			TitleStyle:    &opts.TextStyle{Color: "#222", FontSize: 16},
			SubtitleStyle: &opts.TextStyle{Color: "#555"},
		}),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Bottom: "0", Type: "scroll"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: trigger}),
		ec.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Right: "20",
			Feature: &opts.ToolBoxFeature{SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Title: "Save as PNG"}}}),
		ec.WithGridOpts(opts.Grid{Top: "85", Bottom: "75", Left: "30", Right: "40", ContainLabel: opts.Bool(true)}),
	}
}

func axisType(log bool) string {
	if log {
		return "log"
	}
	return "value"
}

func colorAt(i int, explicit string) string {
	if explicit != "" {
		return explicit
	}
	return Palette[i%len(Palette)]
}

// jsFunc checks a JavaScript function for what go-echarts cannot carry: it puts the code
// in a JSON string and unquotes it, so double quotes and backslashes would come out
// escaped, and it deletes newlines, so // comments would swallow the rest.
func jsFunc(src string) (types.FuncStr, error) {
	if strings.ContainsAny(src, "\"\\") || strings.Contains(src, "//") {
		return "", fmt.Errorf("charts: internal JavaScript must use single quotes and no // comments: %.60q", src)
	}
	return opts.FuncOpts(src), nil
}

// niceCeil rounds x > 0 up to 1, 2, 2.5 or 5 times a power of ten.
func niceCeil(x float64) float64 {
	if x <= 0 || !finite(x) {
		return x
	}
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= x*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// ---------------------------------------------------------------- grouped bar chart

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
    { type: 'line', shape: { x1: x - 2, y1: p[1], x2: x + w + 2, y2: p[1] }, style: { stroke: '%s', lineWidth: 2.5, lineDash: [6, 3] } },
    { type: 'circle', shape: { cx: x + w / 2, cy: p[1], r: 3.5 }, style: { fill: '#ffffff', stroke: '%s', lineWidth: 2 } }
  ] };
}`

const paperTooltipJS = `function (p) { return p.marker + 'Paper, ' + p.value[3] + ' @ ' + p.name + ': <b>' + p.value[1] + '</b>'; }`

// GroupedBar builds a grouped bar chart with the paper's published values overlaid.
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
			}
		}
		bar.AddSeries(s.Name, data,
			ec.WithBarChartOpts(opts.BarChart{BarGap: barGap, BarCategoryGap: barCategoryGap}),
			ec.WithItemStyleOpts(opts.ItemStyle{Color: colorAt(i, s.Color)}))
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
	if err := addRefs(bar, spec.RefLines, spec.Bands, spec.LogY); err != nil {
		return nil, err
	}
	fitLegend(&bar.RectChart, spec.Common)
	return bar, nil
}

// ---------------------------------------------------------------- line chart

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

// ---------------------------------------------------------------- scatter chart

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
		sc.AddSeries(g.Name, data, ec.WithItemStyleOpts(opts.ItemStyle{Color: colorAt(i, g.Color)}))
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

// ---------------------------------------------------------------- timeline

const timelineRenderJS = `function (params, api) {
  var lane = api.value(0);
  var s = api.coord([api.value(1), lane]);
  var e = api.coord([api.value(2), lane]);
  var h = api.size([0, 1])[1] * 0.6;
  var rect = echarts.graphic.clipRectByRect(
    { x: s[0], y: s[1] - h / 2, width: Math.max(e[0] - s[0], 1), height: h },
    { x: params.coordSys.x, y: params.coordSys.y, width: params.coordSys.width, height: params.coordSys.height });
  return rect && { type: 'rect', transition: ['shape'], shape: rect, style: api.style() };
}`

const timelineTooltipJS = `function (p) {
  var v = p.value;
  var f = function (x) { return +Number(x).toPrecision(6); };
  return p.marker + p.seriesName + (p.name ? ': ' + p.name : '') + '<br/>' + v[3] + ': ' + f(v[1]) + ' to ' + f(v[2]) + ' (' + f(v[2] - v[1]) + ')';
}`

// Timeline builds a Gantt-like chart: for each lane, a row of horizontal bars, one per
// interval, colored by kind; the paper's published instants are dashed vertical lines.
func Timeline(spec TimelineSpec) (*ec.Custom, error) {
	if len(spec.Intervals) == 0 {
		return nil, errors.New("charts: Timeline needs at least one interval")
	}
	lanes := append([]string(nil), spec.Lanes...)
	laneIdx := map[string]int{}
	for i, l := range lanes {
		laneIdx[l] = i
	}
	kindColor := map[string]string{}
	var kinds []string
	for i, k := range spec.Kinds {
		kinds = append(kinds, k.Name)
		kindColor[k.Name] = colorAt(i, k.Color)
	}
	byKind := map[string][]opts.CustomData{}
	maxEnd := math.Inf(-1)
	for _, iv := range spec.Intervals {
		maxEnd = math.Max(maxEnd, iv.End)
		if !finite(iv.Start) || !finite(iv.End) || iv.End < iv.Start {
			return nil, fmt.Errorf("charts: interval %q on lane %q: bad bounds [%v, %v]", iv.Label, iv.Lane, iv.Start, iv.End)
		}
		li, ok := laneIdx[iv.Lane]
		if !ok {
			if len(spec.Lanes) > 0 {
				return nil, fmt.Errorf("charts: interval %q: lane %q is not in Lanes", iv.Label, iv.Lane)
			}
			li = len(lanes)
			lanes = append(lanes, iv.Lane)
			laneIdx[iv.Lane] = li
		}
		kind := iv.Kind
		if kind == "" {
			kind = iv.Lane
		}
		if _, ok := kindColor[kind]; !ok {
			kindColor[kind] = colorAt(len(kinds), "")
			kinds = append(kinds, kind)
		}
		byKind[kind] = append(byKind[kind], opts.CustomData{Name: iv.Label, Value: []interface{}{li, iv.Start, iv.End, iv.Lane}})
	}
	render, err := jsFunc(timelineRenderJS)
	if err != nil {
		return nil, err
	}
	tip, err := jsFunc(timelineTooltipJS)
	if err != nil {
		return nil, err
	}
	// Markers are not data, so ECharts would not stretch the axis to show them.
	var xMax interface{}
	for _, m := range spec.Paper {
		if finite(m.At) && m.At > maxEnd {
			maxEnd, xMax = m.At, niceCeil(m.At)
		}
	}
	var xMin interface{}
	if spec.TimeMin != 0 || spec.TimeMax != 0 {
		xMin, xMax = spec.TimeMin, spec.TimeMax
	}
	c := ec.NewCustom()
	c.SetGlobalOptions(commonGlobal(spec.Common, "item")...)
	c.SetGlobalOptions(
		ec.WithXAxisOpts(opts.XAxis{Type: "value", Name: spec.TimeName, NameLocation: "middle", NameGap: 30, Min: xMin, Max: xMax}),
		ec.WithYAxisOpts(opts.YAxis{Type: "category", Data: lanes, Inverse: opts.Bool(true)}),
	)
	c.SetXAxis(nil)
	for _, k := range kinds {
		if len(byKind[k]) == 0 {
			continue
		}
		c.AddSeries(k, byKind[k],
			ec.WithCustomChartOpts(opts.CustomChart{RenderItem: render}),
			ec.WithEncodeOpts(opts.Encode{X: []int{1, 2}, Y: 0}),
			ec.WithItemStyleOpts(opts.ItemStyle{Color: kindColor[k], Opacity: opts.Float(0.9)}),
			ec.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: tip}))
	}
	if len(spec.Paper) > 0 {
		var items []opts.MarkLineNameXAxisItem
		for _, m := range spec.Paper {
			if !finite(m.At) {
				continue
			}
			items = append(items, opts.MarkLineNameXAxisItem{Name: m.Name, XAxis: m.At})
		}
		l := ec.NewLine()
		l.AddSeries("Paper (published)", []opts.LineData{},
			ec.WithItemStyleOpts(opts.ItemStyle{Color: PaperColor}),
			ec.WithMarkLineNameXAxisItemOpts(items...),
			ec.WithMarkLineStyleOpts(opts.MarkLineStyle{
				Symbol:    []string{"none", "none"},
				LineStyle: &opts.LineStyle{Color: PaperColor, Type: "dashed", Width: 1.5},
				Label:     &opts.Label{Show: opts.Bool(true), Formatter: "{b}", Color: PaperColor, Position: "start"}, // the lane axis is inverted: "start" is the top,
			}))
		c.Overlap(l)
	}
	fitLegend(&c.RectChart, spec.Common)
	return c, nil
}
