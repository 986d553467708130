package reproduce

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/routing"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/internal/pool"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// What skewed routing does to DASH (beyond the paper, issue 28): the
// paper's §VI-E assigns whole experts to one route and evaluates it under
// balanced routing only. A routing study runs one fixed batch under the
// balanced routing, a routing trace and synthetic skews, each with and
// without the HBM expert cache (a policy the paper does not explore: the
// hottest experts kept in HBM, their budget taken from the decode KV's), on
// DASH and on the Direct-only package, where the cache adds the GPU-HBM
// links to the experts' path. Every routing.* id is simulated only.

// RoutingStudyConfig is one routing study.
type RoutingStudyConfig struct {
	// ID names the study in the routing.<id>.* ids.
	ID string
	// Model and Systems are catalogue ids (the first system the reference
	// of the cases that compare systems).
	Model   string
	Systems []string
	// Batch, Prompt and Output are the fixed batch's.
	Batch, Prompt, Output int
	// Trace is the recorded routing (nil: no trace case); TraceWrap lets
	// the batch run past it.
	Trace     *routing.Trace
	TraceWrap bool
	// Skews are the Zipf exponents of the synthetic cases (the generator
	// with Mixtral's temporal locality, routing.MixtralRepeat).
	Skews []float64
	// Cache is the expert cache of the cached cases (zero budget: none).
	Cache dash.ExpertCacheSpec
	// Knobs apply to every case (the paper's point when empty).
	Knobs []dash.Setting
}

// RoutingStudies are the studies the reproduction runs: Mixtral 8x22B
// (8 experts, top-2: 604 MB experts, so whole-expert assignment is
// coarse) replaying the shipped trace at B = 8, L_in/L_out = 256/128.
func RoutingStudies() ([]RoutingStudyConfig, error) {
	t, err := reference.RoutingTrace(RoutingTraceName)
	if err != nil {
		return nil, err
	}
	return []RoutingStudyConfig{{ID: "mixtral-8x22b", Model: "mixtral-8x22b", Systems: []string{"dash", "direct-only"},
		Batch: 8, Prompt: 256, Output: 128, Trace: t, Skews: []float64{1.2},
		Cache: dash.ExpertCacheSpec{Budget: RoutingCacheBudget, Policy: routing.PolicyLRU}}}, nil
}

// RoutingTraceName is the shipped trace the reproduction replays.
const RoutingTraceName = "mixtral-8x22b-synthetic.parquet"

// RoutingCacheBudget is the expert cache of the reproduction's cached
// cases: 24 GB, two thirds of what DASH's two HBM stacks hold beside
// Mixtral 8x22B's replicas and workspace (39 of its 448 routed experts).
const RoutingCacheBudget = 24 * unit.GB

// routingCase is a case before it runs.
type routingCase struct {
	summary.RoutingCase
	system string
}

func (c RoutingStudyConfig) cases() []routingCase {
	var out []routingCase
	add := func(system, id, label string, r dash.RoutingSpec, cache bool) {
		rc := routingCase{RoutingCase: summary.RoutingCase{ID: id, Label: label, Routing: r}, system: system}
		if cache {
			rc.Cache = c.Cache
			rc.ID += "_cache"
			rc.Label += fmt.Sprintf(", %s cache %v", c.Cache.EffectivePolicy(), c.Cache.Budget)
		}
		if system != c.Systems[0] {
			rc.ID = system + "." + rc.ID
			rc.Label = system + ": " + rc.Label
		}
		out = append(out, rc)
	}
	withCache := c.Cache.Enabled()
	for si, s := range c.Systems {
		if si == 0 {
			add(s, "balanced", "balanced (the paper's)", dash.RoutingSpec{}, false)
		}
		if c.Trace != nil {
			r := dash.RoutingSpec{Kind: dash.RoutingTrace, File: c.Trace.Name(), Wrap: c.TraceWrap}
			add(s, "trace", "trace "+c.Trace.Name(), r, false)
			if withCache {
				add(s, "trace", "trace "+c.Trace.Name(), r, true)
			}
		}
		if si > 0 {
			continue
		}
		for _, z := range c.Skews {
			r := dash.RoutingSpec{Kind: dash.RoutingSynthetic, Seed: 1, ZipfS: z, Repeat: routing.MixtralRepeat}
			id := strings.ReplaceAll(fmt.Sprintf("zipf%g", z), ".", "_")
			add(s, id, fmt.Sprintf("synthetic, Zipf s = %g", z), r, false)
			if withCache {
				add(s, id, fmt.Sprintf("synthetic, Zipf s = %g", z), r, true)
			}
		}
	}
	return out
}

