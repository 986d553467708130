package charts_test

import (
	"fmt"
	"math"
	"strings"

	"github.com/dashlab/dashlab/charts"
)

// A figure function builds a chart from a spec and renders it; Render passes the
// builder's error on. The snippet holds the chart element and its script, not the library.
func ExampleRender() {
	html, err := charts.Render(charts.GroupedBar(charts.BarSpec{
		Common:     charts.Common{ID: "fig9a_qwen3", Title: "Throughput (made-up example data)"},
		XName:      "Batch size",
		YName:      "Normalized throughput (×)",
		Categories: []string{"1", "4", "16", "64"},
		Series:     []charts.Series{{Name: "DASH", Values: []float64{0.1, 0.4, 1.2, 1.9}}},
		Paper:      []charts.Series{{Name: "DASH", Values: []float64{math.NaN(), math.NaN(), math.NaN(), 1.94}}},
	}))
	fmt.Println(err)
	fmt.Println(strings.HasPrefix(string(html), `<div class="dashlab-chart" id="fig9a_qwen3"`))
	fmt.Println(strings.Contains(string(html), "Paper (published)"))
	fmt.Println(len(html) < 20000) // the 1 MB library is not in it
	// Output:
	// <nil>
	// true
	// true
	// true
}

// A standalone page inlines the library once, however many charts it has.
func ExampleNewPage() {
	a, _ := charts.Timeline(charts.TimelineSpec{Common: charts.Common{ID: "a"},
		Intervals: []charts.Interval{{Lane: "Direct", Start: 0, End: 3}}})
	b, _ := charts.Timeline(charts.TimelineSpec{Common: charts.Common{ID: "b"},
		Intervals: []charts.Interval{{Lane: "Relay", Start: 1, End: 2}}})
	page, err := charts.NewPage("Report").Section("Routes").Chart(a).Chart(b).Bytes()
	fmt.Println(err, strings.Count(string(page), "data-dashlab-echarts="), strings.Count(string(page), `class="dashlab-chart"`))
	// Output: <nil> 1 2
}
