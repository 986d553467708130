package reproduce

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/summary"
)

// The figures drawn from the harness's own summaries agree with its rows.

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

func TestFig1AndTable2FromTheCatalogue(t *testing.T) {
	rep, err := Run(Options{Only: "fig1."})
	if err != nil {
		t.Fatal(err)
	}
	f, err := charts.Fig1(rep.Artifacts.Models)
	s := figureHTML(t, f, err)
	mustContain(t, s, `id="fig1_weights"`, `id="fig1_share"`, "NVIDIA H100 HBM: 80 GB", "Paper's range", "Paper (published)", "Weights (GB)", "Expert share (%)")
	if len(f.Rows) != 4 {
		t.Fatalf("Fig1 rows: %d", len(f.Rows))
	}
	// The figure's rows agree with the engine's.
	for _, r := range f.Rows {
		for _, e := range rep.Rows {
			if e.ID == r.ID && (e.Simulated == nil || math.Abs(*e.Simulated-r.Simulated) > 1e-9 || (r.Status() == charts.Pass) != *e.Pass) {
				t.Errorf("%s: figure %v (%s), engine %v", r.ID, r.Simulated, r.Status(), e.Simulated)
			}
		}
	}
	t2, err := charts.Table2(rep.Artifacts.Models)
	s = figureHTML(t, t2, err)
	mustContain(t, s, "Qwen3-235B-A22B", "470.19", "128+0 / 8", "FP8-mixed", "INT8-mixed", "MLA", "no (lookahead study)")
	if _, err := charts.Fig1(nil); err == nil {
		t.Error("Fig1 of no models")
	}
	if _, err := charts.Table2(nil); err == nil {
		t.Error("Table2 of no models")
	}
}

func TestFig9aMatchesTheEngine(t *testing.T) {
	rep, err := Run(Options{Only: "fig9a"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := charts.Fig9a(rep.Artifacts.Fig9.A)
	s := figureHTML(t, f, err)
	if len(f.Charts) != 4 {
		t.Errorf("Fig9a charts: %d", len(f.Charts))
	}
	mustContain(t, s, `id="fig9a_throughput"`, `id="fig9a_e2e"`, `id="fig9a_speedup"`, `id="fig9a_reduction"`,
		"does not fit", "paper geomean vs RelayOnly: 1.90×", "Llama4\\nB=64", "Compact-DASH")
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
			if (r.Status() == charts.Pass) != *e.Pass {
				t.Errorf("%s: figure says %s, engine pass=%v", r.ID, r.Status(), *e.Pass)
			}
		}
	}
	if checked != 4 { // the intro.b4 rows are not in an "fig9a" run's rows
		t.Errorf("compared %d rows with the engine's, want 4", checked)
	}
	if _, err := charts.Fig9a(summary.Fig9{}); err == nil {
		t.Error("Fig9a of no points")
	}
}

func TestFig9bMatchesTheEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("the B = 1 sweep takes seconds")
	}
	rep, err := Run(Options{Only: "fig9b"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := charts.Fig9b(rep.Artifacts.Fig9.B)
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
	f, err := charts.RouteFigure("route", runs)
	s := figureHTML(t, f, err)
	if len(f.Charts) != len(TraceSystems) {
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
	if _, err := charts.RouteTimeline(nil, charts.Common{}); err == nil {
		t.Error("nil timeline drawn")
	}
}

func TestWriteReport(t *testing.T) {
	// Fig. 9(a) and the capacity figures; the slower groups have tests of their own.
	rep, err := Run(Options{Only: "fig9a"})
	if err != nil {
		t.Fatal(err)
	}
	capacity, err := Run(Options{Only: "table2"})
	if err != nil {
		t.Fatal(err)
	}
	rep.Artifacts.Models = capacity.Artifacts.Models
	rep.Rows = append(rep.Rows, capacity.Rows...)
	rep.Rows = append(rep.Rows, Row{ID: "fig12.kv_hbm_gb", Unit: "GB", Paper: 24.46, Tolerance: 0.5})
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

func TestFig11RowsMatchTheEngine(t *testing.T) {
	rep, err := Run(Options{Only: "fig11."})
	if err != nil {
		t.Fatal(err)
	}
	fig, err := charts.Fig11(rep.Artifacts.Fig11)
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
	if _, err := charts.Fig11(nil); err == nil {
		t.Error("no error without results")
	}
}
