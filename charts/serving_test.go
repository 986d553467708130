package charts

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
)

// studyResult is a hand-made serving study (charts never simulate).
func studyResult() *serve.StudyResult {
	res := &serve.StudyResult{Model: "qwen3-235b-a22b", Mode: serve.Mixed, Scheduler: serve.PaperScheduler(), Warmup: 128, Measure: 1024, BaselineRPS: 1}
	for i, sys := range []string{"relay-only", "dash", "direct-only"} {
		for _, l := range []float64{0.5, 0.75, 0.9} {
			v := float64(i+1) * l
			res.Aggregates = append(res.Aggregates, serve.Aggregate{System: sys, Load: l, RateRPS: l, Seeds: 5,
				TPOTms: serve.MetricAcross{P90: serve.Across{Mean: 100 * v, Min: 90 * v, Max: 110 * v}},
				E2Es:   serve.MetricAcross{P90: serve.Across{Mean: 10 * v, Min: 9 * v, Max: 11 * v}}})
		}
		for _, m := range []serve.Mode{serve.Mixed, serve.Serial} {
			res.Saturation = append(res.Saturation, serve.Saturation{System: sys, Mode: m, RPS: float64(i+1) - float64(m)*0.1})
		}
	}
	return res
}

func TestTable3Figure(t *testing.T) {
	rows := []summary.Row{judged("table3.load50.e2e_p90_s", "s", 20.982, 10, 3, false), judged("serving.dash_peak_gain_pct.min", "%", 34.1, 30, 5, true)}
	f, err := Table3(studyResult(), rows, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Charts) != 3 || len(f.Rows) != 2 || len(f.Tables) != 1 {
		t.Fatalf("%d charts, %d rows, %d tables", len(f.Charts), len(f.Rows), len(f.Tables))
	}
	h, err := f.HTML()
	if err != nil || !strings.Contains(string(h), "P90 TPOT against offered load") {
		t.Fatalf("%v", err)
	}
	phys := judged("table3.load50.e2e_p90_s.physical", "s", 20.982, 12, 3, false)
	phys.Pass = nil // reported under the physical reading
	p, err := Table3(studyResult(), []summary.Row{phys}, ".physical")
	if err != nil || len(p.Rows) != 1 || p.Rows[0].ID != "table3.load50.e2e_p90_s.physical" || p.Rows[0].Paper != 20.982 || p.Rows[0].Status() != summary.StatusReported {
		t.Fatalf("physical: %+v %v", p.Rows, err)
	}
	if _, err := Table3(nil, nil, ""); err == nil {
		t.Error("nil study accepted")
	}
}

func TestServingRunCharts(t *testing.T) {
	run := &serve.Run{System: "dash"}
	for i := range 50 {
		run.Measured = append(run.Measured, serve.RequestMetrics{ID: i, Output: 8, E2E: unit.Duration(i+1) * unit.Second, TPOT: unit.Duration(i+1) * unit.Millisecond})
		run.Iterations = append(run.Iterations, serve.Iteration{Start: unit.Duration(i) * unit.Second, Active: i % 7, Waiting: i % 3, LinkUtilization: 0.5})
	}
	cs, err := ServingCDFs([]*serve.Run{run}, "load 75%")
	if err != nil || len(cs) != 2 {
		t.Fatal(err)
	}
	ts, err := ServingTimeSeries(run, "seed 1")
	if err != nil || len(ts) != 2 {
		t.Fatal(err)
	}
	if _, err := ServingTimeSeries(&serve.Run{}, "x"); err == nil {
		t.Error("a run without series accepted")
	}
}
