package reproduce

import (
	"fmt"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

// Fig. 11: lookahead expert execution (§VI-D). DASH at B/L_in/L_out =
// 1/4K/128 with early expert selection against the conventional flow, at
// t_R = 3 us and 32 us; reductions of E2E latency and of TPOT.

// Fig11Models are the two models of the study.
var Fig11Models = []string{"qwen3-235b-a22b", "deepseek-v2"}

// Fig11TReads are the read latencies of the paper's reported points.
var Fig11TReads = []unit.Duration{3 * unit.Microsecond, 32 * unit.Microsecond}

// LookaheadPair is one point of the lookahead study: the same experiment
// with conventional and with lookahead expert selection.
type LookaheadPair struct {
	// Model is the catalogue id; TRead the HBF read latency.
	Model string
	TRead unit.Duration
	// Setup is the reading of t_R and the early-delivery setting both runs
	// used.
	Setup LookaheadSetup
	// Conventional and Lookahead are the two runs.
	Conventional, Lookahead sim.Result
}

// E2EReductionPct is lookahead's E2E reduction in percent.
func (p LookaheadPair) E2EReductionPct() float64 {
	return pct(p.Lookahead.E2E.Seconds(), p.Conventional.E2E.Seconds())
}

// TPOTReductionPct is lookahead's TPOT reduction in percent.
func (p LookaheadPair) TPOTReductionPct() float64 {
	return pct(p.Lookahead.TPOT.Seconds(), p.Conventional.TPOT.Seconds())
}

// LookaheadSetup is what both arms of a lookahead study share besides the
// experiment: the reading of t_R and early expert delivery.
type LookaheadSetup struct {
	// Reading is the reading of t_R.
	Reading dash.Reading
	// EarlyDelivery lets selected experts enter a GPU staging buffer of
	// EarlyBuffer bytes (0: the GPU's L2) before their operator starts
	// (dash.ExecutionSpec.EarlyDelivery). The checked Fig. 11 values run
	// without it: the paper names no GPU-side buffer.
	EarlyDelivery bool
	// EarlyBuffer is the staging buffer's size (0: the GPU's L2).
	EarlyBuffer unit.Bytes
}

// String names the setup ("paper reading, early delivery into 50 MiB").
func (s LookaheadSetup) String() string {
	out := s.Reading.String() + " reading"
	if s.EarlyDelivery {
		out += ", early delivery"
		if s.EarlyBuffer > 0 {
			out += " into " + s.EarlyBuffer.String()
		} else {
			out += " into the GPU's L2"
		}
	}
	return out
}

// LookaheadStudy runs every model at every t_R on system with batch
// B and lengths prompt/output under a setup, with and without lookahead
// selection, in parallel (workers 0: one per CPU).
func LookaheadStudy(setup LookaheadSetup, models []string, tReads []unit.Duration, system string, batch, prompt, output, workers int) ([]LookaheadPair, error) {
	var cases []Case
	for _, m := range models {
		for _, tr := range tReads {
			for _, on := range []bool{false, true} {
				cases = append(cases, Case{Model: m, System: system, Batch: batch, Prompt: prompt, Output: output, Reading: setup.Reading,
					Modify: func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
						return b.TRead(tr).Lookahead(on).EarlyDelivery(setup.EarlyDelivery, setup.EarlyBuffer)
					}})
			}
		}
	}
	points := Sweep(cases, workers)
	if err := SweepErr(points); err != nil {
		return nil, err
	}
	var out []LookaheadPair
	for i := 0; i < len(points); i += 2 {
		if points[i].Err != "" {
			return nil, fmt.Errorf("%s on %s: %s", points[i].Model, system, points[i].Err)
		}
		out = append(out, LookaheadPair{Model: points[i].Model, TRead: tReads[(i/2)%len(tReads)], Setup: setup,
			Conventional: points[i].Result, Lookahead: points[i+1].Result})
	}
	return out, nil
}

func init() {
	register(group{name: "fig11", prefixes: []string{"fig11."}, run: runFig11})
}

func runFig11(opts Options, art *Artifacts) (Values, error) {
	var v Values
	for _, r := range dash.Readings() {
		pairs, err := LookaheadStudy(LookaheadSetup{Reading: r}, Fig11Models, Fig11TReads, "dash", 1, 4096, 128, opts.Workers)
		if err != nil {
			return v, fmt.Errorf("%v reading: %w", r, err)
		}
		if r == dash.ReadingPaper {
			art.Fig11 = pairs
		} else {
			art.Fig11Physical = pairs
		}
		for _, p := range pairs {
			id := fmt.Sprintf("fig11.%s.tr%dus.", p.Model, int(p.TRead/unit.Microsecond))
			detail := fmt.Sprintf("B=1, 4K/128 on dash, t_R %v, %v reading: TPOT %v -> %v, E2E %v -> %v",
				p.TRead, r, p.Conventional.TPOT, p.Lookahead.TPOT, p.Conventional.E2E, p.Lookahead.E2E)
			v.Set(id+"e2e_reduction_pct"+ReadingSuffix(r), p.E2EReductionPct(), detail)
			v.Set(id+"tpot_reduction_pct"+ReadingSuffix(r), p.TPOTReductionPct(), detail)
		}
	}
	// Early expert delivery (§VI-D), reported in the artifacts only.
	early, err := LookaheadStudy(LookaheadSetup{Reading: dash.ReadingPaper, EarlyDelivery: true}, Fig11Models, Fig11TReads, "dash", 1, 4096, 128, opts.Workers)
	if err != nil {
		return v, fmt.Errorf("early delivery: %w", err)
	}
	art.Fig11Early = early
	return v, nil
}
