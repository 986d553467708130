package reproduce

import (
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// ReadingValues collects, from a report's rows, every id computed under
// both readings of t_R whose id starts with one of prefixes, in row order.
func ReadingValues(rows []Row, prefixes ...string) []summary.ReadingValue {
	var out []summary.ReadingValue
	for i, r := range rows {
		if r.Reading != "paper" || r.Simulated == nil || i+1 >= len(rows) {
			continue
		}
		p := rows[i+1]
		if p.ID != r.ID+PhysicalSuffix || p.Simulated == nil {
			continue
		}
		keep := len(prefixes) == 0
		for _, pre := range prefixes {
			keep = keep || strings.HasPrefix(r.ID, pre)
		}
		if keep {
			out = append(out, summary.ReadingValue{ID: r.ID, Unit: r.Unit, Paper: r.Paper,
				PaperReading: *r.Simulated, Physical: *p.Simulated, Pass: r.Pass != nil && *r.Pass})
		}
	}
	return out
}

// Fig9ReadingValues are the geomean ids of a Fig. 9 part (prefix "fig9a"
// or "fig9b") from its summaries under the paper and the physical reading,
// with the paper's values.
func Fig9ReadingValues(prefix string, paper, physical summary.Fig9) []summary.ReadingValue {
	var out []summary.ReadingValue
	for _, metric := range []string{"throughput_speedup_geomean", "e2e_reduction_pct"} {
		for _, base := range Fig9Baselines {
			id := prefix + "." + metric + ".vs_" + strings.ReplaceAll(base, "-", "_")
			e, err := reference.PaperValue(id)
			if err != nil {
				continue
			}
			a, okA := paper.Against(base)
			b, okB := physical.Against(base)
			if !okA || !okB {
				continue
			}
			v := summary.ReadingValue{ID: id, Unit: e.Unit, Paper: e.Value}
			if metric == "e2e_reduction_pct" {
				v.PaperReading, v.Physical = a.E2EReductionPct, b.E2EReductionPct
			} else {
				v.PaperReading, v.Physical = a.ThroughputSpeedupGeomean, b.ThroughputSpeedupGeomean
			}
			v.Pass = e.Passes(v.PaperReading)
			out = append(out, v)
		}
	}
	return out
}

// Fig9Grid is a Fig. 9 sweep under a reading of t_R: every model at every
// batch and length (lengths beyond a model's context window left out, as
// the paper does) on every system, each case as Fig9Case makes it (DASH
// with lookahead where the router allows) with modify applied first.
func Fig9Grid(r dash.Reading, models, systems []string, batches []int, lengths []Fig9bWorkload,
	modify func(dash.ExperimentBuilder) dash.ExperimentBuilder) []Case {
	var out []Case
	for _, m := range models {
		spec, err := reference.Model(m)
		for _, w := range lengths {
			if err == nil && spec.MaxContext > 0 && w.Prompt+w.Output > spec.MaxContext {
				continue
			}
			for _, b := range batches {
				for _, s := range systems {
					c := Fig9Case(m, s, b, w.Prompt, w.Output, r)
					if own := c.Modify; modify != nil {
						c.Modify = func(x dash.ExperimentBuilder) dash.ExperimentBuilder {
							x = modify(x)   // may replace the execution switches:
							if own != nil { // the case's own (lookahead) comes last
								x = own(x)
							}
							return x
						}
					}
					out = append(out, c)
				}
			}
		}
	}
	return out
}
