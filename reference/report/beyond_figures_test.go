package report

import (
	"math"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/offload"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/reference/reproduce"
	"github.com/dashlab/dashlab/summary"
)

func TestFig10Figure(t *testing.T) {
	paper, err := reference.Host(reference.PaperHost)
	if err != nil {
		t.Fatal(err)
	}
	measured, err := reference.Host(reference.MeasuredHost)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := reproduce.Fig10Studies([]*offload.HostProfile{paper, measured}, reproduce.OffloadOptions{Model: reproduce.Fig10Model, Batches: []int{1, 64},
		Prompt: 1024, Output: 16, Cores: []int{32}, Reading: dash.ReadingPaper})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fs {
		fig, err := charts.Fig10(f)
		if err != nil {
			t.Fatal(err)
		}
		charts, id := 3, "fig10.hybrid_slowdown_vs_dash.min.vm_host" // the measured host: a variant, its 16 measured cores drawn too
		if i == 0 {
			charts, id = 2, "fig10.hybrid_slowdown_vs_dash.min"
		}
		if len(fig.Charts) != charts || len(fig.Rows) != 4 {
			t.Fatalf("%s: %d charts, %d rows", f.Host, len(fig.Charts), len(fig.Rows))
		}
		want := math.Min(f.Evaluations[0].Slowdown(f.Evaluations[0].Hybrid), f.Evaluations[1].Slowdown(f.Evaluations[1].Hybrid))
		if r := fig.Rows[0]; r.ID != id || r.Simulated == nil || *r.Simulated != want || r.Status() != summary.StatusWhatIf {
			t.Errorf("%s: row %+v, want %s simulated %g, a what-if (two batch sizes, 16 output tokens)", f.Host, r, id, want)
		}
		html, err := fig.HTML()
		if err != nil || !strings.Contains(string(html), "modelled") || !strings.Contains(string(html), "Paper: Hybrid 8.22-12.32x") {
			t.Errorf("%s html: %v", f.Host, err)
		}
		if derived := strings.Contains(string(html), "derived, not measured"); derived != (i == 0) {
			t.Errorf("%s: marked derived %v", f.Host, derived)
		}
	}
	if _, err := charts.Fig10(nil); err == nil {
		t.Error("nil results drew a figure")
	}
}

func TestCostEnergyEnduranceFigures(t *testing.T) {
	s, _ := reference.System("dash")
	cost, err := reproduce.CostStudy(s, []float64{0.5, 1, 21.33, 32}, []float64{0, 4}, 3)
	if err != nil {
		t.Fatal(err)
	}
	fig, err := charts.CostFigure(cost)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Rows) != 2 || fig.Rows[0].Status() != summary.StatusPass || fig.Rows[1].Status() != summary.StatusPass {
		t.Errorf("cost rows %+v", fig.Rows)
	}
	if _, err := fig.HTML(); err != nil {
		t.Error(err)
	}

	var cases []summary.Case
	for _, sys := range reproduce.Fig9Systems {
		cases = append(cases, summary.Case{Model: "mixtral-8x22b", System: sys, Batch: 1, Prompt: 1024, Output: 8})
	}
	priced, err := reproduce.EnergyStudy(reproduce.Sweep(cases, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	if fig, err := charts.EnergyFigure(priced); err != nil || len(fig.Charts) != 2 {
		t.Errorf("energy figure: %v", err)
	}

	res, err := reproduce.EnduranceStudy(reproduce.EnduranceCase, 1.5, "test", []float64{0.5}, []float64{3000, 100000})
	if err != nil {
		t.Fatal(err)
	}
	if fig, err := charts.EnduranceFigure(&res); err != nil || len(fig.Tables) != 1 {
		t.Errorf("endurance figure: %v", err)
	}
}
