package charts

import (
	"crypto/sha256"
	"encoding/hex"
	"html/template"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/summary"
	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/render"
)

// Made-up example data, not the paper's numbers.
func exampleBar(t testing.TB) *ec.Bar {
	b, err := GroupedBar(BarSpec{
		Common:     Common{ID: "test_bar", Title: "Example throughput", Subtitle: "made-up example data"},
		XName:      "Batch size",
		YName:      "Throughput (tokens/s)",
		Categories: []string{"1", "4", "16", "64"},
		Series: []Series{
			{Name: "RelayOnly", Values: []float64{10, 35, 120, 400}},
			{Name: "DASH", Values: []float64{19, 66, 230, math.NaN()}},
		},
		Paper: []Series{{Name: "DASH", Values: []float64{20, 70, math.NaN(), 760}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func exampleTimeline(t testing.TB) *ec.Custom {
	c, err := Timeline(TimelineSpec{
		Common:   Common{ID: "test_timeline", Title: "Example route timeline", Subtitle: "made-up example data"},
		TimeName: "Time (µs)",
		Lanes:    []string{"Direct", "Relay", "GPU compute"},
		Intervals: []Interval{
			{Lane: "Direct", Start: 0, End: 12, Kind: "expert weights", Label: "expert 3"},
			{Lane: "Relay", Start: 0, End: 10, Kind: "expert weights", Label: "expert 17"},
			{Lane: "GPU compute", Start: 12, End: 20, Kind: "compute", Label: "expert FFN"},
		},
		Paper: []Marker{{Name: "paper: 21 µs", At: 21}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func exampleLines(t testing.TB) *ec.Line {
	l, err := Lines(LineSpec{
		Common: Common{ID: "test_lines", Title: "Example sweep", Subtitle: "made-up example data"},
		XName:  "tR (µs)", YName: "E2E reduction (%)", LogX: true,
		Series: []XYSeries{{Name: "Qwen3", Points: []Point{{3, 3}, {8, 5}, {32, 9}}}},
		Paper:  []XYSeries{{Name: "Qwen3", Points: []Point{{3, 3.3}, {32, 9.5}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func exampleScatter(t testing.TB) *ec.Scatter {
	s, err := Scatter(ScatterSpec{
		Common: Common{ID: "test_scatter", Title: "Example predicted vs measured", Subtitle: "made-up example data"},
		XName:  "Paper (ms)", YName: "Simulated (ms)", Band: 0.1,
		Groups: []ScatterGroup{{Name: "TPOT", Points: []ScatterPoint{{"a", 10, 11}, {"b", 20, 19}, {"c", 40, 47}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLibraryIsEChartsVersion(t *testing.T) {
	js := LibraryJS()
	if !strings.Contains(js, `.version="`+LibraryVersion+`"`) {
		t.Fatalf("embedded echarts.min.js does not say version %s", LibraryVersion)
	}
	sum := sha256.Sum256([]byte(js))
	if got, want := hex.EncodeToString(sum[:]), "bf4a223524e40b77c304bec67e1222cf551f14880cf42c69dc046558e11c07b1"; got != want {
		t.Errorf("echarts.min.js sha256 = %s, want %s (assets/README.md)", got, want)
	}
	if !strings.Contains(LibraryLicense(), "Apache License") {
		t.Error("license text missing")
	}
	h := string(LibraryHTML())
	if !strings.HasPrefix(h, "<script") || !strings.Contains(h, "(function(define,module,exports){") ||
		!strings.HasSuffix(h, "})();</script>") {
		t.Errorf("library not wrapped against RequireJS: %.120s ... %.60s", h, h[len(h)-60:])
	}
	if strings.Count(strings.ToLower(h), "</script") != 1 {
		t.Error("library HTML contains an inner </script")
	}
}

func TestEscapeInlineScript(t *testing.T) {
	in := `var a = "</script><!-- x"; var b = "</SCRIPT>"; var c = a < b;`
	got := escapeInlineScript(in)
	want := `var a = "<\/script>\x3C!-- x"; var b = "<\/SCRIPT>"; var c = a < b;`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestSnippetBuilders(t *testing.T) {
	for _, tc := range []struct {
		c     Chart
		id    string
		names []string
	}{
		{exampleBar(t), "test_bar", []string{`"RelayOnly"`, `"DASH"`, `"Paper (published)"`, `"Batch size"`, `"Throughput (tokens/s)"`}},
		{exampleTimeline(t), "test_timeline", []string{`"expert weights"`, `"compute"`, `"GPU compute"`, `"Paper (published)"`, `"Time (µs)"`}},
		{exampleLines(t), "test_lines", []string{`"Qwen3"`, `"Qwen3 (paper)"`, `"log"`, `"diamond"`, `"min":3`, `"max":32`}},
		{exampleScatter(t), "test_scatter", []string{`"TPOT"`, `"y = x (matches paper)"`, `"±10%"`}},
	} {
		h, err := Snippet(tc.c)
		if err != nil {
			t.Fatalf("%s: %v", tc.id, err)
		}
		s := string(h)
		if !strings.HasPrefix(s, `<div class="dashlab-chart" id="`+tc.id+`" style="width:900px;height:480px;margin:8px 0 28px"><img class="dashlab-static" `) {
			t.Errorf("%s: element: %.150s", tc.id, s)
		}
		for _, n := range tc.names {
			if !strings.Contains(s, n) {
				t.Errorf("%s: %s missing", tc.id, n)
			}
		}
		if strings.Contains(s, "echarts.min.js") || strings.Contains(s, "http") {
			t.Errorf("%s: snippet refers to a remote library", tc.id)
		}
		if strings.Contains(s, "__f__") || strings.Contains(s, `\"`) {
			t.Errorf("%s: JavaScript function was not unquoted cleanly", tc.id)
		}
		if strings.Count(s, "<script") != 1 || !strings.Contains(s, `typeof echarts !== "undefined"`) || !strings.Contains(s, "window.dashlabEChartsQueue") {
			t.Errorf("%s: expected one guarded script", tc.id)
		}
	}
}

func TestBuilderErrors(t *testing.T) {
	_, err := GroupedBar(BarSpec{Categories: []string{"a"}, Series: []Series{{Name: "x", Values: []float64{1, 2}}}})
	if err == nil {
		t.Error("length mismatch accepted")
	}
	_, err = GroupedBar(BarSpec{Categories: []string{"a"}, Series: []Series{{Name: "x", Values: []float64{1}}},
		Paper: []Series{{Name: "y", Values: []float64{1}}}})
	if err == nil {
		t.Error("paper series without a bar series accepted")
	}
	_, err = Lines(LineSpec{LogY: true, Series: []XYSeries{{Name: "x", Points: []Point{{1, 0}}}}})
	if err == nil {
		t.Error("zero on a log axis accepted")
	}
	_, err = Timeline(TimelineSpec{Intervals: []Interval{{Lane: "a", Start: 2, End: 1}}})
	if err == nil {
		t.Error("interval ending before it starts accepted")
	}
	_, err = Timeline(TimelineSpec{Lanes: []string{"a"}, Intervals: []Interval{{Lane: "b", Start: 0, End: 1}}})
	if err == nil {
		t.Error("interval on an unknown lane accepted")
	}
}

// panicky mimics go-echarts' renderers, which panic when a template fails.
type panicky struct{}

func (panicky) RenderSnippet() render.ChartSnippet {
	tpl := template.Must(template.New("x").Parse(`{{.Missing.Field}}`))
	if err := tpl.Execute(os.Stdout, struct{ Missing *struct{ Field int } }{}); err != nil {
		panic(err)
	}
	return render.ChartSnippet{}
}

func TestSnippetErrorsInsteadOfPanics(t *testing.T) {
	if _, err := Snippet(panicky{}); err == nil || !strings.Contains(err.Error(), "rendering the chart failed") {
		t.Errorf("template panic: err = %v", err)
	}
	// A chart not made by its constructor: go-echarts dereferences a nil renderer.
	if _, err := Snippet(&ec.Bar{}); err == nil {
		t.Error("zero Bar rendered without error")
	}
	// NaN in the data: go-echarts silently emits an empty option.
	bar := ec.NewBar()
	bar.SetXAxis([]string{"a"}).AddSeries("s", []opts.BarData{{Value: math.NaN()}})
	if _, err := Snippet(bar); err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("NaN data: err = %v", err)
	}
	if _, err := Snippet(nil); err == nil {
		t.Error("nil chart rendered")
	}
	var p *ec.Bar
	if _, err := Snippet(p); err == nil {
		t.Error("nil *Bar rendered")
	}
	// The page keeps the first error.
	pg := NewPage("x").Chart(panicky{}).Chart(exampleBar(t))
	if _, err := pg.Bytes(); err == nil {
		t.Error("page with a failed chart rendered")
	}
}

func TestPageSelfContained(t *testing.T) {
	rows := []summary.Row{
		judged("r1", "×", 1.94, 1.90, 0.194, true),
		judged("r2", "", 10, 14, 1, false),
		judged("r3", "", 5, math.NaN(), 0.5, false),
	}
	rows[0].Metric = "speedup"
	p := NewPage("Example <report>", "An intro & more.").
		Section("Bars", "Made-up example data.").Chart(exampleBar(t)).
		Section("Timeline").Chart(exampleTimeline(t)).Table("checks", rows).
		Section("Lines").Chart(exampleLines(t)).Chart(exampleScatter(t))
	b, err := p.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if n := strings.Count(s, "data-dashlab-echarts="); n != 1 {
		t.Errorf("library inlined %d times", n)
	}
	if regexp.MustCompile(`(?i)<script[^>]+src=`).MatchString(s) || regexp.MustCompile(`(?i)<link[^>]+href=["']?https?:`).MatchString(s) {
		t.Error("page loads a script or stylesheet")
	}
	if strings.Contains(s, `src="http`) || strings.Contains(s, "assets.go-echarts") {
		t.Error("page refers to a remote host")
	}
	for _, want := range []string{"<title>Example &lt;report&gt;</title>", "An intro &amp; more.", `id="test_bar"`, `id="test_timeline"`,
		`id="test_lines"`, `id="test_scatter"`, `<a href="#timeline">Timeline</a>`, "not simulated yet", "FAIL"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if lib := strings.Index(s, "data-dashlab-echarts="); lib > strings.Index(s, `id="test_bar"`) {
		t.Error("library comes after the first chart")
	}
	if len(b) > 1200*1024 {
		t.Errorf("page is %d bytes", len(b))
	}
	path := filepath.Join(t.TempDir(), "sub", "page.html")
	if err := p.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if out := os.Getenv("DASHLAB_DEMO_PAGE"); out != "" { // for looking at it in a browser
		if err := p.WriteFile(out); err != nil {
			t.Fatal(err)
		}
	}
	// Without charts, no library.
	b, _ = NewPage("t").Section("s", "text").Bytes()
	if strings.Contains(string(b), "data-dashlab-echarts") {
		t.Error("library on a page without charts")
	}
}

func TestPageDuplicateID(t *testing.T) {
	_, err := NewPage("dup").Chart(exampleBar(t)).Chart(exampleBar(t)).Bytes()
	if err == nil || !strings.Contains(err.Error(), "test_bar") {
		t.Errorf("duplicate id: err = %v", err)
	}
}

func TestTable(t *testing.T) {
	rows := []summary.Row{
		judged("a<b", "µs", 100, 104, 5, true),
		judged("b", "", 100, 120, 5, false),
		judged("c", "", 1, math.NaN(), 0.05, false),
		judged("d", "GB", 0, 0.5, 1, true),
		judged("e", "", 1, 2, 0.05, false),
	}
	rows[0].Metric = "x & y"
	rows[4].Pass = nil // reported beside a checked value
	rows = append(rows, judged("f", "", 1, 2, 0.05, true))
	rows[5].WhatIf, rows[5].Pass = true, nil
	// the statuses are the harness's verdicts, drawn as given
	want := []summary.Status{summary.StatusPass, summary.StatusFail, summary.StatusNotSimulated, summary.StatusPass, summary.StatusReported, summary.StatusWhatIf}
	for i, r := range rows {
		if r.Status() != want[i] {
			t.Errorf("row %s: %s, want %s", r.ID, r.Status(), want[i])
		}
	}
	s := string(Table("Figure 9", rows))
	for _, w := range []string{"a&lt;b", "x &amp; y", "104 µs", "+4 µs (+4.0 %)", "+20 (+20.0 %)", "±5 µs", "not simulated yet", "FAIL", "+0.5 GB",
		"Figure 9 — 1 what-if (not the paper&#39;s experiment: not judged against its numbers), 2 pass, 1 fail, 1 not simulated yet, 1 reported (not checked)",
		`data-status="FAIL"`, "background:#fce8e6", `data-status="reported"`, `data-status="what-if"`} {
		if !strings.Contains(s, w) {
			t.Errorf("table lacks %q", w)
		}
	}
}

func TestJSFuncRejectsWhatGoEChartsBreaks(t *testing.T) {
	for _, bad := range []string{`function(){return "x";}`, "function(){ // c\n}", `function(){return '\n';}`} {
		if _, err := jsFunc(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
	if _, err := jsFunc(paperBarTickJS); err != nil {
		t.Error(err)
	}
}

func TestSanitizeID(t *testing.T) {
	if got := SanitizeID("fig9a/qwen3-B64"); got != "fig9a_qwen3_B64" {
		t.Error(got)
	}
}

func TestRenderPassesBuilderErrors(t *testing.T) {
	if _, err := Render(GroupedBar(BarSpec{})); err == nil || !strings.Contains(err.Error(), "needs categories") {
		t.Errorf("builder error lost: %v", err)
	}
	h, err := Render(Timeline(TimelineSpec{Intervals: []Interval{{Lane: "a", Start: 0, End: 1}}}))
	if err != nil || !strings.Contains(string(h), "dashlab-chart") {
		t.Errorf("Render = %.80q, %v", h, err)
	}
}
