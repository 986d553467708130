package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/gpu"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/reference/reproduce"
	"github.com/dashlab/dashlab/summary"
)

// The figures drawn from the harness's own summaries show its verdicts: every row a
// figure lists is the harness's row of that id.

func figureHTML(t *testing.T, f charts.Figure, err error) string {
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

// sameRows checks that a figure's rows agree with the reproduction's rows of the same
// ids (value and verdict), and returns how many it compared.
func sameRows(t *testing.T, fig []summary.Row, rep []summary.Row) int {
	t.Helper()
	n := 0
	for _, r := range fig {
		e, ok := summary.RowByID(rep, r.ID)
		if !ok {
			continue
		}
		n++
		if (e.Simulated == nil) != (r.Simulated == nil) || e.Simulated != nil && math.Abs(*e.Simulated-*r.Simulated) > 1e-9*math.Max(1, math.Abs(*e.Simulated)) {
			t.Errorf("%s: figure %v, engine %v", r.ID, r.Simulated, e.Simulated)
		}
		if r.Status() != e.Status() {
			t.Errorf("%s: figure says %s, engine %s", r.ID, r.Status(), e.Status())
		}
	}
	return n
}

func TestFig1AndTable2FromTheCatalogue(t *testing.T) {
	rep, err := reproduce.Run(reproduce.Options{Only: "fig1."})
	if err != nil {
		t.Fatal(err)
	}
	f, err := charts.Fig1(rep.Artifacts.Catalogue)
	s := figureHTML(t, f, err)
	mustContain(t, s, `id="fig1_weights"`, `id="fig1_share"`, "NVIDIA H100 HBM: 80 GB", "Paper's range", "Paper (published)", "Weights (GB)", "Expert share (%)")
	if len(f.Rows) != 4 || sameRows(t, f.Rows, rep.Rows) != 4 {
		t.Fatalf("Fig1 rows: %d", len(f.Rows))
	}
	t2, err := charts.Table2(rep.Artifacts.Catalogue)
	s = figureHTML(t, t2, err)
	mustContain(t, s, "Qwen3-235B-A22B", "470.19", "128+0 / 8", "FP8-mixed", "INT8-mixed", "MLA", "no (lookahead study)")
	if _, err := charts.Fig1(summary.Catalogue{}); err == nil {
		t.Error("Fig1 of no models")
	}
	if _, err := charts.Table2(summary.Catalogue{}); err == nil {
		t.Error("Table2 of no models")
	}
}

func TestFig9aMatchesTheEngine(t *testing.T) {
	rep, err := reproduce.Run(reproduce.Options{Only: "fig9a"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := charts.Fig9a(rep.Artifacts.Fig9[dash.ReadingPaper].A)
	s := figureHTML(t, f, err)
	if len(f.Charts) != 4 {
		t.Errorf("Fig9a charts: %d", len(f.Charts))
	}
	mustContain(t, s, `id="fig9a_throughput"`, `id="fig9a_e2e"`, `id="fig9a_speedup"`, `id="fig9a_reduction"`,
		"does not fit", "paper geomean vs RelayOnly: 1.90×", "Llama4\\nB=64", "Compact-DASH")
	if n := sameRows(t, f.Rows, rep.Rows); n != 4 || len(f.Rows) != 6 { // the intro.b4 rows are not in an "fig9a" run's rows
		t.Errorf("compared %d of %d rows with the engine's, want 4", n, len(f.Rows))
	}
	if _, err := charts.Fig9a(summary.Fig9{}); err == nil {
		t.Error("Fig9a of no points")
	}
}

func TestFig9bMatchesTheEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("the B = 1 sweep takes seconds")
	}
	rep, err := reproduce.Run(reproduce.Options{Groups: []string{"fig9b"}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := charts.Fig9b(rep.Artifacts.Fig9[dash.ReadingPaper].B)
	s := figureHTML(t, f, err)
	mustContain(t, s, "512/20K", "20K/20K", "Grok-1 is run only at 512/16 and 4K/16", "fig9b.llama4_4k_1m")
	if n := sameRows(t, f.Rows, rep.Rows); n != 4 {
		t.Errorf("compared %d rows with the engine's, want 4", n)
	}
}

// A Fig. 9 what-if's figure names the change and shows its rows as what-ifs.
func TestFig9WhatIfFigure(t *testing.T) {
	halfLinks := []dash.Setting{{Path: "link.usable", Value: "0.8 TB/s"}}
	cases := reproduce.Fig9Grid(dash.ReadingPaper, []string{"qwen3-235b-a22b"}, reproduce.Fig9Systems, []int{4}, []reproduce.Fig9bWorkload{{Prompt: 1024, Output: 17}}, halfLinks)
	fig, err := charts.Fig9a(reproduce.SummariseFig9(reproduce.Sweep(cases, 0)))
	h := figureHTML(t, fig, err)
	if len(fig.Rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range fig.Rows {
		if r.Status() != summary.StatusWhatIf {
			t.Errorf("%s: %s, want what-if", r.ID, r.Status())
		}
	}
	if !strings.Contains(h, "what-if: link 1.6 -\\u003e 0.8 TB/s") && !strings.Contains(h, "what-if: link 1.6 -&gt; 0.8 TB/s") {
		t.Errorf("the figure's HTML does not name the change")
	}
}

func TestRouteFigureAndWriteReport(t *testing.T) {
	// Fig. 9(a), the capacity figures and what only the figures need; the slower
	// groups have tests of their own.
	rep, err := reproduce.Run(reproduce.Options{Only: "fig9a", Figures: true})
	if err != nil {
		t.Fatal(err)
	}
	runs := make([]charts.NamedResult, len(rep.Artifacts.Traces))
	for i, r := range rep.Artifacts.Traces {
		runs[i] = charts.NamedResult{Name: charts.SystemName(r.System), Result: r}
	}
	f, err := charts.RouteFigure("route", runs)
	s := figureHTML(t, f, err)
	if len(f.Charts) != 3 {
		t.Fatalf("charts: %d", len(f.Charts))
	}
	mustContain(t, s, "pair 0 · GPU<-HBF", "pair 1 · HBF->HBM", charts.GPULane, `"direct"`, `"relay"`, `"hbm"`, "GPU: experts")
	relay, err := charts.Snippet(f.Charts[1])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(relay), "GPU<-HBF") {
		t.Error("RelayOnly's timeline has a Direct link")
	}

	capacity, err := reproduce.Run(reproduce.Options{Only: "table2"})
	if err != nil {
		t.Fatal(err)
	}
	rep.Artifacts.Catalogue = capacity.Artifacts.Catalogue
	rep.Rows = append(rep.Rows, capacity.Rows...)
	rep.Rows = append(rep.Rows, summary.Row{ID: "fig12.kv_hbm_gb", Unit: "GB", Paper: 24.46, Tolerance: 0.5})
	dir := filepath.Join(t.TempDir(), "report")
	path, err := Write(dir, rep, Options{Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s = string(b)
	if n := strings.Count(s, "data-dashlab-echarts="); n != 1 {
		t.Errorf("library inlined %d times", n)
	}
	mustContain(t, s, "Fig. 9(a): batch sweep", "Fig. 6 from the simulation", "Paper vs simulated: every published number", "Run timings",
		"reproduce group fig9a", "figures: traced runs", "array-bound", "Fig. 1(a)", "Table II", "not simulated yet", "Made by: test")
	if len(b) > 3_000_000 {
		t.Errorf("report is %d bytes", len(b))
	}
	if _, err := Write("", rep, Options{}); err == nil {
		t.Error("empty directory accepted")
	}
}

func TestFig11RowsMatchTheEngine(t *testing.T) {
	rep, err := reproduce.Run(reproduce.Options{Only: "fig11."})
	if err != nil {
		t.Fatal(err)
	}
	fig, err := charts.Fig11(rep.Artifacts.Fig11[dash.ReadingPaper])
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Rows) != len(rep.Rows)-rep.Reported() || len(fig.Charts) != 1 {
		t.Fatalf("%d rows for %d checked ids, %d charts", len(fig.Rows), len(rep.Rows)-rep.Reported(), len(fig.Charts))
	}
	if n := sameRows(t, fig.Rows, rep.Rows); n != len(fig.Rows) {
		t.Errorf("compared %d of %d rows", n, len(fig.Rows))
	}
	if _, err := fig.HTML(); err != nil {
		t.Fatal(err)
	}
	if _, err := charts.Fig11(nil); err == nil {
		t.Error("no error without results")
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
	h100, err := reference.Timing(reference.DefaultGPU)
	if err != nil {
		t.Fatal(err)
	}
	v, err := reproduce.GPUValidation(p, h100)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Checks) != len(p.Points) || len(v.Rows) != 2 {
		t.Errorf("%d checks for %d points, %d rows", len(v.Checks), len(p.Points), len(v.Rows))
	}
	f, err := charts.GPUTiming(v)
	s := figureHTML(t, f, err)
	mustContain(t, s, "DERIVED, NOT MEASURED", "derived, not measured (from h200-sxm)", "y = x (prediction = measurement)", "gpu.timing_model.median_err_pct",
		"repeated shapes, one measurement predicted by the other", "size jitter, the floor of held-out sizes", "held to at most 2 %", "0.51 % is its own model", "a median relative error of 0.51 %")
	if all := gpu.SummariseChecks("all", v.Checks); all.MedianPct <= 0 || all.MedianPct > 10 {
		t.Errorf("held-out median error %.2f%%", all.MedianPct)
	}
	if _, err := charts.GPUTiming(summary.GPUValidation{}); err == nil {
		t.Error("GPUTiming without data")
	}
}

func TestInventoryFigure(t *testing.T) {
	f, err := charts.Inventory(reference.MustModel("deepseek-v3"))
	s := figureHTML(t, f, err)
	mustContain(t, s, "routed_expert", "weight_scale_inv", "fp8_e4m3", "mtp (all MTP-layer tensors)", "Model-level tensors")
}

// The KV split and Fig. 12 of a what-if name it; the paper's runs name their model.
func TestKVAndFig12WhatIf(t *testing.T) {
	c := summary.Case{Model: reproduce.Fig12Model, System: "dash", Batch: 1, Prompt: 4096, Output: 262_144,
		Knobs: []dash.Setting{{Path: "link.usable", Value: "0.8 TB/s"}}}
	k, err := reproduce.KVStudy(c, 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(k.Rows) != 2 || k.Rows[0].ID != "fig12.kv_hbm_gb" || !k.Rows[0].WhatIf {
		t.Fatalf("rows %+v", k.Rows)
	}
	ch, err := charts.KVSplit("kv", k)
	if err != nil {
		t.Fatal(err)
	}
	h, err := charts.Render(ch, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"B/L_in/L_out = 1/4K/256K on DASH", "Llama", "what-if: link 1.6", "0.8 TB/s", "paper: HBM at 1M 24.46 GB"} {
		if !strings.Contains(string(h), want) {
			t.Errorf("KV chart does not say %q", want)
		}
	}
	res, err := reproduce.Fig12Study(reproduce.Fig12Setup{Readings: []dash.Reading{dash.ReadingPaper}, Output: 64, DecodeSample: 16}, 0)
	if err != nil {
		t.Fatal(err)
	}
	fig, err := charts.Fig12(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range fig.Rows {
		if r.Status() != summary.StatusWhatIf {
			t.Errorf("%s: %s, want what-if", r.ID, r.Status())
		}
	}
	if !strings.Contains(fig.Caption, "4K/64") || strings.Contains(fig.Caption, "1/4K/1M on") || !strings.Contains(fig.Caption, "Llama") {
		t.Errorf("caption %q", fig.Caption)
	}
}
