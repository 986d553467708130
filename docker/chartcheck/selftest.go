package main

import (
	"bytes"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"regexp"

	"github.com/dashlab/dashlab/charts"
)

// demoPage is a page with a bar chart and a timeline of made-up example data.
func demoPage() ([]byte, error) {
	bar, err := charts.GroupedBar(charts.BarSpec{
		Common:     charts.Common{ID: "selftest_bar", Title: "Self-test bar chart", Subtitle: "made-up example data"},
		XName:      "Batch size",
		YName:      "Throughput (tokens/s)",
		Categories: []string{"1", "4", "16"},
		Series:     []charts.Series{{Name: "A", Values: []float64{1, 3, 9}}, {Name: "B", Values: []float64{2, 5, 11}}},
		Paper:      []charts.Series{{Name: "B", Values: []float64{2.2, 4.5, 12}}},
	})
	if err != nil {
		return nil, err
	}
	tl, err := charts.Timeline(charts.TimelineSpec{
		Common:   charts.Common{ID: "selftest_timeline", Title: "Self-test timeline", Subtitle: "made-up example data"},
		TimeName: "Time (µs)",
		Intervals: []charts.Interval{
			{Lane: "Direct", Start: 0, End: 5}, {Lane: "Relay", Start: 0, End: 4}, {Lane: "GPU compute", Start: 5, End: 8},
		},
	})
	if err != nil {
		return nil, err
	}
	return charts.NewPage("chartcheck self-test").Section("Charts").Chart(bar).Chart(tl).Bytes()
}

var libraryRE = regexp.MustCompile(`(?s)<script[^>]*data-dashlab-echarts=[^>]*>.*?</script>`)

// emptyChart is a chart element that ECharts initializes and paints only its white
// background into: a canvas exists, but it is blank.
const emptyChart = `<div class="dashlab-chart" id="selftest_empty" style="width:600px;height:300px;"></div>
<script>echarts.init(document.getElementById('selftest_empty')).setOption({backgroundColor: '#ffffff', title: {text: ' '}, series: []});</script>`

// overlapChart draws fine but puts its legend on its title: the layout check must fail it.
const overlapChart = `<div class="dashlab-chart" id="selftest_overlap" style="width:600px;height:300px;"></div>
<script>echarts.init(document.getElementById('selftest_overlap')).setOption({backgroundColor: '#ffffff',
  title: {text: 'A title under the legend', left: 'center', top: 0}, legend: {top: 0, left: 'center'},
  xAxis: {type: 'category', data: ['a', 'b']}, yAxis: {},
  series: [{name: 'first series', type: 'bar', data: [1, 2]}, {name: 'second series', type: 'bar', data: [2, 1]}]});</script>`

func selfTest(o options) error {
	good, err := demoPage()
	if err != nil {
		return err
	}
	if n := len(libraryRE.FindAll(good, -1)); n != 1 {
		return fmt.Errorf("demo page has %d library scripts, want 1", n)
	}
	noLib := libraryRE.ReplaceAll(good, nil)
	empty, err := charts.NewPage("chartcheck self-test: empty chart").HTML(template.HTML(emptyChart)).Bytes()
	if err != nil {
		return err
	}
	// The empty-chart page has no chart from the charts package, so no library: add it.
	empty = bytes.Replace(empty, []byte("</head>"), []byte(string(charts.LibraryHTML())+"</head>"), 1)
	overlap, err := charts.NewPage("chartcheck self-test: legend on the title").HTML(template.HTML(overlapChart)).Bytes()
	if err != nil {
		return err
	}
	overlap = bytes.Replace(overlap, []byte("</head>"), []byte(string(charts.LibraryHTML())+"</head>"), 1)

	dir, err := os.MkdirTemp("", "chartcheck-selftest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	cases := []struct {
		name string
		page []byte
		pass bool
	}{
		{"good.html", good, true},
		{"blank-no-library.html", noLib, false},
		{"blank-empty-chart.html", empty, false},
		{"overlap-legend-title.html", overlap, false},
	}
	for _, c := range cases {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, c.page, 0o644); err != nil {
			return err
		}
		fmt.Printf("---- expecting %s to %s\n", c.name, map[bool]string{true: "pass", false: "FAIL"}[c.pass])
		if got := report(o, path); got != c.pass {
			return fmt.Errorf("%s: check said pass=%v, want %v", c.name, got, c.pass)
		}
	}
	return nil
}
