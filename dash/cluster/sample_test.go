package cluster_test

import (
	"testing"

	"github.com/dashlab/dashlab/dash/cluster"
)

// Sampled loads draw every pass's token-expert pairs: every pair is still
// processed once, the most loaded GPU carries at least the mean (more than
// it under balanced popularity, where the expectation spreads the rows
// evenly), the dispatch's bytes follow the rows sent, and a run is
// deterministic.
func TestSampledLoads(t *testing.T) {
	for _, c := range []struct {
		p  cluster.ParallelSpec
		rt cluster.RoutingSpec
		d  cluster.DispatchSpec
	}{
		{cluster.ParallelSpec{Tensor: 1, Expert: 8, Pipeline: 1, Data: 1}, cluster.RoutingSpec{}, cluster.DispatchSpec{}},
		{cluster.ParallelSpec{Tensor: 1, Expert: 8, Pipeline: 1, Data: 1}, cluster.RoutingSpec{Kind: cluster.RoutingZipf, ZipfS: 1, Seed: 3}, cluster.DispatchSpec{Dedup: true}},
		{cluster.ParallelSpec{Tensor: 2, Expert: 8, Pipeline: 1, Data: 1}, cluster.RoutingSpec{Seed: 5}, cluster.DispatchSpec{DType: cluster.DispatchFP8}},
		{cluster.ParallelSpec{Tensor: 8, Expert: 1, Pipeline: 1, Data: 1}, cluster.RoutingSpec{}, cluster.DispatchSpec{}},
	} {
		b := ep8(t, cluster.NewExperiment()).Parallel(c.p).Dispatch(c.d).Batch(4 * c.p.AttentionGroups())
		exp := run(t, build(t, b.Routing(c.rt)))
		rt := c.rt
		rt.Loads = cluster.LoadsSampled
		e := build(t, b.Routing(rt))
		got := run(t, e)
		if again := run(t, e); again.E2E != got.E2E || again.Stats.StragglerRows != got.Stats.StragglerRows || again.Stats.DispatchRows != got.Stats.DispatchRows {
			t.Errorf("%v %+v: two runs differ: %v, %v", c.p, rt, got.E2E, again.E2E)
		}
		if got.Stats.DispatchPairs+got.Stats.LocalPairs != exp.Stats.DispatchPairs+exp.Stats.LocalPairs {
			t.Errorf("%v %+v: %d + %d pairs, expected loads %d + %d", c.p, rt, got.Stats.DispatchPairs, got.Stats.LocalPairs, exp.Stats.DispatchPairs, exp.Stats.LocalPairs)
		}
		if float64(got.Stats.StragglerRows) < got.Stats.MeanRows || float64(exp.Stats.StragglerRows) < exp.Stats.MeanRows {
			t.Errorf("%v %+v: straggler rows %d below the mean %v (expected loads: %d, %v)", c.p, rt, got.Stats.StragglerRows, got.Stats.MeanRows, exp.Stats.StragglerRows, exp.Stats.MeanRows)
		}
		if c.p.Expert > 1 && c.rt.Kind == "" && !(float64(got.Stats.StragglerRows) > float64(exp.Stats.StragglerRows)) {
			t.Errorf("%v balanced: sampled straggler rows %d, expected %d", c.p, got.Stats.StragglerRows, exp.Stats.StragglerRows)
		}
		if got.Stats.DispatchRows > got.Stats.DispatchPairs || !c.d.Dedup && got.Stats.DispatchRows != got.Stats.DispatchPairs {
			t.Errorf("%v %+v: %d rows sent for %d pairs", c.p, c.d, got.Stats.DispatchRows, got.Stats.DispatchPairs)
		}
		t.Logf("%v %+v: imbalance expected %.3f sampled %.3f; TPOT %v -> %v", c.p, rt, float64(exp.Stats.StragglerRows)/exp.Stats.MeanRows,
			float64(got.Stats.StragglerRows)/got.Stats.MeanRows, exp.TPOT, got.TPOT)
	}
}
