package cluster_test

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/dash/unit"
)

// A cluster GPU's HBM expert cache (execution.expert_cache on every GPU,
// static) serves some of its expert reads from HBM: the bytes read are the
// same, fewer come from HBF, a larger budget never serves fewer, the
// expert work is unchanged, and lru or lfu is refused naming the field.
func TestClusterExpertCache(t *testing.T) {
	for _, c := range []struct {
		p  cluster.ParallelSpec
		rt cluster.RoutingSpec
	}{
		{cluster.ParallelSpec{Tensor: 1, Expert: 8, Pipeline: 1, Data: 1}, cluster.RoutingSpec{}},
		{cluster.ParallelSpec{Tensor: 1, Expert: 8, Pipeline: 1, Data: 1}, cluster.RoutingSpec{Kind: cluster.RoutingZipf, ZipfS: 1.2, Seed: 1}},
		{cluster.ParallelSpec{Tensor: 8, Expert: 1, Pipeline: 1, Data: 1}, cluster.RoutingSpec{}},
		{cluster.ParallelSpec{Tensor: 4, Expert: 4, Pipeline: 2, Data: 1}, cluster.RoutingSpec{Kind: cluster.RoutingZipf, ZipfS: 0.8, Seed: 2}},
	} {
		b := ep8(t, cluster.NewExperiment()).Memory("dash").Parallel(c.p).Routing(c.rt).Batch(8 * c.p.AttentionGroups())
		ref := run(t, build(t, b))
		if ref.Stats.CachedExperts != 0 {
			t.Errorf("%v: no cache served %d experts", c.p, ref.Stats.CachedExperts)
		}
		prev := ref
		for _, budget := range []unit.Bytes{unit.GB, 4 * unit.GB, 16 * unit.GB} {
			got := run(t, build(t, b.Set("execution.expert_cache.budget", budget).Set("execution.expert_cache.policy", "static")))
			all := func(r cluster.Result) unit.Bytes { return r.Stats.HBMRead + r.Stats.DirectRead + r.Stats.RelayRead }
			hbf := func(r cluster.Result) unit.Bytes { return r.Stats.DirectRead + r.Stats.RelayRead }
			if got.Stats.CachedExperts <= prev.Stats.CachedExperts || all(got) != all(ref) || hbf(got) >= hbf(prev) ||
				got.Stats.DispatchPairs != ref.Stats.DispatchPairs {
				t.Errorf("%v %+v, budget %v: %d cached, read %v (HBF %v), pairs %d; smaller budget %d cached, HBF %v; no cache read %v, pairs %d",
					c.p, c.rt, budget, got.Stats.CachedExperts, all(got), hbf(got), got.Stats.DispatchPairs,
					prev.Stats.CachedExperts, hbf(prev), all(ref), ref.Stats.DispatchPairs)
			}
			prev = got
		}
	}
	_, err := ep8(t, cluster.NewExperiment()).Memory("dash").Set("execution.expert_cache.budget", 4*unit.GB).Build()
	if err == nil || !strings.Contains(err.Error(), "execution.expert_cache.policy") {
		t.Errorf("an lru cache on a cluster GPU: %v", err)
	}
}
