package sim

import (
	"reflect"
	"testing"

	"github.com/dashlab/dashlab/dash"
	trace "github.com/dashlab/dashlab/dash/routing"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
)

// balancedTrace sets the experiment's routing to the trace of balanced
// routing for its own fixed batch.
func balancedTrace(t testing.TB) func(dash.ExperimentBuilder) dash.ExperimentBuilder {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		exp, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		w := exp.Workload()
		tr, err := trace.Balanced(exp.Model().RoutingModel(), w.Batch, w.Prompt, w.Output)
		if err != nil {
			t.Fatal(err)
		}
		return b.RoutingTrace(tr, false)
	}
}

// withoutRouting is r without what recorded routing adds (its statistics)
// and without how the simulation went.
func withoutRouting(r Result) Result {
	r.Perf, r.Routing = Perf{}, nil
	return r
}

// Balanced routing written as a trace gives exactly the balanced result:
// the engine sees the same distinct experts and rows in every pass.
func TestBalancedTraceIsBalanced(t *testing.T) {
	cases := []struct {
		model, system string
		b, in, out    int
	}{
		{"qwen3-30b-a3b", "dash", 4, 512, 24},
		{"mixtral-8x22b", "relay-only", 2, 256, 12},
		{"deepseek-v2", "direct-only", 8, 128, 10}, // shared experts, dense first layer
		{"qwen3-235b-a22b", "compact-dash", 64, 256, 8},
	}
	for _, c := range cases {
		want := run(t, build(t, c.model, c.system, c.b, c.in, c.out), Options{})
		got := run(t, build(t, c.model, c.system, c.b, c.in, c.out, balancedTrace(t)), Options{})
		if !reflect.DeepEqual(withoutRouting(want), withoutRouting(got)) {
			t.Errorf("%s/%s: balanced E2E %v, as a trace %v", c.model, c.system, want.E2E, got.E2E)
		}
		if got.Routing == nil || got.Routing.DecodeSteps != int64(c.out-1) || got.Routing.Passes != int64(c.out) {
			t.Errorf("%s/%s: routing stats %+v", c.model, c.system, got.Routing)
		}
	}
}

