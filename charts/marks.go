package charts

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/types"
)

// RefLine is a horizontal reference line across a chart, with its own legend entry: a
// published value (the paper's geomean), a capacity (the H100's 80 GB), a rate (one
// link's 1.6 TB/s).
type RefLine struct {
	Name  string // legend entry, e.g. "Paper geomean vs RelayOnly: 1.90×"
	Y     float64
	Color string // CSS color; default PaperColor
	Solid bool   // default dashed
	// Label is written at the line's right end, outside the plot (default Name): labels
	// of lines close together are moved apart, never drawn over each other or the data.
	Label string
}

// Band is a shaded horizontal range with its own legend entry, e.g. the paper's
// published range of a quantity.
type Band struct {
	Name   string
	Lo, Hi float64
	Color  string // CSS color; default a light grey-blue
}

// refLabelGap is the least vertical distance between two reference-line labels, in px.
const refLabelGap = 14

// refLabelJS writes reference line k's label right of the plot, at the line's height,
// moved down as far as needed to keep refLabelGap from the label above it: %s are every
// line's value and the x value the labels are anchored at, %d is refLabelGap.
const refLabelJS = `function (params, api) {
  var ys = [%s];
  var cs = params.coordSys;
  var px = [];
  for (var i = 0; i < ys.length; i++) { px.push({ i: i, y: api.coord([%s, ys[i]])[1] }); }
  px.sort(function (a, b) { return a.y - b.y || a.i - b.i; });
  var at = [], prev = -1e9;
  for (var j = 0; j < px.length; j++) { prev = Math.max(px[j].y, prev + %d); at[px[j].i] = prev; }
  return { type: 'text', x: cs.x + cs.width + 6, y: at[api.value(2)], z2: 100, silent: true,
    style: { text: api.value(3), fill: api.visual('color'), fontSize: 11, align: 'left', verticalAlign: 'middle' } };
}`

const refLabelTooltipJS = `function (p) { return p.marker + p.value[3]; }`

// addRefs overlays reference lines and bands: each is an empty line series carrying a
// markLine or markArea, so that it has a legend entry and can be switched off. A line's
// label is a custom series of the same name (switched off with it) that writes the label
// in the right margin, which grows to fit the longest; x0 is an x value of the data
// (0 on a category axis), where the labels are anchored.
func addRefs(rc *ec.RectChart, lines []RefLine, bands []Band, logY bool, x0 float64) error {
	var ys []string
	widest := 0.0
	for _, r := range lines {
		if !finite(r.Y) || (logY && r.Y <= 0) {
			return fmt.Errorf("charts: reference line %q at %v", r.Name, r.Y)
		}
		ys = append(ys, strconv.FormatFloat(r.Y, 'g', -1, 64))
		widest = math.Max(widest, labelWidth(refLabel(r)))
	}
	var render, tip types.FuncStr
	if len(lines) > 0 {
		var err error
		if tip, err = jsFunc(refLabelTooltipJS); err != nil {
			return err
		}
		if render, err = jsFunc(fmt.Sprintf(refLabelJS, strings.Join(ys, ", "), strconv.FormatFloat(x0, 'g', -1, 64), refLabelGap)); err != nil {
			return err
		}
		setGrid(rc, func(g *opts.Grid) { g.Right = fmt.Sprint(int(widest) + 16) })
	}
	for k, r := range lines {
		color := r.Color
		if color == "" {
			color = PaperColor
		}
		typ := "dashed"
		if r.Solid {
			typ = "solid"
		}
		l := ec.NewLine()
		l.AddSeries(r.Name, []opts.LineData{},
			ec.WithItemStyleOpts(opts.ItemStyle{Color: color}),
			ec.WithLineStyleOpts(opts.LineStyle{Color: color, Type: typ, Width: 1.5}),
			ec.WithMarkLineNameYAxisItemOpts(opts.MarkLineNameYAxisItem{Name: refLabel(r), YAxis: r.Y}),
			ec.WithMarkLineStyleOpts(opts.MarkLineStyle{
				Symbol:    []string{"none", "none"},
				LineStyle: &opts.LineStyle{Color: color, Type: typ, Width: 1.5},
				Label:     &opts.Label{Show: opts.Bool(false)},
			}))
		rc.Overlap(l)
		label := ec.NewCustom()
		label.AddSeries(r.Name, []opts.CustomData{{Name: r.Name, Value: []interface{}{x0, r.Y, k, refLabel(r)}}},
			ec.WithCustomChartOpts(opts.CustomChart{RenderItem: render}),
			ec.WithEncodeOpts(opts.Encode{X: 0, Y: 1}),
			ec.WithItemStyleOpts(opts.ItemStyle{Color: color}),
			ec.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: tip}))
		rc.Overlap(label)
	}
	for _, b := range bands {
		lo, hi := math.Min(b.Lo, b.Hi), math.Max(b.Lo, b.Hi)
		if !finite(lo) || !finite(hi) || (logY && lo <= 0) {
			return fmt.Errorf("charts: band %q [%v, %v]", b.Name, b.Lo, b.Hi)
		}
		color := b.Color
		if color == "" {
			color = "#9fb3d9"
		}
		area := []interface{}{
			map[string]interface{}{"name": b.Name, "yAxis": lo},
			map[string]interface{}{"yAxis": hi},
		}
		l := ec.NewLine()
		l.AddSeries(b.Name, []opts.LineData{},
			ec.WithItemStyleOpts(opts.ItemStyle{Color: color}),
			func(s *ec.SingleSeries) {
				s.MarkAreas = &opts.MarkAreas{
					Data: []interface{}{area},
					MarkAreaStyle: opts.MarkAreaStyle{
						ItemStyle: &opts.ItemStyle{Color: color, Opacity: opts.Float(0.25)},
						Label:     &opts.Label{Show: opts.Bool(true), Color: "#333", Position: "insideTopLeft"},
					},
				}
			})
		rc.Overlap(l)
	}
	return nil
}

