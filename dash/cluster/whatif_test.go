package cluster_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
)

// Random what-ifs of the cluster (interconnect rates and latencies, layout,
// skew, expected or sampled loads, placement, dispatch format, memory) hold the physics: every
// token-expert pair is processed once, a faster port never slows a run, a
// knob of the table doubled moves the run the way its tag says, the
// collectives' time is part of the run's, a deduplicated or FP8 dispatch
// sends no more rows and never slows the run, and an HBM expert cache on
// every GPU moves expert reads from HBF to HBM byte for byte.
func TestRandomWhatIfs(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 1))
	layouts := []cluster.ParallelSpec{{Tensor: 1, Expert: 8, Pipeline: 1, Data: 1}, {Tensor: 2, Expert: 8, Pipeline: 1, Data: 1},
		{Tensor: 8, Expert: 1, Pipeline: 1, Data: 1}, {Tensor: 4, Expert: 4, Pipeline: 2, Data: 1}, {Tensor: 1, Expert: 16, Pipeline: 1, Data: 1}}
	policies := []string{cluster.PlaceContiguous, cluster.PlacePopularity, cluster.PlaceReplicated}
	var monotone []dash.Knob // the cluster's knobs whose larger values physics orders
	for _, k := range dash.KnobsOf(cluster.Spec{}) {
		if k.Larger != 0 {
			monotone = append(monotone, k)
		}
	}
	n := 12
	if testing.Short() {
		n = 4
	}
	for i := range n {
		s := node(t, []string{"hgx-h200", "h100-pcie-8"}[r.IntN(2)]).WithNodes(2)
		ic := &s.Interconnect
		scale := func(x unit.BytesPerSecond) unit.BytesPerSecond {
			return unit.BytesPerSecond(float64(x) * (0.25 + 2*r.Float64()))
		}
		ic.ScaleUp.Link.Rate, ic.PCIe.Rate, ic.Network.Link.Rate = scale(ic.ScaleUp.Link.Rate), scale(ic.PCIe.Rate), scale(ic.Network.Link.Rate)
		ic.CollectiveLatency = unit.Duration(r.IntN(20000))
		p := layouts[r.IntN(len(layouts))]
		rt := cluster.RoutingSpec{}
		if r.IntN(2) == 0 {
			rt = cluster.RoutingSpec{Kind: cluster.RoutingZipf, ZipfS: 0.2 + 1.5*r.Float64(), Seed: r.Uint64()}
		}
		if r.IntN(4) == 0 {
			rt.Loads = cluster.LoadsSampled
		}
		pl := cluster.PlacementSpec{Policy: policies[r.IntN(len(policies))]}
		if pl.Policy == cluster.PlaceReplicated && p.Expert > 1 {
			pl.Slots = 128/p.Expert + 1 + r.IntN(4)
		}
		disp := cluster.DispatchSpec{Dedup: r.IntN(2) == 0, DType: []string{"", cluster.DispatchFP8}[r.IntN(2)]}
		mem := []string{"dash", "relay-only", ""}[r.IntN(3)]
		batch := p.AttentionGroups() * (1 + r.IntN(8))
		b := cluster.NewExperiment().Catalogue(reference.Catalogue).Cluster(s).ModelID("qwen3-235b-a22b").Parallel(p).
			Routing(rt).Placement(pl).Dispatch(disp).Batch(batch).Prompt(128 + r.IntN(900)).Output(2 + r.IntN(6))
		if mem != "" {
			b = b.Memory(mem)
		}
		e, err := b.Build()
		if err != nil {
			t.Fatalf("case %d (%v, %s, %+v): %v", i, p, mem, pl, err)
		}
		res := run(t, e)
		w := e.Workload()
		moe, _ := e.Model().MoELayerSet()
		pairs := int64(w.Batch*w.Prompt+w.Batch*(w.Output-1)) * int64(e.Model().FFN.TopK) * int64(len(moe))
		if p.Expert > 1 && res.Stats.DispatchPairs+res.Stats.LocalPairs != pairs {
			t.Errorf("case %d: %d + %d pairs, want %d", i, res.Stats.DispatchPairs, res.Stats.LocalPairs, pairs)
		}
		if res.Stats.DispatchRows > res.Stats.DispatchPairs || !disp.Dedup && res.Stats.DispatchRows != res.Stats.DispatchPairs {
			t.Errorf("case %d (%+v): %d rows sent for %d pairs dispatched", i, disp, res.Stats.DispatchRows, res.Stats.DispatchPairs)
		}
		if mem != "" && r.IntN(2) == 0 { // an HBM expert cache on every GPU moves expert reads from HBF to HBM, byte for byte
			c := run(t, build(t, b.Set("execution.expert_cache.budget", unit.Bytes(1+r.IntN(8))*unit.GB).Set("execution.expert_cache.policy", "static")))
			all := func(x cluster.Result) unit.Bytes { return x.Stats.HBMRead + x.Stats.DirectRead + x.Stats.RelayRead }
			if c.Stats.CachedExperts <= 0 || all(c) != all(res) || c.Stats.DirectRead+c.Stats.RelayRead >= res.Stats.DirectRead+res.Stats.RelayRead ||
				c.Stats.DispatchPairs != res.Stats.DispatchPairs {
				t.Errorf("case %d (%v, %s): cache served %d, read %v (HBM %v), pairs %d; without %v (HBM %v), pairs %d", i, p, mem,
					c.Stats.CachedExperts, all(c), c.Stats.HBMRead, c.Stats.DispatchPairs, all(res), res.Stats.HBMRead, res.Stats.DispatchPairs)
			}
		}
		if disp != (cluster.DispatchSpec{}) { // the plain dispatch moves at least as much and is never faster
			plain := run(t, build(t, b.Dispatch(cluster.DispatchSpec{})))
			if plain.E2E < res.E2E || plain.TTFT < res.TTFT || plain.Stats.DispatchRows < res.Stats.DispatchRows || plain.Stats.GPUTime != res.Stats.GPUTime {
				t.Errorf("case %d (%v, %+v): E2E %v TTFT %v rows %d GPU %v, plain dispatch %v %v %d %v", i, p, disp, res.E2E, res.TTFT,
					res.Stats.DispatchRows, res.Stats.GPUTime, plain.E2E, plain.TTFT, plain.Stats.DispatchRows, plain.Stats.GPUTime)
			}
		}
		if res.Stats.CommTime < 0 || res.Stats.CommTime > res.E2E*unit.Duration(p.Micro()) || res.CommShare < 0 {
			t.Errorf("case %d: collectives %v of E2E %v", i, res.Stats.CommTime, res.E2E)
		}
		fast := s
		f := &fast.Interconnect
		f.ScaleUp.Link.Rate, f.PCIe.Rate, f.Network.Link.Rate = 2*f.ScaleUp.Link.Rate, 2*f.PCIe.Rate, 2*f.Network.Link.Rate
		fe, err := b.Cluster(fast).Build()
		if err != nil {
			t.Fatal(err)
		}
		if got := run(t, fe); got.E2E > res.E2E || got.TTFT > res.TTFT {
			t.Errorf("case %d (%v): twice the port rates: E2E %v TTFT %v, slower than %v %v", i, p, got.E2E, got.TTFT, res.E2E, res.TTFT)
		}
		// one knob of the table that says what a larger value does, doubled
		k := monotone[r.IntN(len(monotone))]
		v, _ := k.Get(dash.KnobTarget{Parts: []any{&s}})
		x := reflect.ValueOf(v)
		y := reflect.New(x.Type()).Elem()
		if x.CanFloat() {
			y.SetFloat(2 * x.Float())
		} else {
			y.SetInt(2*x.Int() + 1000)
		}
		ke, err := b.Set(k.Path, y.Interface()).Build()
		if err != nil {
			t.Fatal(err)
		}
		if got := run(t, ke); k.Larger == dash.Faster && (got.E2E > res.E2E || got.TTFT > res.TTFT) ||
			k.Larger == dash.Slower && (got.E2E < res.E2E || got.TTFT < res.TTFT) {
			t.Errorf("case %d (%v): %s %v -> %v (larger is %v): E2E %v TTFT %v against %v %v", i, p, k.Path, v, y.Interface(), k.Larger, got.E2E, got.TTFT, res.E2E, res.TTFT)
		}
	}
}
