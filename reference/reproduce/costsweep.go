package reproduce

import (
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// The capacity-per-cost sweep and the n-pair scaling behind the cost
// figure (§VI-G).

// CostRs and CostDeltas are the report's (r, δ) grid; costMaxPairs its
// largest pair count.
var (
	CostRs       = []float64{0.5, 1, 2, 4, 8, 16, 21.33, 32}
	CostDeltas   = []float64{0, 1, 2, 4, 8, 16}
	costMaxPairs = 8
)

// CostStudy computes the grid, breakeven line and scaling for a system, and judges the
// paper's G(1, 0) and breakeven r at δ = 0 where the grid holds them (what-ifs for a
// system that is not the paper's).
func CostStudy(s dash.SystemSpec, rs, deltas []float64, maxPairs int) (summary.CostResult, error) {
	var res summary.CostResult
	var err error
	if res.Grid, err = dash.CostSweep(s, rs, deltas); err != nil {
		return res, err
	}
	if res.Breakeven, err = dash.BreakevenLine(s, deltas); err != nil {
		return res, err
	}
	if res.Scaling, err = dash.ScalePairs(s, maxPairs); err != nil {
		return res, err
	}
	w := summary.WhatIf(reference.SystemChanges(s))
	for _, p := range res.Grid {
		if p.R == 1 && p.Delta == 0 {
			if r, err := judge("cost.gain.r1_d0", dash.ReadingPaper, p.Gain, w); err == nil {
				res.Rows = append(res.Rows, r)
			}
		}
	}
	for _, p := range res.Breakeven {
		if p.Delta == 0 {
			if r, err := judge("cost.breakeven_r.d0", dash.ReadingPaper, p.R, w); err == nil {
				res.Rows = append(res.Rows, r)
			}
		}
	}
	return res, nil
}

func init() {
	derive(func(opts Options, art *Artifacts) error {
		if opts.Only != "" && !strings.HasPrefix("cost.", opts.Only) && !strings.HasPrefix(opts.Only, "cost.") {
			return nil
		}
		s, err := reference.System("dash")
		if err != nil {
			return err
		}
		res, err := CostStudy(s, CostRs, CostDeltas, costMaxPairs)
		art.Cost = &res
		return err
	})
}
