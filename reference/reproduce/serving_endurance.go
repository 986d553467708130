package reproduce

import (
	"fmt"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/summary"

	"github.com/dashlab/dashlab/dash/endurance"
	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/dash/unit"
)

// enduranceFromServing evaluates the lifetime at each load of a serving
// study: R_HBF is system's backlogged rate in the study's mode times the
// prompt KV each request writes into HBF, u each load's mean offered rate
// over that backlogged rate; C_KV and A_W come from fixed, the full-load
// fixed-batch study of the same workload.
func enduranceFromServing(st *serve.StudyResult, system string, fixed summary.EnduranceResult, pe []float64) (summary.ServingEndurance, error) {
	sat, ok := st.SaturationOf(system, st.Mode)
	if !ok {
		return summary.ServingEndurance{}, fmt.Errorf("serving study has no %s saturation in %v", system, st.Mode)
	}
	if fixed.Run.Batch < 1 {
		return summary.ServingEndurance{}, fmt.Errorf("the fixed-batch run has no requests")
	}
	// The HBF KV bytes one request writes, as the full-load run measured them.
	perRequest := endurance.WrittenBytes(fixed.Run) / unit.Bytes(fixed.Run.Batch)
	m, err := endurance.FromServing(sat.RPS, perRequest, fixed.Measurement.KVCapacity, fixed.Measurement.WriteAmplification,
		fixed.Measurement.WASource, fmt.Sprintf("serving study (%s, %v, B_max %d)", system, st.Mode, st.Scheduler.MaxBatch))
	if err != nil {
		return summary.ServingEndurance{}, err
	}
	res := summary.ServingEndurance{Measurement: m, PECycles: pe}
	offered := map[float64][]float64{}
	var loads []float64
	for _, p := range st.Points {
		if p.System != system {
			continue
		}
		if _, ok := offered[p.Load]; !ok {
			loads = append(loads, p.Load)
		}
		offered[p.Load] = append(offered[p.Load], p.Summary.OfferedRPS)
	}
	for _, l := range loads {
		mean := 0.0
		for _, x := range offered[l] {
			mean += x
		}
		mean /= float64(len(offered[l]))
		u, err := endurance.Utilization(mean, sat.RPS)
		if err != nil {
			return summary.ServingEndurance{}, fmt.Errorf("load %g: %w", l, err)
		}
		var row []float64
		for _, e := range pe {
			y, err := m.Inputs(e, u).LifetimeYears()
			if err != nil {
				return summary.ServingEndurance{}, err
			}
			row = append(row, y)
		}
		res.Loads, res.Utilizations, res.Years = append(res.Loads, l), append(res.Utilizations, u), append(res.Years, row)
	}
	return res, nil
}

func init() {
	derive(func(opts Options, art *Artifacts) error {
		st := art.Serving[dash.ReadingPaper]
		if st == nil || art.Endurance == nil {
			return nil
		}
		res, err := enduranceFromServing(st, "dash", *art.Endurance, art.Endurance.PECycles)
		if err != nil {
			return fmt.Errorf("endurance from serving: %w", err)
		}
		art.ServingEndurance = &res
		return nil
	})
}