// refLabel is the text written for a reference line.
func refLabel(r RefLine) string {
	if r.Label != "" {
		return r.Label
	}
	return r.Name
}

// labelWidth estimates the width in px of an 11 px label.
func labelWidth(s string) float64 { return 6.2 * float64(utf8.RuneCountInString(s)) }

// setGrid changes the chart's grid: the last one set (go-echarts appends each one given,
// and ECharts would draw the axes in the first).
func setGrid(rc *ec.RectChart, change func(*opts.Grid)) {
	g := opts.Grid{Top: "85", Bottom: "75", Left: "30", Right: "40", ContainLabel: opts.Bool(true)}
	if n := len(rc.GridList); n > 0 {
		g = rc.GridList[n-1]
	}
	change(&g)
	rc.GridList = []opts.Grid{g}
}

// barNoteJS writes a note, rotated, where bar k of category j would stand.
const barNoteJS = `function (params, api) {
  var n = %d;
  var k = api.value(1);
  var p = api.coord([api.value(0), 0]);
  var band = api.size([1, 0])[0];
  var w = band * 0.8 / (n + 0.3 * (n - 1));
  var x = p[0] - band * 0.4 + k * 1.3 * w + w / 2;
  var y = params.coordSys.y + params.coordSys.height - 4;
  return { type: 'text', x: x, y: y, rotation: Math.PI / 2,
    style: { text: api.value(2), fill: '%s', fontSize: 11, align: 'left', verticalAlign: 'middle' } };
}`

const barNoteTooltipJS = `function (p) { return p.marker + p.value[3] + ' @ ' + p.name + ': <b>' + p.value[2] + '</b>'; }`

// NoteColor is the color of the notes written in place of absent bars.
const NoteColor = "#8a8a8a"

