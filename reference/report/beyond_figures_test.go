package report

import (
	"math"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/reference/reproduce"
	"github.com/dashlab/dashlab/summary"
)

func TestFig10Figure(t *testing.T) {
	host, err := reference.HostOffload()
	if err != nil {
		t.Fatal(err)
	}
	f, err := reproduce.Fig10Study(host, reproduce.OffloadOptions{Model: reproduce.Fig10Model, Batches: []int{1, 64},
		Prompt: 1024, Output: 16, Cores: []int{32}, Reading: dash.ReadingPaper})
	if err != nil {
		t.Fatal(err)
	}
	fig, err := charts.Fig10(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Charts) != 3 || len(fig.Rows) != 4 {
		t.Fatalf("%d charts, %d rows", len(fig.Charts), len(fig.Rows))
	}
	want := math.Min(f.Evaluations[0].Slowdown(f.Evaluations[0].Hybrid), f.Evaluations[1].Slowdown(f.Evaluations[1].Hybrid))
	if r := fig.Rows[0]; r.ID != "fig10.hybrid_slowdown_vs_dash.min" || r.Simulated == nil || *r.Simulated != want || r.Status() != summary.StatusWhatIf {
		t.Errorf("row %+v, want simulated %g, a what-if (two batch sizes, 16 output tokens)", r, want)
	}
	html, err := fig.HTML()
	if err != nil || !strings.Contains(string(html), "modelled") || !strings.Contains(string(html), "Paper: Hybrid 8.22-12.32x") {
		t.Errorf("html: %v", err)
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
