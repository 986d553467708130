package reproduce

import (
	"fmt"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// Fig. 11: lookahead expert execution (§VI-D). DASH at B/L_in/L_out =
// 1/4K/128 with early expert selection against the conventional flow, at
// t_R = 3 us and 32 us; reductions of E2E latency and of TPOT.

// Fig11Models are the two models of the study.
var Fig11Models = []string{"qwen3-235b-a22b", "deepseek-v2"}

// Fig11TReads are the read latencies of the paper's reported points.
var Fig11TReads = []unit.Duration{3 * unit.Microsecond, 32 * unit.Microsecond}

func init() {
	register(group{name: "fig11", prefixes: []string{"fig11."}, run: runFig11})
}

func runFig11(opts Options, art *Artifacts) (Values, error) {
	var cases []Case
	for _, m := range Fig11Models {
		for _, tr := range Fig11TReads {
			for _, on := range []bool{false, true} {
				cases = append(cases, Case{Model: m, System: "dash", Batch: 1, Prompt: 4096, Output: 128,
					Modify: func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.TRead(tr).Lookahead(on) }})
			}
		}
	}
	points := runSweep(cases, opts.Workers)
	art.Fig11 = points
	var v Values
	if err := SweepErr(points); err != nil {
		return v, err
	}
	for i := 0; i < len(points); i += 2 {
		off, on := points[i].Result, points[i+1].Result
		tr := Fig11TReads[(i/2)%len(Fig11TReads)]
		id := fmt.Sprintf("fig11.%s.tr%dus.", points[i].Model, int(tr/unit.Microsecond))
		detail := fmt.Sprintf("B=1, 4K/128 on dash, t_R %v: TPOT %v -> %v, E2E %v -> %v", tr, off.TPOT, on.TPOT, off.E2E, on.E2E)
		v.Set(id+"e2e_reduction_pct", pct(on.E2E.Seconds(), off.E2E.Seconds()), detail)
		v.Set(id+"tpot_reduction_pct", pct(on.TPOT.Seconds(), off.TPOT.Seconds()), detail)
	}
	return v, nil
}