func addBarNotes(bar *ec.Bar, spec BarSpec, index map[string]int) error {
	if len(spec.Absent) == 0 {
		return nil
	}
	cat := map[string]int{}
	for j, c := range spec.Categories {
		cat[c] = j
	}
	var data []opts.CustomData
	for _, n := range spec.Absent {
		k, ok := index[n.Series]
		if !ok {
			return fmt.Errorf("charts: bar note for unknown series %q", n.Series)
		}
		j, ok := cat[n.Category]
		if !ok {
			return fmt.Errorf("charts: bar note for unknown category %q", n.Category)
		}
		if v := spec.Series[k].Values[j]; !math.IsNaN(v) {
			return fmt.Errorf("charts: bar note %q on %s @ %q, which has a value (%v)", n.Text, n.Series, n.Category, v)
		}
		data = append(data, opts.CustomData{Name: n.Category, Value: []interface{}{j, k, n.Text, n.Series}})
	}
	render, err := jsFunc(fmt.Sprintf(barNoteJS, len(spec.Series), NoteColor))
	if err != nil {
		return err
	}
	tip, err := jsFunc(barNoteTooltipJS)
	if err != nil {
		return err
	}
	name := "no bar: " + spec.Absent[0].Text
	for _, n := range spec.Absent {
		if n.Text != spec.Absent[0].Text {
			name = "no bar (see the labels)"
		}
	}
	custom := ec.NewCustom()
	custom.AddSeries(name, data,
		ec.WithCustomChartOpts(opts.CustomChart{RenderItem: render}),
		ec.WithEncodeOpts(opts.Encode{X: 0}),
		ec.WithItemStyleOpts(opts.ItemStyle{Color: NoteColor}),
		ec.WithSeriesTooltipOpts(opts.SeriesTooltip{Formatter: tip}))
	bar.Overlap(custom)
	return nil
}

// legendRowHeight is the height of one row of a wrapped legend, in px.
const legendRowHeight = 22

// fitLegend lays the legend out in as many rows as its entries need (ECharts wraps a
// plain legend), growing the chart's bottom margin and height to match, instead of a
// scrolling legend whose later entries are hidden. Past four rows it keeps scrolling.
func fitLegend(rc *ec.RectChart, c Common) {
	width := 900.0
	if w := strings.TrimSuffix(c.Width, "px"); w != c.Width {
		if v, err := strconv.ParseFloat(w, 64); err == nil {
			width = v
		}
	}
	seen := map[string]bool{}
	rows, used := 1, 0.0
	for _, s := range rc.MultiSeries {
		if s.Name == "" || seen[s.Name] {
			continue
		}
		seen[s.Name] = true
		w := 25 + 10 + 6.6*float64(utf8.RuneCountInString(s.Name))
		if used > 0 && used+w > width-60 {
			rows++
			used = 0
		}
		used += w
	}
	setGrid(rc, func(*opts.Grid) {})
	if rows == 1 || rows > 4 {
		return
	}
	extra := legendRowHeight * (rows - 1)
	h := 480
	if v := strings.TrimSuffix(c.Height, "px"); v != c.Height {
		if n, err := strconv.Atoi(v); err == nil {
			h = n
		}
	}
	c.Height = fmt.Sprintf("%dpx", h+extra)
	rc.SetGlobalOptions(
		ec.WithInitializationOpts(c.init()),
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Bottom: "4", Type: "plain", Left: "center"}),
	)
	setGrid(rc, func(g *opts.Grid) { g.Bottom = fmt.Sprint(75 + extra) })
}

// valueMax is the largest finite value of the series, reference lines and bands.
func valueMax(series []Series, refs []RefLine, bands []Band) (data, marks float64) {
	data, marks = math.Inf(-1), math.Inf(-1)
	for _, s := range series {
		for _, v := range s.Values {
			if finite(v) {
				data = math.Max(data, v)
			}
		}
	}
	for _, r := range refs {
		marks = math.Max(marks, r.Y)
	}
	for _, b := range bands {
		marks = math.Max(marks, math.Max(b.Lo, b.Hi))
	}
	return data, marks
}

// axisMaxFor returns a value-axis maximum that shows every reference line and band
// (ECharts does not stretch the axis for marks), or nil when the data already reach them.
func axisMaxFor(data, marks float64, logY bool) interface{} {
	if !finite(marks) || (finite(data) && data >= marks) {
		return nil
	}
	if logY {
		return math.Pow(10, math.Ceil(math.Log10(marks*1.05)))
	}
	step := math.Pow(10, math.Floor(math.Log10(marks))) / 2 // lands on ECharts' own ticks
	return step * math.Ceil(marks*1.06/step)
}
