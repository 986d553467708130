package reproduce

import (
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/energy"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// Energy per generated token (beyond the paper): the memory system's
// energy on Fig. 9(a)'s workloads, priced from the engine's per-route byte
// counters and NAND page-wave counts (see package energy).

// Fig9aCases are Fig. 9(a)'s simulations: the five models at 1K/128, B in
// {1, 4, 16, 64}, on the four systems, under the paper reading of t_R.
func Fig9aCases() []summary.Case { return fig9aSpecs(dash.ReadingPaper) }

// EnergyStudy prices every point with the parameters params gives for the
// point's system (nil: [energy.DefaultParams] of its HBF part).
func EnergyStudy(points []summary.Point, params func(dash.SystemSpec) energy.Params) ([]summary.EnergyPoint, error) {
	if params == nil {
		params = func(s dash.SystemSpec) energy.Params { return energy.DefaultParams(s.HBF) }
	}
	var out []summary.EnergyPoint
	for _, p := range points {
		e := summary.EnergyPoint{Model: p.Model, System: p.System, Batch: p.Batch, Err: p.Err}
		s, err := reference.System(p.System)
		if err != nil {
			return nil, err
		}
		e.Params = params(s)
		if p.Err == nil {
			if e.Breakdown, err = energy.Of(p.Result, s.HBF, e.Params); err != nil {
				return nil, err
			}
		}
		out = append(out, e)
	}
	return out, nil
}

func init() {
	derive(func(opts Options, art *Artifacts) error {
		points := art.Fig9[dash.ReadingPaper].A.Points
		if len(points) == 0 {
			return nil
		}
		var err error
		art.Energy, err = EnergyStudy(points, nil)
		return err
	})
}