// sameExperts is a trace in which every token of every request selects
// experts 0..k-1 at every MoE layer.
func sameExperts(t testing.TB, exp dash.Experiment) *trace.Trace {
	m := exp.Model().RoutingModel()
	w := exp.Workload()
	tr, err := trace.Balanced(trace.Model{ID: m.ID, Layers: m.Layers, MoELayers: m.MoELayers, Experts: m.TopK, TopK: m.TopK},
		w.Batch, w.Prompt, w.Output) // over k experts, every token selects all k
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// A trace in which every token picks the same experts reads only those:
// every MoE layer of every pass reads k experts, and the HBF delivers
// exactly (B k - k) experts a layer and pass less than balanced routing's
// B k when B k <= E.
func TestSameExpertsReadOnlyThose(t *testing.T) {
	const b, in, out = 4, 64, 6
	base := build(t, "qwen3-235b-a22b", "dash", b, in, out)
	tr := sameExperts(t, base)
	got := run(t, build(t, "qwen3-235b-a22b", "dash", b, in, out, func(x dash.ExperimentBuilder) dash.ExperimentBuilder {
		return x.RoutingTrace(tr, false)
	}), Options{})
	k := base.Model().FFN.TopK
	if r := got.Routing; r.DistinctMin != k || r.DistinctMax != k {
		t.Fatalf("distinct experts per decode layer %d..%d, want %d", r.DistinctMin, r.DistinctMax, k)
	}
	want := run(t, build(t, "qwen3-235b-a22b", "dash", b, in, out), Options{})
	hbf := func(r Result) unit.Bytes {
		var s unit.Bytes
		for _, rt := range r.Routes {
			if rt.Route == RouteDirect || rt.Route == RouteRelay {
				s += rt.Delivered
			}
		}
		return s
	}
	m := base.Model()
	moe, _ := m.MoELayerSet()
	expert := base.Inventory().Layers(m)[moe[0]].RoutedExpert
	// decode steps: B k (balanced) vs k experts a layer
	fewer := unit.Bytes(out-1) * unit.Bytes(len(moe)) * unit.Bytes(b*k-k) * expert
	// the prefill: all E experts (balanced) vs k
	fewer += unit.Bytes(len(moe)) * unit.Bytes(m.FFN.RoutedExperts-k) * expert
	if d := hbf(want) - hbf(got); d != fewer {
		t.Errorf("HBF bytes: balanced %v, same experts %v: %v fewer, want %v", hbf(want), hbf(got), d, fewer)
	}
}

// Recorded routing runs through the same exact shortcuts: every field of
// the default run equals the chunk-by-chunk run's, with skew, locality,
// a task mix and each cache policy.
func TestRecordedRoutingShortcutsExact(t *testing.T) {
	syn := dash.RoutingSpec{Kind: dash.RoutingSynthetic, Seed: 7, ZipfS: 1.1, Repeat: trace.MixtralRepeat, LayerCorr: 0.3, Tasks: 3, TaskOverlap: 0.4}
	cases := []struct {
		model, system string
		b, in, out    int
		cache         dash.ExpertCacheSpec
	}{
		{"qwen3-30b-a3b", "dash", 4, 256, 12, dash.ExpertCacheSpec{}},
		{"qwen3-30b-a3b", "dash", 8, 128, 10, dash.ExpertCacheSpec{Budget: 2 * unit.GB, Policy: trace.PolicyLRU}},
		{"mixtral-8x22b", "compact-dash", 2, 128, 8, dash.ExpertCacheSpec{Budget: 8 * unit.GB, Policy: trace.PolicyLFU}},
		{"deepseek-v2", "relay-only", 4, 128, 8, dash.ExpertCacheSpec{Budget: 4 * unit.GB, Policy: trace.PolicyStatic}},
	}
	for _, c := range cases {
		exp := build(t, c.model, c.system, c.b, c.in, c.out, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
			return b.Routing(syn).Execution(dash.ExecutionSpec{ExpertCache: c.cache})
		})
		fast := run(t, exp, Options{})
		slow := run(t, exp, Options{NoJump: true})
		if !sameResult(fast, slow) {
			t.Errorf("%s/%s cache %+v: shortcuts E2E %v, event by event %v", c.model, c.system, c.cache, fast.E2E, slow.E2E)
		}
		if c.cache.Enabled() && (fast.Routing.Cache == nil || fast.Routing.Cache.Hits == 0) {
			t.Errorf("%s/%s: cache %+v served nothing: %+v", c.model, c.system, c.cache, fast.Routing.Cache)
		}
	}
}

// The expert cache's budget comes out of the decode-KV budget, holds
// floor(budget / expert size) experts, and a cache larger than the HBM
// left is refused.
func TestExpertCacheBudget(t *testing.T) {
	plain := build(t, "qwen3-30b-a3b", "dash", 4, 256, 8)
	cache := dash.ExpertCacheSpec{Budget: 3 * unit.GB}
	with := build(t, "qwen3-30b-a3b", "dash", 4, 256, 8, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		return b.Routing(dash.RoutingSpec{Kind: dash.RoutingSynthetic, ZipfS: 1}).Execution(dash.ExecutionSpec{ExpertCache: cache})
	})
	if d := plain.Plan().KV.HBMBudget - with.Plan().KV.HBMBudget; d != cache.Budget {
		t.Errorf("decode-KV budget shrank by %v for a %v cache", d, cache.Budget)
	}
	r := run(t, with, Options{})
	m := with.Model()
	moe, _ := m.MoELayerSet()
	size := with.Inventory().Layers(m)[moe[0]].RoutedExpert
	if c := r.Routing.Cache; unit.Bytes(c.Capacity)*size > cache.Budget || unit.Bytes(c.Capacity+1)*size <= cache.Budget {
		t.Errorf("capacity %d experts of %v for a %v budget", c.Capacity, size, cache.Budget)
	}
	_, err := reference.Experiment("qwen3-30b-a3b", "dash").Execution(dash.ExecutionSpec{ExpertCache: dash.ExpertCacheSpec{Budget: 60 * unit.GB}}).Build()
	if err == nil {
		t.Error("a 60 GB expert cache on 48 GB of HBM was accepted")
	}
}
