package serve

import (
	"context"
	"math"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
)

// The paper's serving setup (§VI-E) for the benchmarks: Qwen3-235B-A22B,
// paper reading of t_R, DASH with lookahead.
func paperServing(b *testing.B, system string) dash.Experiment {
	b.Helper()
	e, err := reference.Experiment("qwen3-235b-a22b", system).Batch(1).Prompt(8192).Output(1).
		Reading(dash.ReadingPaper).Lookahead(system == "dash").Build()
	if err != nil {
		b.Fatal(err)
	}
	return e
}

// benchTrace replays one Table III trace: 1,152 requests on DASH at 75% of
// relay-only's Mixed backlogged throughput (measured outside the timer).
func benchTrace(b *testing.B, approx Approx) {
	relay := Config{Experiment: paperServing(b, "relay-only"), Scheduler: PaperScheduler(), Warmup: 128, Measure: 1024, Approx: approx}
	sat, err := MeasureSaturation(context.Background(), relay, Fixed(4096), Fixed(128), 1)
	if err != nil {
		b.Fatal(err)
	}
	reqs, err := Poisson(0.75*sat.RPS, 1152, Fixed(4096), Fixed(128), 1)
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Experiment: paperServing(b, "dash"), Scheduler: PaperScheduler(), Warmup: 128, Measure: 1024, Approx: approx}
	for b.Loop() {
		run, err := Simulate(context.Background(), cfg, reqs, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(run.Passes), "passes")
		b.ReportMetric(float64(run.Passes-run.Replays), "simulated_passes")
		b.ReportMetric(run.Summarize().E2Es.P90, "e2e_p90_s")
	}
}

// BenchmarkTrace is one Table III trace with exact passes.
func BenchmarkTrace(b *testing.B) { benchTrace(b, Approx{}) }

// BenchmarkTraceApprox is the same trace with the approximate pass model.
func BenchmarkTraceApprox(b *testing.B) { benchTrace(b, Approx{KVQuantum: 128}) }

// benchTable3 replays Table III: saturation of the three systems under
// Mixed, then 5 seeds x 3 loads x 3 systems of 1,152 requests each.
func benchTable3(b *testing.B, approx Approx) {
	var exps []dash.Experiment
	for _, s := range []string{"dash", "relay-only", "direct-only"} {
		exps = append(exps, paperServing(b, s))
	}
	st, err := NewStudy().System(exps...).SaturationModes(Mixed).Approx(approx).Build()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := st.Run(context.Background(), nil)
		if err != nil {
			b.Fatal(err)
		}
		d, _ := res.AggregateOf("dash", 0.75)
		b.ReportMetric(d.E2Es.P90.Mean, "dash_e2e_p90_s@75")
	}
}

// BenchmarkTable3 is the whole Table III replay with exact passes.
func BenchmarkTable3(b *testing.B) { benchTable3(b, Approx{}) }

// BenchmarkTable3Approx is the same with the approximate pass model.
func BenchmarkTable3Approx(b *testing.B) { benchTable3(b, Approx{KVQuantum: 128}) }

// BenchmarkApproxError measures the approximate pass model's error on a
// reduced Table III (2 seeds x 3 loads x 3 systems, 128 + 1,024 requests,
// Mixed): the largest relative difference of any system's and load's mean
// P90 TTFT, TPOT or E2E from the exact passes', in percent.
func BenchmarkApproxError(b *testing.B) {
	var exps []dash.Experiment
	for _, s := range []string{"dash", "relay-only", "direct-only"} {
		exps = append(exps, paperServing(b, s))
	}
	run := func(a Approx) *StudyResult {
		st, err := NewStudy().System(exps...).SaturationModes(Mixed).Seeds(2).Approx(a).Build()
		if err != nil {
			b.Fatal(err)
		}
		res, err := st.Run(context.Background(), nil)
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	for b.Loop() {
		exact, approx := run(Approx{}), run(Approx{KVQuantum: 128})
		worst := 0.0
		for _, e := range exact.Aggregates {
			a, _ := approx.AggregateOf(e.System, e.Load)
			for _, pair := range [][2]float64{{e.TTFTs.P90.Mean, a.TTFTs.P90.Mean}, {e.TPOTms.P90.Mean, a.TPOTms.P90.Mean}, {e.E2Es.P90.Mean, a.E2Es.P90.Mean}} {
				worst = max(worst, 100*math.Abs(pair[1]/pair[0]-1))
			}
		}
		b.ReportMetric(worst, "max_p90_err_pct")
	}
}
