package reproduce

import (
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
)

// The capacity-per-cost sweep and the n-pair scaling behind the cost
// figure (§VI-G).

// CostRs and CostDeltas are the report's (r, δ) grid; CostMaxPairs its
// largest pair count.
var (
	CostRs       = []float64{0.5, 1, 2, 4, 8, 16, 21.33, 32}
	CostDeltas   = []float64{0, 1, 2, 4, 8, 16}
	CostMaxPairs = 8
)

// CostResult is the gain grid, its breakeven line and the pair scaling.
type CostResult struct {
	// Grid is G over CostRs x CostDeltas; Breakeven the r with G = 1 per δ.
	Grid, Breakeven []dash.CostPoint
	// Scaling is the system at 1..CostMaxPairs pairs.
	Scaling []dash.PairScaling
}

// CostStudy computes the grid, breakeven line and scaling for a system.
func CostStudy(s dash.SystemSpec, rs, deltas []float64, maxPairs int) (CostResult, error) {
	var res CostResult
	var err error
	if res.Grid, err = dash.CostSweep(s, rs, deltas); err != nil {
		return res, err
	}
	if res.Breakeven, err = dash.BreakevenLine(s, deltas); err != nil {
		return res, err
	}
	res.Scaling, err = dash.ScalePairs(s, maxPairs)
	return res, err
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
		res, err := CostStudy(s, CostRs, CostDeltas, CostMaxPairs)
		art.Cost = &res
		return err
	})
}
