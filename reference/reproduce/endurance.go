package reproduce

import (
	"fmt"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/endurance"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/summary"
)

// HBF endurance (§VI-H) at the Table III workload: Qwen3-235B-A22B with
// 4,096-token prompts and 128 output tokens, B_max = 32.

// EnduranceLoads are Table III's loads (fractions of full-load throughput).
var EnduranceLoads = []float64{0.5, 0.75, 0.9}

// EnduranceCase is the full-load run R_HBF is measured from: the Table III
// workload as a backlogged fixed batch of B_max requests.
// (DASH as in Fig. 9, under the paper reading of t_R).
var EnduranceCase = Fig9Case("qwen3-235b-a22b", "dash", 32, 4096, 128, dash.ReadingPaper)

// MeasureWA as the write amplification of EnduranceStudy takes A_W from the
// run's own flash management (garbage collection over KV-owned
// superblocks) instead of a given value.
const MeasureWA = 0.0

// EnduranceStudy runs c, measures R_HBF and C_KV from it, takes A_W = wa
// (from waSource; MeasureWA: the run's measured write amplification), and
// evaluates the lifetime at every load and P/E budget.
func EnduranceStudy(c summary.Case, wa float64, waSource string, loads, pe []float64) (summary.EnduranceResult, error) {
	exp, err := Build(c)
	if err != nil {
		return summary.EnduranceResult{}, err
	}
	r, err := sim.Run(exp)
	if err != nil {
		return summary.EnduranceResult{}, err
	}
	m, err := endurance.FromFixedBatch(r, exp.Plan(), wa, waSource)
	if err != nil {
		return summary.EnduranceResult{}, err
	}
	res := summary.EnduranceResult{Measurement: m, Run: r, Loads: loads, PECycles: pe}
	for _, u := range loads {
		var row []float64
		for _, e := range pe {
			y, err := m.Inputs(e, u).LifetimeYears()
			if err != nil {
				return summary.EnduranceResult{}, fmt.Errorf("load %g, %g P/E cycles: %w", u, e, err)
			}
			row = append(row, y)
		}
		res.Years = append(res.Years, row)
	}
	return res, nil
}

// defaultEndurance is the study with the engine's measured write rate,
// KV-owned capacity and write amplification.
func defaultEndurance() (summary.EnduranceResult, error) {
	return EnduranceStudy(EnduranceCase, MeasureWA, "", EnduranceLoads, endurance.PECycles)
}

func init() {
	derive(func(opts Options, art *Artifacts) error {
		if opts.Only != "" {
			return nil
		}
		res, err := defaultEndurance()
		art.Endurance = &res
		return err
	})
}
