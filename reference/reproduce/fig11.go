package reproduce

import (
	"errors"
	"fmt"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
)

// Fig. 11: lookahead expert execution (§VI-D). DASH at B/L_in/L_out =
// 1/4K/128 with early expert selection against the conventional flow, at
// t_R = 3 µs and 32 µs; reductions of E2E latency and of TPOT.

// Fig11Models are the two models of the study.
var Fig11Models = []string{"qwen3-235b-a22b", "deepseek-v2"}

// Fig11TReads are the read latencies of the paper's reported points.
var Fig11TReads = []unit.Duration{3 * unit.Microsecond, 32 * unit.Microsecond}

// LookaheadStudy runs every model at every t_R on system with batch
// B and lengths prompt/output under a setup, with and without lookahead
// selection, in parallel (workers 0: one per CPU).
func LookaheadStudy(setup summary.LookaheadSetup, models []string, tReads []unit.Duration, system string, batch, prompt, output, workers int) ([]summary.LookaheadPair, error) {
	// Each pair's two cases: the conventional flow, then lookahead.
	var pairs []summary.LookaheadPair
	var cases []summary.Case
	for _, m := range models {
		for _, tr := range tReads {
			pairs = append(pairs, summary.LookaheadPair{Model: m, TRead: tr, Setup: setup})
			for _, on := range []bool{false, true} {
				cases = append(cases, summary.Case{Model: m, System: system, Batch: batch, Prompt: prompt, Output: output, Reading: setup.Reading,
					Knobs: withKnobs(setup.Knobs, []dash.Setting{knob("hbf.t_read", tr), knob("execution.lookahead", on),
						knob("execution.early_delivery", setup.EarlyDelivery), knob("execution.early_delivery_buffer", setup.EarlyBuffer)})})
			}
		}
	}
	points := Sweep(cases, workers)
	var errs []error
	for _, p := range points {
		if p.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p.Case, p.Err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	design := fig11Design(setup, system, batch, prompt, output)
	for i := range pairs {
		pairs[i].Conventional, pairs[i].Lookahead = points[2*i].Result, points[2*i+1].Result
		for _, c := range append(points[2*i].WhatIf, points[2*i+1].WhatIf...) {
			if c.Field != "hbf.t_read" { // the study's own axis
				pairs[i].WhatIf = pairs[i].WhatIf.Add(c)
			}
		}
		pairs[i].WhatIf = pairs[i].WhatIf.Add(design...)
		for _, what := range []string{"e2e", "tpot"} {
			p := pairs[i]
			x := p.E2EReductionPct()
			if what == "tpot" {
				x = p.TPOTReductionPct()
			}
			if r, err := judge(fig11ID(p.Model, p.TRead, what), dash.ReadingPaper, x, p.WhatIf); err == nil {
				pairs[i].Rows = append(pairs[i].Rows, r)
			}
		}
	}
	return pairs, nil
}

// fig11ID is the paper id of a lookahead reduction ("e2e" or "tpot") of a model at t_R.
func fig11ID(model string, tr unit.Duration, what string) string {
	return fmt.Sprintf("fig11.%s.tr%dus.%s_reduction_pct", model, int(tr/unit.Microsecond), what)
}

func init() {
	register(group{name: "fig11", prefixes: []string{"fig11."}, run: runFig11})
}

func runFig11(opts Options, art *Artifacts) (values, error) {
	var v values
	for _, r := range opts.readings() {
		pairs, err := LookaheadStudy(summary.LookaheadSetup{Reading: r, Knobs: opts.Knobs}, Fig11Models, Fig11TReads, "dash", 1, 4096, 128, opts.Workers)
		if err != nil {
			return v, fmt.Errorf("%v reading: %w", r, err)
		}
		setReading(&art.Fig11, r, pairs)
		for _, p := range pairs {
			detail := fmt.Sprintf("B=1, 4K/128 on dash, t_R %v, %v reading: TPOT %v -> %v, E2E %v -> %v",
				p.TRead, r, p.Conventional.TPOT, p.Lookahead.TPOT, p.Conventional.E2E, p.Lookahead.E2E)
			v.Set(fig11ID(p.Model, p.TRead, "e2e")+ReadingSuffix(r), p.E2EReductionPct(), detail)
			v.Set(fig11ID(p.Model, p.TRead, "tpot")+ReadingSuffix(r), p.TPOTReductionPct(), detail)
		}
	}
	if len(opts.Knobs) > 0 {
		return v, nil
	}
	// Early expert delivery (§VI-D), reported in the artifacts only.
	early, err := LookaheadStudy(summary.LookaheadSetup{Reading: dash.ReadingPaper, EarlyDelivery: true}, Fig11Models, Fig11TReads, "dash", 1, 4096, 128, opts.Workers)
	if err != nil {
		return v, fmt.Errorf("early delivery: %w", err)
	}
	art.Fig11Early = early
	return v, nil
}
