package charts

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync"

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

var idBadChars = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_]`) })

// SanitizeID turns s into a valid chart id: letters, digits and _.
func SanitizeID(s string) string { return idBadChars().ReplaceAllString(s, "_") }

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

// VisitTitleOpt gives a subtitle of several lines ("\n") a line height: ECharts
// otherwise draws its lines over each other.
func (styleVisitor) VisitTitleOpt(t opts.Title) interface{} {
	return struct {
		opts.Title
		SubtextStyle map[string]interface{} `json:"subtextStyle"`
	}{t, map[string]interface{}{"color": "#555", "lineHeight": 16}}
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
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Bottom: "4", Type: "scroll"}),
		ec.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: trigger}),
		ec.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Right: "20",
			Feature: &opts.ToolBoxFeature{SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Title: "Save as PNG"}}}),
		ec.WithGridOpts(opts.Grid{Top: gridTop(c.Subtitle), Bottom: "75", Left: "30", Right: "40", ContainLabel: opts.Bool(true)}),
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
