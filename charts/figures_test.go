package charts

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/reference/reproduce"
)

func figureHTML(t *testing.T, f Figure, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	h, err := f.HTML()
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

func mustContain(t *testing.T, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("missing %q", w)
		}
	}
}

func TestFig1AndTable2FromTheCatalogue(t *testing.T) {
	rep, err := reproduce.Run(reproduce.Options{Only: "fig1."})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Fig1(rep.Artifacts.Models)
	s := figureHTML(t, f, err)
	mustContain(t, s, `id="fig1_weights"`, `id="fig1_share"`, "NVIDIA H100 HBM: 80 GB", "Paper's range", "Paper (published)", "Weights (GB)", "Expert share (%)")
	if len(f.Rows) != 4 {
		t.Fatalf("Fig1 rows: %d", len(f.Rows))
	}
	// The figure's rows agree with the engine's.
	for _, r := range f.Rows {
		for _, e := range rep.Rows {
			if e.ID == r.ID && (e.Simulated == nil || math.Abs(*e.Simulated-r.Simulated) > 1e-9 || (r.Status() == Pass) != *e.Pass) {
				t.Errorf("%s: figure %v (%s), engine %v", r.ID, r.Simulated, r.Status(), e.Simulated)
			}
		}
	}
	t2, err := Table2(rep.Artifacts.Models)
	s = figureHTML(t, t2, err)
	mustContain(t, s, "Qwen3-235B-A22B", "470.19", "128+0 / 8", "FP8-mixed", "INT8-mixed", "MLA", "no (lookahead study)")
	if _, err := Fig1(nil); err == nil {
		t.Error("Fig1 of no models")
	}
	if _, err := Table2(nil); err == nil {
		t.Error("Table2 of no models")
	}
}

func TestInventoryFigure(t *testing.T) {
	f, err := Inventory(reference.MustModel("deepseek-v3"))
	s := figureHTML(t, f, err)
	mustContain(t, s, "routed_expert", "weight_scale_inv", "fp8_e4m3", "mtp (all MTP-layer tensors)", "Model-level tensors")
}

