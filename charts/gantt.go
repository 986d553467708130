package charts

import (
	"errors"
	"fmt"
	"math"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

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
