package sim

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/dashlab/dashlab/dash"
	trace "github.com/dashlab/dashlab/dash/routing"
	"github.com/dashlab/dashlab/dash/unit"
)

// Per-token routing on every memory system of the catalogue, with random
// skew, locality and cache policies, holds the physics the route table
// states: every route that carried bytes is one of the system's routes and
// delivered what was requested, no link direction carried more than its
// rate allows in the time it was busy, the selected experts' bytes are
// those the whole-expert assignment put on Direct, Relay and the HBM cache,
// and the cache held no more experts than its budget and hit no more than
// was selected.
func TestRecordedRoutingOnTheRouteTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	policies := trace.Policies()
	for _, system := range []string{"dash", "relay-only", "direct-only", "compact-dash", "dash-asym", "shared-hbf", "h200"} {
		syn := dash.RoutingSpec{Kind: dash.RoutingSynthetic, Seed: rng.Int64N(1000), ZipfS: 2 * rng.Float64(), Repeat: rng.Float64() / 2,
			LayerCorr: rng.Float64() / 2, Tasks: 1 + rng.IntN(4), TaskOverlap: rng.Float64()}
		var cache dash.ExpertCacheSpec
		if system != "h200" { // an HBM-only package holds every expert in HBM: no cache
			cache = dash.ExpertCacheSpec{Budget: unit.Bytes(1+rng.IntN(4)) * unit.GB, Policy: policies[rng.IntN(len(policies))]}
		}
		name := fmt.Sprintf("%s/%+v/%+v", system, syn, cache)
		exp := build(t, "qwen3-30b-a3b", system, 2+rng.IntN(6), 64+rng.IntN(192), 4+rng.IntN(8), func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
			return b.Routing(syn).Execution(dash.ExecutionSpec{ExpertCache: cache})
		})
		r := run(t, exp, Options{})
		table := exp.Routes()
		kinds := map[dash.RouteKind]bool{}
		for _, rt := range table.Routes {
			kinds[rt.Kind] = true
		}
		for _, rs := range r.Routes {
			if rs.Requested > 0 && !kinds[rs.Route] {
				t.Errorf("%s: route %v carried %v, not a route of the system", name, rs.Route, rs.Requested)
			}
			if rs.Requested != rs.Delivered {
				t.Errorf("%s: route %v requested %v, delivered %v", name, rs.Route, rs.Requested, rs.Delivered)
			}
		}
		for _, l := range r.Links {
			var rate unit.BytesPerSecond
			for _, res := range table.Resources {
				if res.Kind == dash.ResourceLink && res.Pair == l.Pair && res.Label == l.Link {
					rate = res.Rate
				}
			}
			if rate == 0 && l.Bytes > 0 {
				t.Errorf("%s: link %d %s carried %v and is not in the route table", name, l.Pair, l.Link, l.Bytes)
				continue
			}
			if max := float64(rate) * l.Busy.Seconds() * (1 + 1e-9); float64(l.Bytes) > max+1 {
				t.Errorf("%s: link %d %s carried %v in %v, above its rate %v", name, l.Pair, l.Link, l.Bytes, l.Busy, rate)
			}
			if l.Busy > r.E2E {
				t.Errorf("%s: link %d %s busy %v in a run of %v", name, l.Pair, l.Link, l.Busy, r.E2E)
			}
		}
		g := r.Routing
		t.Logf("%s: %d routes, %d links, %d selected experts, cache %+v", name, len(r.Routes), len(r.Links), g.SelectedExperts, g.Cache)
		m := exp.Model()
		moe, _ := m.MoELayerSet()
		size := exp.Inventory().Layers(m)[moe[0]].RoutedExpert
		if table.HBFStacks > 0 {
			if got, want := g.DirectBytes+g.RelayBytes+g.CachedBytes, unit.Bytes(g.SelectedExperts)*size; got != want {
				t.Errorf("%s: Direct %v + Relay %v + cache %v = %v, the selected experts are %v", name, g.DirectBytes, g.RelayBytes, g.CachedBytes, got, want)
			}
		}
		// the route sets' times: the perfect split is no later than the
		// whole-expert assignment, and the cached reads take at least their
		// bytes at the HBM arrays' rate (each layer's time is rounded down
		// to the nanosecond)
		slack := Time(g.Passes * int64(len(moe)))
		if g.MakespanTime < max(g.DirectTime, g.RelayTime) || g.IdealTime > g.MakespanTime+slack {
			t.Errorf("%s: Direct %v, Relay %v, makespan %v, ideal %v", name, g.DirectTime, g.RelayTime, g.MakespanTime, g.IdealTime)
		}
		if hbm := exp.System().HBM.ArrayBandwidth * unit.BytesPerSecond(table.HBMStacks); g.IdealTime > 0 && g.RelayTime+slack < unit.TransferTime(g.CachedBytes, hbm) {
			t.Errorf("%s: the Relay set's time %v is below the cached reads' %v at the HBM arrays' %v", name, g.RelayTime, g.CachedBytes, hbm)
		}
		if c := g.Cache; c != nil {
			if unit.Bytes(c.Capacity)*size > cache.Budget || c.Hits+c.Misses != g.SelectedExperts || c.Fills > c.Misses {
				t.Errorf("%s: cache %+v against %d selected experts of %v", name, c, g.SelectedExperts, size)
			}
			if c.Policy == trace.PolicyStatic && c.Fills != 0 {
				t.Errorf("%s: a static cache filled %d", name, c.Fills)
			}
		}
	}
}
