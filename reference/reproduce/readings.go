package reproduce

import (
	"slices"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// ReadingValues collects, from a report's rows, every id computed under more than one
// reading of t_R whose id starts with one of prefixes, in row order: the paper
// reading's row (Reading "paper") and the rows of the same id with another reading's
// suffix.
func ReadingValues(rows []summary.Row, prefixes ...string) []summary.ReadingValue {
	byID := map[string]summary.Row{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	var out []summary.ReadingValue
	for _, r := range rows {
		if r.Reading != dash.ReadingPaper.String() || r.Simulated == nil || !hasAnyPrefix(r.ID, prefixes) {
			continue
		}
		v := summary.ReadingValue{ID: r.ID, Unit: r.Unit, Paper: r.Paper, Pass: r.Pass != nil && *r.Pass,
			Values: map[dash.Reading]float64{dash.ReadingPaper: *r.Simulated}}
		for _, rd := range dash.Readings() {
			if o, ok := byID[r.ID+ReadingSuffix(rd)]; ok && rd != dash.ReadingPaper && o.Simulated != nil {
				v.Values[rd] = *o.Simulated
			}
		}
		if len(v.Values) > 1 {
			out = append(out, v)
		}
	}
	return out
}

func hasAnyPrefix(id string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return len(prefixes) == 0
}

// Fig9ReadingValues are the geomean ids of a Fig. 9 part (prefix "fig9a" or "fig9b")
// from its summaries by reading of t_R (the paper reading's among them), with the
// paper's values and the paper reading's verdict.
func Fig9ReadingValues(prefix string, sums map[dash.Reading]summary.Fig9) []summary.ReadingValue {
	paper, ok := sums[dash.ReadingPaper]
	if !ok {
		return nil
	}
	var out []summary.ReadingValue
	for _, metric := range []string{"throughput_speedup_geomean", "e2e_reduction_pct"} {
		for _, base := range fig9Baselines {
			id := prefix + "." + metric + ".vs_" + strings.ReplaceAll(base, "-", "_")
			e, err := reference.PaperValue(id)
			if err != nil {
				continue
			}
			v := summary.ReadingValue{ID: id, Unit: e.Unit, Paper: e.Value, Values: map[dash.Reading]float64{}}
			for _, rd := range dash.Readings() {
				s, ok := sums[rd]
				if !ok {
					continue
				}
				p, ok := s.Against(base)
				if !ok {
					continue
				}
				v.Values[rd] = p.ThroughputSpeedupGeomean
				if metric == "e2e_reduction_pct" {
					v.Values[rd] = p.E2EReductionPct
				}
			}
			if _, ok := paper.Against(base); !ok || len(v.Values) < 2 {
				continue
			}
			v.Pass = e.Passes(v.Values[dash.ReadingPaper])
			out = append(out, v)
		}
	}
	return out
}

// Fig9Grid is a Fig. 9 sweep under a reading of t_R: every model at every
// batch and length (lengths beyond a model's context window left out, as
// the paper does) on every system, each case as Fig9Case makes it (DASH
// with lookahead where the router allows) with knobs set first.
func Fig9Grid(r dash.Reading, models, systems []string, batches []int, lengths []Fig9bWorkload, knobs []dash.Setting) []summary.Case {
	var out []summary.Case
	for _, m := range models {
		spec, err := reference.Model(m)
		for _, w := range lengths {
			if err == nil && spec.MaxContext > 0 && w.Prompt+w.Output > spec.MaxContext {
				continue
			}
			for _, b := range batches {
				for _, s := range systems {
					c := Fig9Case(m, s, b, w.Prompt, w.Output, r)
					c.Knobs = withKnobs(knobs, c.Knobs) // the case's own (lookahead) last
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// withKnobs is the settings of first, then then (a later setting of a path wins).
func withKnobs(first, then []dash.Setting) []dash.Setting {
	if len(first) == 0 {
		return then
	}
	return append(slices.Clone(first), then...)
}

// CheckedReadingNote says which reading of t_R the paper ids are checked under, and
// why (README's "Where the reproduction stands" says the same with the tally).
const CheckedReadingNote = "The paper ids are checked under the paper reading (t_R a readiness latency, overlapped by double buffering: " +
	"§II-B \"predictable accesses can hide t_R through prefetching and double buffering\", §IV-A \"NAND sensing and shared-TSV SRAM fills are ... overlapped through double buffering\", " +
	"§V-B \"double buffering overlaps this preparation with transmission\"). The physical reading is the stated part (one page wave per t_R, §VI-A, §VI-F); " +
	"the serial reading pays each transfer chunk's t_R before its transfer, never overlapped: what a simulator that adds t_R per request computes. " +
	"Its values are reported beside the checked ones (id suffix .serial) whatever it passes, since the paper's text says the opposite of it; " +
	"the table counts how many ids each reading would pass."
