package reproduce

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/internal/pool"
	"github.com/dashlab/dashlab/reference/clusters"
	"github.com/dashlab/dashlab/summary"
)

// DASH at cluster scale (beyond the paper, whose Table I dismisses
// multi-GPU scaling in words): for each shipped comparison
// (reference/clusters/compare), the contenders marked for the report, each
// an instance layout with its memory system, with their capacity within the
// P90 TPOT target, and the external check against a published measurement.
// Every cluster.* id is simulated only: the paper publishes no such number.

// ClusterComparisons are the comparisons the reproduction runs.
var ClusterComparisons = []string{"qwen3-235b", "deepseek-v3"}

// ClusterTarget is the output throughput whose GPU counts the cluster ids
// report (tokens/s).
const ClusterTarget = 10000

func init() {
	register(group{name: "cluster", prefixes: []string{"cluster."}, run: runCluster})
}

// ClusterStudy runs one shipped comparison's report contenders and its
// external checks, and names its values (cluster.<id>.<metric>.<contender>).
func ClusterStudy(ctx context.Context, id string, progress func(done, total int)) (summary.ClusterStudy, values, error) {
	var v values
	cf, err := clusters.Comparison(id)
	if err != nil {
		return summary.ClusterStudy{}, v, err
	}
	cf = cf.ForReport()
	cfg, err := cf.Config()
	if err != nil {
		return summary.ClusterStudy{}, v, err
	}
	if !hasTarget(cfg.Targets, ClusterTarget) {
		cfg.Targets = append(cfg.Targets, ClusterTarget)
	}
	steps, done := len(cfg.Contenders), 0
	cmp, err := cluster.Compare(ctx, cfg, func(_ string, k, n int) {
		if progress != nil && k == n-1 {
			done++
			progress(done, steps)
		}
	})
	if err != nil {
		return summary.ClusterStudy{}, v, err
	}
	s := summary.ClusterStudy{ID: id, Model: cf.Model, Comparison: cmp}
	pre := "cluster." + id + "."
	ref := cmp.Capacities[0]
	for _, c := range cmp.Capacities {
		note := fmt.Sprintf("%s: %d GPUs per instance, %.3f req/s within P90 TPOT %v (%.1f ms measured), %d/%d tokens",
			c.Label, c.GPUs, c.RateRPS, cmp.TPOTTarget, c.P90TPOTms, cf.Prompt, cf.Output)
		if c.Note != "" {
			note += "; " + c.Note
		}
		v.Set(pre+"tok_s_per_gpu."+c.ID, c.PerGPU, note)
		v.Set(pre+"joules_per_token."+c.ID, c.JoulesPerToken, note+"; board power (TDP) over the throughput plus port energy")
		v.Set(pre+"kv_tokens_per_gpu."+c.ID, float64(c.KVTokens)/float64(c.GPUs), note)
		for _, p := range cmp.Provisions {
			if p.TargetTokS != ClusterTarget {
				continue
			}
			for i, x := range cmp.Capacities {
				if x.ID == c.ID && p.Instances[i] > 0 {
					v.Set(pre+fmt.Sprintf("gpus_for_%dk.", ClusterTarget/1000)+c.ID, float64(p.GPUs[i]), note)
				}
			}
		}
		if c.ID != ref.ID && c.BreakEvenPrice > 0 {
			v.Set(pre+"break_even_price."+c.ID, c.BreakEvenPrice,
				fmt.Sprintf("GPU price (in units of %s's) at which %s's tokens/s per cost equals it", ref.Label, c.Label))
		}
	}
	for _, p := range cf.Published {
		r, err := clusters.Check(ctx, p, cf.Model)
		if err != nil {
			return summary.ClusterStudy{}, v, fmt.Errorf("external check: %w", err)
		}
		s.Checks = append(s.Checks, summary.ClusterCheck{Source: p.Source, Description: p.Description,
			PublishedTokS: p.OutputTokS, SimulatedTokS: r.OutputTokS, PublishedTPOTms: p.MeanTPOTms, SimulatedTPOTms: r.MeanTPOTms,
			PublishedTTFTs: p.MeanTTFTs, SimulatedTTFTs: r.MeanTTFTs, PublishedDurS: p.DurationS, SimulatedDurS: r.DurationS})
		d := fmt.Sprintf("published %.2f tok/s (%s); simulated over published %.2f", p.OutputTokS, firstClause(p.Source), r.Ratio)
		v.Set(pre+"check.output_tok_s", r.OutputTokS, d)
		v.Set(pre+"check.mean_tpot_ms", r.MeanTPOTms, fmt.Sprintf("published %.2f ms (%s)", p.MeanTPOTms, firstClause(p.Source)))
	}
	s.Rows = judgeAll(v, summary.WhatIf{})
	return s, v, nil
}

func hasTarget(ts []float64, t float64) bool {
	for _, x := range ts {
		if x == t {
			return true
		}
	}
	return false
}

func firstClause(s string) string {
	if i := strings.Index(s, ","); i > 0 {
		return s[:i]
	}
	return s
}

func runCluster(opts Options, art *Artifacts) (values, error) {
	type study struct {
		s   summary.ClusterStudy
		v   values
		err error
	}
	// The comparisons run at once (each is one capacity search after
	// another, a core's worth); their progress is told one at a time.
	var mu sync.Mutex
	studies := pool.Map(len(ClusterComparisons), pool.Options{Workers: opts.Workers}, func(i int) study {
		id := ClusterComparisons[i]
		var progress func(done, total int)
		if p := opts.simProgress("cluster " + id); p != nil {
			progress = func(done, total int) { mu.Lock(); defer mu.Unlock(); p(done, total) }
		}
		s, v, err := ClusterStudy(context.Background(), id, progress)
		return study{s, v, err}
	})
	var all values
	for i, st := range studies {
		if st.err != nil {
			return all, fmt.Errorf("%s: %w", ClusterComparisons[i], st.err)
		}
		art.Cluster = append(art.Cluster, st.s)
		for k, x := range st.v.v {
			if !math.IsNaN(x) {
				all.Set(k, x, st.v.detail[k])
			}
		}
	}
	return all, nil
}
