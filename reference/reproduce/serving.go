package reproduce

import (
	"context"
	"fmt"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// Table III and the serving gains (§VI-E): Qwen3-235B-A22B under
// continuous batching, 4,096-token prompts and 128 output tokens, the
// paper's scheduler; loads of 50/75/90% of relay-only's Mixed backlogged
// throughput, 5 Poisson traces each, 128 warm-up and 1,024 measured
// requests; saturation in Mixed and Serial.

// servingModel and ServingSystems are the study's model and systems.
const servingModel = "qwen3-235b-a22b"

// servingSystems are DASH and the two single-route baselines.
var servingSystems = []string{"dash", "relay-only", "direct-only"}

// ServingExperiments builds the study's systems under a reading of t_R:
// the catalogue model on each system with the paper's GPU, DASH with
// lookahead expert selection (as in Fig. 9); the workload (1 x budget-token
// prompt) sizes the HBM activation workspace for the largest pass the
// scheduler builds. knobs are set on every experiment (a notebook's what-if).
func ServingExperiments(sched serve.Scheduler, r dash.Reading, knobs ...dash.Setting) ([]dash.Experiment, error) {
	var out []dash.Experiment
	for _, sys := range servingSystems {
		b := reference.Experiment(servingModel, sys).Batch(1).Prompt(sched.TokenBudget).Output(1).Reading(r).Lookahead(isDASH(sys))
		e, err := b.With(knobs...).Build()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// servingStudy is the paper's Table III study under a reading (exact
// passes unless approx is set).
func servingStudy(r dash.Reading, approx serve.Approx, workers int, knobs ...dash.Setting) (serve.Study, error) {
	exps, err := ServingExperiments(serve.PaperScheduler(), r, knobs...)
	if err != nil {
		return serve.Study{}, err
	}
	return serve.NewStudy().System(exps...).Approx(approx).Workers(workers).Build()
}

// servingApprox is the pass model of the reproduction under a reading: the
// checked values (paper reading) come from exact passes; the physical
// reading, reported beside them, uses the approximate pass model (decode
// contexts averaged and rounded to 128 tokens; its P90 error on a reduced
// Table III is measured by serve's BenchmarkApproxError), which halves the
// group's time.
func servingApprox(r dash.Reading) serve.Approx {
	if r == dash.ReadingPaper {
		return serve.Approx{}
	}
	return serve.Approx{KVQuantum: 128}
}

func init() {
	register(group{name: "serving", prefixes: []string{"table3.", "serving."}, run: runServing})
}

func runServing(opts Options, art *Artifacts) (values, error) {
	var v values
	for _, r := range opts.readings() {
		st, err := servingStudy(r, servingApprox(r), opts.Workers, opts.Knobs...)
		if err != nil {
			return v, err
		}
		var progress func(serve.StudyProgress)
		if sims := opts.simProgress("serving"); sims != nil {
			progress = func(p serve.StudyProgress) { sims(p.Done, p.Total) }
		}
		res, err := st.Run(context.Background(), progress)
		if err != nil {
			return v, fmt.Errorf("%v reading: %w", r, err)
		}
		setReading(&art.Serving, r, res)
		sfx := ReadingSuffix(r)
		how := fmt.Sprintf(" (%v reading, exact passes)", r)
		if q := servingApprox(r).KVQuantum; q > 0 {
			how = fmt.Sprintf(" (%v reading, approximate passes: decode contexts averaged and rounded to %d tokens)", r, q)
		}
		for id, x := range servingValues(res) {
			v.Set(id+sfx, x.Value, x.Detail+how)
		}
	}
	return v, nil
}

// servingValue is one simulated serving id with how it was obtained.
type servingValue struct {
	// Value is the simulated number; Detail explains it.
	Value  float64
	Detail string
}

// servingValues derives the table3.* and serving.* ids from a study.
// P90s are the mean over seeds of each trace's P90 (the spread is in the
// detail); reductions compare those means.
func servingValues(res *serve.StudyResult) map[string]servingValue {
	out := map[string]servingValue{}
	for _, a := range res.Aggregates {
		if a.System != "dash" {
			continue
		}
		load := fmt.Sprintf("table3.load%d.", int(a.Load*100+0.5))
		out[load+"e2e_p90_s"] = servingValue{a.E2Es.P90.Mean, spread("E2E P90", a.E2Es.P90, "s", a)}
		out[load+"tpot_p90_ms"] = servingValue{a.TPOTms.P90.Mean, spread("TPOT P90", a.TPOTms.P90, "ms", a)}
		for _, base := range []string{"relay-only", "direct-only"} {
			b, ok := res.AggregateOf(base, a.Load)
			if !ok {
				continue
			}
			key := strings.ReplaceAll(base, "-", "_")
			out[load+"e2e_reduction_pct.vs_"+key] = servingValue{summary.ReductionPct(a.E2Es.P90.Mean, b.E2Es.P90.Mean),
				fmt.Sprintf("E2E P90 %.3f s vs %s %.3f s (mean over %d seeds)", a.E2Es.P90.Mean, base, b.E2Es.P90.Mean, a.Seeds)}
			out[load+"tpot_reduction_pct.vs_"+key] = servingValue{summary.ReductionPct(a.TPOTms.P90.Mean, b.TPOTms.P90.Mean),
				fmt.Sprintf("TPOT P90 %.1f ms vs %s %.1f ms (mean over %d seeds)", a.TPOTms.P90.Mean, base, b.TPOTms.P90.Mean, a.Seeds)}
		}
	}
	gain := func(sys string) (float64, string, bool) {
		m, ok1 := res.SaturationOf(sys, serve.Mixed)
		s, ok2 := res.SaturationOf(sys, serve.Serial)
		if !ok1 || !ok2 {
			return 0, "", false
		}
		return 100 * (m.RPS/s.RPS - 1), fmt.Sprintf("%s backlogged: Mixed %.4f req/s, Serial %.4f req/s", sys, m.RPS, s.RPS), true
	}
	if g, d, ok := gain("dash"); ok {
		out["serving.mixed_over_serial_peak_gain_pct.dash"] = servingValue{g, d}
	}
	gr, dr, ok1 := gain("relay-only")
	gd, dd, ok2 := gain("direct-only")
	if ok1 && ok2 {
		out["serving.mixed_over_serial_peak_gain_pct.baselines"] = servingValue{(gr + gd) / 2,
			fmt.Sprintf("mean of relay-only %.1f%% and direct-only %.1f%%; %s; %s", gr, gd, dr, dd)}
	}
	var gains []float64
	var parts []string
	for _, m := range []serve.Mode{serve.Mixed, serve.Serial} {
		d, ok := res.SaturationOf("dash", m)
		for _, base := range []string{"relay-only", "direct-only"} {
			b, ok2 := res.SaturationOf(base, m)
			if ok && ok2 {
				g := 100 * (d.RPS/b.RPS - 1)
				gains = append(gains, g)
				parts = append(parts, fmt.Sprintf("%v vs %s %.1f%%", m, base, g))
			}
		}
	}
	if len(gains) > 0 {
		lo, hi := gains[0], gains[0]
		for _, g := range gains {
			lo, hi = min(lo, g), max(hi, g)
		}
		detail := "DASH backlogged throughput over the baselines: " + strings.Join(parts, ", ")
		out["serving.dash_peak_gain_pct.min"] = servingValue{lo, detail}
		out["serving.dash_peak_gain_pct.max"] = servingValue{hi, detail}
	}
	return out
}

// ServingRows judges a study's table3.* and serving.* ids (ServingValues) under a
// reading of t_R, in id order: checked under the paper reading, reported (id suffix
// ReadingSuffix) under another.
func ServingRows(res *serve.StudyResult, r dash.Reading) []summary.Row {
	v := values{}
	for id, x := range servingValues(res) {
		v.Set(id+ReadingSuffix(r), x.Value, x.Detail)
	}
	return judgeAll(v, nil)
}

func spread(what string, a serve.Across, unit string, ag serve.Aggregate) string {
	return fmt.Sprintf("%s mean over %d seeds at %.4f req/s (seeds %.3f-%.3f %s)", what, ag.Seeds, ag.RateRPS, a.Min, a.Max, unit)
}