func TestFig9aMatchesTheEngine(t *testing.T) {
	rep, err := reproduce.Run(reproduce.Options{Only: "fig9a"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Fig9a(rep.Artifacts.Fig9.A)
	s := figureHTML(t, f, err)
	if len(f.Charts) != 4 {
		t.Errorf("Fig9a charts: %d", len(f.Charts))
	}
	mustContain(t, s, `id="fig9a_throughput"`, `id="fig9a_e2e"`, `id="fig9a_speedup"`, `id="fig9a_reduction"`,
		"does not fit", "paper geomean vs RelayOnly: 1.90×", "Llama 4\\nB=64", "Compact-DASH")
	checked := 0
	for _, r := range f.Rows {
		for _, e := range rep.Rows {
			if e.ID != r.ID || e.Simulated == nil {
				continue
			}
			checked++
			if math.Abs(*e.Simulated-r.Simulated) > 1e-9*math.Abs(r.Simulated) {
				t.Errorf("%s: figure %v, engine %v", r.ID, r.Simulated, *e.Simulated)
			}
			if (r.Status() == Pass) != *e.Pass {
				t.Errorf("%s: figure says %s, engine pass=%v", r.ID, r.Status(), *e.Pass)
			}
		}
	}
	if checked != 4 { // the intro.b4 rows are not in an "fig9a" run's rows
		t.Errorf("compared %d rows with the engine's, want 4", checked)
	}
	if _, err := Fig9a(nil); err == nil {
		t.Error("Fig9a of no points")
	}
}

func TestFig9bMatchesTheEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("the B = 1 sweep takes seconds")
	}
	rep, err := reproduce.Run(reproduce.Options{Only: "fig9b"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := Fig9b(rep.Artifacts.Fig9.B)
	s := figureHTML(t, f, err)
	mustContain(t, s, "512/20K", "20K/20K", "not simulated yet", "Grok-1 is run only at 512/16 and 4K/16")
	for _, r := range f.Rows {
		for _, e := range rep.Rows {
			if e.ID == r.ID && e.Simulated != nil && math.Abs(*e.Simulated-r.Simulated) > 1e-9*math.Abs(r.Simulated) {
				t.Errorf("%s: figure %v, engine %v", r.ID, r.Simulated, *e.Simulated)
			}
		}
	}
}

func TestRouteFigure(t *testing.T) {
	runs, err := DefaultTraces()
	if err != nil {
		t.Fatal(err)
	}
	f, err := RouteFigure("route", runs)
	s := figureHTML(t, f, err)
	if len(f.Charts) != len(TraceSystems) {
		t.Fatalf("charts: %d", len(f.Charts))
	}
	mustContain(t, s, "pair 0 · GPU<-HBF", "pair 1 · HBF->HBM", GPULane, `"direct"`, `"relay"`, `"hbm"`, "GPU: experts")
	relay, err := Snippet(f.Charts[1])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(relay), "GPU<-HBF") {
		t.Error("RelayOnly's timeline has a Direct link")
	}
	if _, err := RouteTimeline(nil, Common{}); err == nil {
		t.Error("nil timeline drawn")
	}
}

func TestGPUTimingFigure(t *testing.T) {
	if testing.Short() {
		t.Skip("refits the timing model once per shape family")
	}
	p, err := reference.LoadProfile(reference.DefaultProfile)
	if err != nil {
		t.Fatal(err)
	}
	checks, err := GPUHeldOutChecks(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(checks) != len(p.Points) {
		t.Errorf("%d checks for %d points", len(checks), len(p.Points))
	}
	loo, err := p.LeaveOneOut()
	if err != nil {
		t.Fatal(err)
	}
	h100, err := reference.Timing(reference.DefaultGPU)
	if err != nil {
		t.Fatal(err)
	}
	f, err := GPUTiming(p, checks, GPUStats{LeaveOneOut: loo}, h100)
	s := figureHTML(t, f, err)
	mustContain(t, s, "DERIVED, NOT MEASURED", "derived, not measured (from h200-sxm)", "y = x (prediction = measurement)", "gpu.timing_model.median_err_pct")
	if all := errorStats("all", checks); all.MedianPct <= 0 || all.MedianPct > 10 {
		t.Errorf("held-out median error %.2f%%", all.MedianPct)
	}
	if _, err := GPUTiming(nil, nil, GPUStats{}, nil); err == nil {
		t.Error("GPUTiming without data")
	}
}

func TestPaperTable(t *testing.T) {
	yes, no := true, false
	one, two := 1.0, 2.0
	rows := []reproduce.Row{
		{ID: "a.b", Unit: "GB", Section: "§I", Paper: 1, Simulated: &one, Deviation: new(float64), Tolerance: 0.1, Pass: &yes},
		{ID: "c.d", Unit: "x", Paper: 1, Simulated: &two, Deviation: &one, Tolerance: 0.1, Pass: &no, Detail: "how <it> was got"},
		{ID: "e.f", Unit: "%", Paper: 3, Tolerance: 1, Note: "not yet"},
	}
	s := string(PaperTable("Table", rows))
	mustContain(t, s, "3 ids: 1 pass, 1 fail, 1 not simulated yet", `data-status="pass"`, `data-status="FAIL"`,
		`data-status="not simulated yet"`, "a.<wbr>b", "how &lt;it&gt; was got", "Paper: not yet", "+1 x (+100.0%)")
}

func TestWriteReport(t *testing.T) {
	// Fig. 9(a) and the capacity figures; the slower groups have tests of their own.
	rep, err := reproduce.Run(reproduce.Options{Only: "fig9a"})
	if err != nil {
		t.Fatal(err)
	}
	capacity, err := reproduce.Run(reproduce.Options{Only: "table2"})
	if err != nil {
		t.Fatal(err)
	}
	rep.Artifacts.Models = capacity.Artifacts.Models
	rep.Rows = append(rep.Rows, capacity.Rows...)
	rep.Rows = append(rep.Rows, reproduce.Row{ID: "fig12.kv_hbm_gb", Unit: "GB", Paper: 24.46, Tolerance: 0.5})
	dir := filepath.Join(t.TempDir(), "report")
	path, err := WriteReport(dir, rep, ReportOptions{Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if n := strings.Count(s, "data-dashlab-echarts="); n != 1 {
		t.Errorf("library inlined %d times", n)
	}
	mustContain(t, s, "Fig. 9(a): batch sweep", "Fig. 6 from the simulation", "Paper vs simulated: every published number", "Run timings",
		"reproduce group fig9a", "report: traced runs", "array-bound", "Fig. 1(a)", "Table II", "not simulated yet", "Made by: test")
	if len(b) > 3_000_000 {
		t.Errorf("report is %d bytes", len(b))
	}
	if _, err := WriteReport("", rep, ReportOptions{}); err == nil {
		t.Error("empty directory accepted")
	}
}

func TestBarNotesAndReferenceLines(t *testing.T) {
	spec := BarSpec{
		Common:     Common{ID: "notes"},
		Categories: []string{"a", "b"},
		Series:     []Series{{Name: "x", Values: []float64{1, math.NaN()}}, {Name: "y", Values: []float64{2, 3}}},
		Absent:     []BarNote{{Series: "x", Category: "b", Text: "does not fit"}},
		RefLines:   []RefLine{{Name: "paper: 5", Y: 5, Label: "5"}},
		Bands:      []Band{{Name: "range", Lo: 1, Hi: 2}},
	}
	h, err := Render(GroupedBar(spec))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, string(h), "no bar: does not fit", `"paper: 5"`, `"markArea"`, `"max":5.5`)
	bad := spec
	bad.Absent = []BarNote{{Series: "y", Category: "b", Text: "does not fit"}}
	if _, err := GroupedBar(bad); err == nil {
		t.Error("a note over a bar that has a value was accepted")
	}
	bad.Absent = []BarNote{{Series: "z", Category: "b", Text: "x"}}
	if _, err := GroupedBar(bad); err == nil {
		t.Error("a note for an unknown series was accepted")
	}
}

func TestLegendWraps(t *testing.T) {
	var series []Series
	for _, n := range []string{"a fairly long series name one", "a fairly long series name two", "a fairly long series name three",
		"a fairly long series name four", "a fairly long series name five"} {
		series = append(series, Series{Name: n, Values: []float64{1}})
	}
	h, err := Render(GroupedBar(BarSpec{Common: Common{ID: "legend", Height: "400px"}, Categories: []string{"c"}, Series: series}))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, string(h), `"type":"plain"`)
	if strings.Contains(string(h), "height:400px") {
		t.Error("the chart did not grow for its wrapped legend")
	}
}

func TestFig11RowsMatchTheEngine(t *testing.T) {
	rep, err := reproduce.Run(reproduce.Options{Only: "fig11."})
	if err != nil {
		t.Fatal(err)
	}
	fig, err := Fig11(rep.Artifacts.Fig11)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Rows) != len(rep.Rows)-rep.Reported() || len(fig.Charts) != 1 {
		t.Fatalf("%d rows for %d checked ids, %d charts", len(fig.Rows), len(rep.Rows)-rep.Reported(), len(fig.Charts))
	}
	for _, r := range fig.Rows {
		for _, want := range rep.Rows {
			if want.ID == r.ID && math.Abs(*want.Simulated-r.Simulated) > 1e-9 {
				t.Errorf("%s: figure %v, engine %v", r.ID, r.Simulated, *want.Simulated)
			}
		}
	}
	if _, err := fig.HTML(); err != nil {
		t.Fatal(err)
	}
	if _, err := Fig11(nil); err == nil {
		t.Error("no error without results")
	}
}