// experiment builds a case's experiment.
func (c RoutingStudyConfig) experiment(rc routingCase) (dash.Experiment, error) {
	b := reference.Experiment(c.Model, rc.system).Batch(c.Batch).Prompt(c.Prompt).Output(c.Output).With(c.Knobs...)
	if rc.Routing.Kind == dash.RoutingTrace {
		b = b.RoutingTrace(c.Trace, rc.Routing.Wrap)
	} else {
		b = b.Routing(rc.Routing)
	}
	if rc.Cache.Enabled() {
		b = b.With(knob("execution.expert_cache.budget", rc.Cache.Budget), knob("execution.expert_cache.policy", rc.Cache.EffectivePolicy()))
	}
	return b.Build()
}

// RoutingStudy runs a routing study (its cases on a worker pool, workers
// 0: one per CPU) and names its values (routing.<id>.<metric>.<case>).
func RoutingStudy(ctx context.Context, c RoutingStudyConfig, workers int, progress func(done, total int)) (summary.RoutingStudy, values, error) {
	var v values
	if c.ID == "" || c.Model == "" || len(c.Systems) == 0 {
		return summary.RoutingStudy{}, v, errors.New("routing study: an id, a model and a system are needed")
	}
	m, err := reference.Model(c.Model)
	if err != nil {
		return summary.RoutingStudy{}, v, err
	}
	s := summary.RoutingStudy{ID: c.ID, Model: c.Model, ModelName: m.Name, System: c.Systems[0], Batch: c.Batch, Prompt: c.Prompt, Output: c.Output}
	if c.Trace != nil {
		if err := c.Trace.Check(m.RoutingModel()); err != nil {
			return summary.RoutingStudy{}, v, err
		}
		s.Trace, s.Stats = c.Trace.Name(), routing.Analyze(c.Trace, m.FFN.RoutedExperts)
	}
	cases := c.cases()
	type out struct {
		rc  summary.RoutingCase
		err error
	}
	done := 0
	results := make([]out, len(cases))
	_, err = pool.Run(ctx, len(cases), pool.Options{Workers: workers}, func(ctx context.Context, i int) (out, bool) {
		rc := cases[i]
		exp, err := c.experiment(rc)
		if err != nil {
			return out{err: fmt.Errorf("%s: %w", rc.ID, err)}, true
		}
		res, err := sim.RunWith(exp, sim.Options{})
		if err != nil {
			return out{err: fmt.Errorf("%s: %w", rc.ID, err)}, true
		}
		rc.Result = res
		return out{rc: rc.RoutingCase}, true
	}, func(i int, o out) error {
		results[i] = o
		done++
		if progress != nil {
			progress(done, len(cases))
		}
		return o.err
	})
	if err != nil {
		return summary.RoutingStudy{}, v, err
	}
	pre := "routing." + c.ID + "."
	for _, o := range results {
		rc := o.rc
		s.Cases = append(s.Cases, rc)
		r := rc.Result
		note := fmt.Sprintf("%s on %s, B=%d, %d/%d: %s", m.Name, r.System, c.Batch, c.Prompt, c.Output, rc.Label)
		v.Set(pre+"tpot_ms."+rc.ID, r.TPOT.Milliseconds(), note+fmt.Sprintf("; decode-KV budget %.2f GB", float64(r.KV.BudgetHBM)/1e9))
		g := r.Routing
		if g == nil {
			continue
		}
		v.Set(pre+"step_p99_ms."+rc.ID, float64(g.StepP99)/1e6, note+"; the decode steps' 99th percentile")
		if !rc.Cache.Enabled() && !strings.Contains(rc.ID, ".") { // the same loads with a cache or on another system
			v.Set(pre+"distinct_experts."+rc.ID, g.DistinctMean, note+"; distinct experts a decode step reads per MoE layer (mean)")
		}
		if g.IdealTime > 0 {
			v.Set(pre+"imbalance_pct."+rc.ID, 100*g.Imbalance, note+"; max(T_Direct, T_Relay) of the whole-expert assignment over a perfect split, minus 1")
		}
		if g.Cache != nil {
			v.Set(pre+"cache_hit_pct."+rc.ID, 100*g.Cache.HitRate, note+fmt.Sprintf("; %d experts held, %d fills", g.Cache.Capacity, g.Cache.Fills))
		}
	}
	s.Rows = judgeAll(v, summary.WhatIf{})
	return s, v, nil
}

func init() {
	register(group{name: "routing", prefixes: []string{"routing."}, run: runRouting})
}

func runRouting(opts Options, art *Artifacts) (values, error) {
	studies, err := RoutingStudies()
	if err != nil {
		return values{}, err
	}
	var all values
	for _, c := range studies {
		s, v, err := RoutingStudy(context.Background(), c, opts.Workers, opts.simProgress("routing "+c.ID))
		if err != nil {
			return all, fmt.Errorf("routing %s: %w", c.ID, err)
		}
		art.Routing = append(art.Routing, s)
		for k, x := range v.v {
			all.Set(k, x, v.detail[k])
		}
	}
	return all, nil
}
