package reproduce

import (
	"fmt"
	"math"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// The parameters the paper never states and the results that rest on them: every
// memory-system id under the checked reading, with the HBM array rate and the TSV rate
// each at half and at twice the assumed value (the report's assumption table).

// AssumedParameters are the memory system's parameters the paper does not state.
var AssumedParameters = []summary.AssumedParameter{
	{Path: "hbm.array_bandwidth", Label: "HBM array rate", Source: "[25] Micron HBM3E product brief (>1.2 TB/s a stack); not in the paper"},
	{Path: "hbf.tsv_bandwidth", Label: "TSV rate", Source: "assumed: 2 x the link (§VI-E's 3.2 TB/s of SRAM-ready data a stack); not in the paper"},
}

// AssumptionFactors are the multiples of each assumed value that run.
var AssumptionFactors = []float64{0.5, 2}

// assumptionGroups are the groups whose ids the memory system computes.
var assumptionGroups = []string{"fig10", "fig11", "fig12", "fig9b-llama4-1m", "fig9a", "fig9b", "serving"}

// AssumptionStudy reruns the memory-system groups under the paper reading with each
// assumed parameter at each factor, and tabulates every id of base (the rows of the
// reproduction at the assumed values) against them.
func AssumptionStudy(opts Options, base []summary.Row) (*summary.AssumptionTable, error) {
	paper := reference.PaperKnobs()
	t := &summary.AssumptionTable{Factors: AssumptionFactors}
	var runs [][]map[string]float64
	for _, a := range AssumedParameters {
		k, err := dash.LookupKnob(a.Path)
		if err != nil {
			return nil, err
		}
		v, err := k.Get(paper)
		if err != nil {
			return nil, err
		}
		rate, ok := v.(unit.BytesPerSecond)
		if !ok {
			return nil, fmt.Errorf("assumptions: %s is %T, not a rate", a.Path, v)
		}
		a.Default = rate.String()
		t.Params = append(t.Params, a)
		var byFactor []map[string]float64
		for _, f := range AssumptionFactors {
			o := Options{Groups: assumptionGroups, Workers: opts.Workers, Readings: []dash.Reading{dash.ReadingPaper},
				Knobs: []dash.Setting{knob(a.Path, unit.BytesPerSecond(float64(rate)*f))}}
			if opts.SimProgress != nil {
				g := fmt.Sprintf("assumptions (%s x %g)", a.Label, f)
				o.SimProgress = func(_ string, done, total int) { opts.SimProgress(g, done, total) }
			}
			rep, err := Run(o)
			vals := map[string]float64{}
			for _, r := range rep.Rows {
				if r.Simulated != nil && !r.Beside() {
					vals[r.ID] = *r.Simulated
				}
			}
			if err != nil && len(vals) == 0 {
				return nil, fmt.Errorf("assumptions: %s x %g: %w", a.Path, f, err)
			}
			byFactor = append(byFactor, vals)
		}
		runs = append(runs, byFactor)
	}
	owned := map[string]bool{}
	for _, g := range assumptionGroups {
		owned[g] = true
	}
	for _, r := range base {
		if r.Beside() || r.Simulated == nil || !owned[owner(r.ID)] {
			continue
		}
		e, err := reference.PaperValue(r.ID)
		if err != nil {
			continue
		}
		row := summary.AssumptionRow{ID: r.ID, Unit: r.Unit, Paper: r.Paper, Base: *r.Simulated, PassBase: e.Passes(*r.Simulated)}
		for p := range t.Params {
			vs, ps := make([]float64, len(AssumptionFactors)), make([]bool, len(AssumptionFactors))
			for f := range AssumptionFactors {
				x, ok := runs[p][f][r.ID]
				if !ok {
					x = math.NaN()
				}
				vs[f], ps[f] = x, ok && e.Passes(x)
			}
			row.Values, row.Pass = append(row.Values, vs), append(row.Pass, ps)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}
