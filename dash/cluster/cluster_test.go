package cluster_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/reference/clusters"
)

func node(t testing.TB, id string) cluster.Spec {
	t.Helper()
	s, err := clusters.Spec(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func build(t testing.TB, b cluster.Builder) cluster.Experiment {
	t.Helper()
	e, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func run(t testing.TB, e cluster.Experiment) cluster.Result {
	t.Helper()
	r, err := cluster.Run(e)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// One GPU of a cluster, with or without the rest of the node, is today's
// single-GPU simulation: the same TTFT and E2E to the nanosecond.
func TestOneGPUIsTheSingleGPURun(t *testing.T) {
	for _, c := range []struct{ cluster, gpu, model, system string }{
		{"hgx-h200", "h200-sxm", "qwen3-235b-a22b", "dash"},
		{"h100-pcie-8", "h100-pcie", "deepseek-v2", "relay-only"},
	} {
		want, err := sim.Run(dash.NewExperiment().Catalogue(reference.Catalogue).ModelID(c.model).SystemID(c.system).
			GPU(c.gpu).Batch(4).Prompt(512).Output(12).MustBuild())
		if err != nil {
			t.Fatal(err)
		}
		one := node(t, c.cluster)
		one.GPUsPerNode, one.Interconnect.Network.NICsPerNode = 1, 1
		for _, s := range []cluster.Spec{one, node(t, c.cluster)} {
			e := build(t, cluster.NewExperiment().Catalogue(reference.Catalogue).Cluster(s).Memory(c.system).
				ModelID(c.model).Parallel(cluster.ParallelSpec{Tensor: 1, Expert: 1, Pipeline: 1, Data: 1}).
				Batch(4).Prompt(512).Output(12))
			got := run(t, e)
			if got.TTFT != want.TTFT || got.E2E != want.E2E || got.Stats.CommTime != 0 {
				t.Errorf("%s on %s (%d GPUs): TTFT %v E2E %v comm %v, single GPU %v %v",
					c.model, s.ID, s.GPUs(), got.TTFT, got.E2E, got.Stats.CommTime, want.TTFT, want.E2E)
			}
		}
	}
}

func ep8(t testing.TB, b cluster.Builder) cluster.Builder {
	return b.Catalogue(reference.Catalogue).Cluster(node(t, "hgx-h200")).ModelID("qwen3-235b-a22b").
		Parallel(cluster.ParallelSpec{Tensor: 1, Expert: 8, Pipeline: 1, Data: 1}).Batch(16).Prompt(512).Output(8)
}

// Every token-expert pair of every MoE layer is processed by exactly one
// GPU: dispatched to another or kept where its token is.
func TestExpertPairsAreConserved(t *testing.T) {
	for _, r := range []cluster.RoutingSpec{{}, {Kind: cluster.RoutingZipf, ZipfS: 1, Seed: 3}} {
		e := build(t, ep8(t, cluster.NewExperiment()).Routing(r))
		res := run(t, e)
		m := e.Model()
		w := e.Workload()
		moe, _ := m.MoELayerSet()
		tokens := int64(w.Batch*w.Prompt + w.Batch*(w.Output-1))
		want := tokens * int64(m.FFN.TopK) * int64(len(moe))
		if got := res.Stats.DispatchPairs + res.Stats.LocalPairs; got != want {
			t.Errorf("routing %+v: %d pairs dispatched + %d local, want %d", r, res.Stats.DispatchPairs, res.Stats.LocalPairs, want)
		}
		if res.Stats.DispatchPairs <= 7*res.Stats.LocalPairs/2 { // 7 of 8 GPUs are elsewhere
			t.Errorf("routing %+v: %d dispatched, %d local", r, res.Stats.DispatchPairs, res.Stats.LocalPairs)
		}
	}
}

// A skewed routing distribution raises the most loaded GPU's rows and work
// under the contiguous placement, and a placement that balances the
// expected load lowers them again: its rows to about the mean, its time
// possibly below balanced routing's (skew leaves fewer distinct experts to
// read, and the paper's balanced routing reads as many as the rows fill).
func TestSkewRaisesTheStraggler(t *testing.T) {
	bal := run(t, build(t, ep8(t, cluster.NewExperiment())))
	zipf := cluster.RoutingSpec{Kind: cluster.RoutingZipf, ZipfS: 1.2, Seed: 1}
	skew := run(t, build(t, ep8(t, cluster.NewExperiment()).Routing(zipf)))
	placed := run(t, build(t, ep8(t, cluster.NewExperiment()).Routing(zipf).Placement(cluster.PlacementSpec{Policy: cluster.PlacePopularity})))
	if !(skew.Stats.GPUTime > placed.Stats.GPUTime && skew.Stats.GPUTime > bal.Stats.GPUTime) {
		t.Errorf("GPU time: balanced %v, zipf contiguous %v, zipf popularity-placed %v", bal.Stats.GPUTime, skew.Stats.GPUTime, placed.Stats.GPUTime)
	}
	imb := func(r cluster.Result) float64 { return float64(r.Stats.StragglerRows) / r.Stats.MeanRows }
	if !(imb(skew) > imb(placed) && imb(placed) >= imb(bal) && imb(placed) < 1.25) {
		t.Errorf("imbalance: balanced %v, zipf contiguous %v, zipf popularity-placed %v", imb(bal), imb(skew), imb(placed))
	}
	milder := run(t, build(t, ep8(t, cluster.NewExperiment()).Routing(cluster.RoutingSpec{Kind: cluster.RoutingZipf, ZipfS: 0.6, Seed: 1})))
	if !(milder.Stats.GPUTime < skew.Stats.GPUTime) {
		t.Errorf("zipf 0.6: %v, zipf 1.2: %v", milder.Stats.GPUTime, skew.Stats.GPUTime)
	}
}

// A faster interconnect never slows a run.
func TestFasterInterconnectIsNeverSlower(t *testing.T) {
	for _, p := range []cluster.ParallelSpec{{Tensor: 1, Expert: 8, Pipeline: 1, Data: 1}, {Tensor: 8, Expert: 1, Pipeline: 1, Data: 1},
		{Tensor: 2, Expert: 8, Pipeline: 1, Data: 1}, {Tensor: 4, Expert: 4, Pipeline: 2, Data: 1}} {
		base := node(t, "hgx-h200")
		ref := run(t, build(t, ep8(t, cluster.NewExperiment()).Parallel(p).Cluster(base)))
		if ref.Stats.CommTime <= 0 {
			t.Errorf("%v: no communication", p)
		}
		for _, scale := range []float64{1.25, 2, 8} {
			fast := base
			fast.Interconnect.ScaleUp.Link.Rate = unit.BytesPerSecond(float64(fast.Interconnect.ScaleUp.Link.Rate) * scale)
			fast.Interconnect.ScaleUp.Link.Latency = unit.Duration(float64(fast.Interconnect.ScaleUp.Link.Latency) / scale)
			got := run(t, build(t, ep8(t, cluster.NewExperiment()).Parallel(p).Cluster(fast)))
			if got.E2E > ref.E2E || got.TTFT > ref.TTFT {
				t.Errorf("%v, scale-up x%v: E2E %v TTFT %v, slower than %v %v", p, scale, got.E2E, got.TTFT, ref.E2E, ref.TTFT)
			}
		}
	}
}

// Bad input is refused with the field named.
func TestBadInputNamesTheField(t *testing.T) {
	b := ep8(t, cluster.NewExperiment())
	for _, c := range []struct {
		b    cluster.Builder
		want string
	}{
		{b.Parallel(cluster.ParallelSpec{Tensor: 3, Expert: 1, Pipeline: 1, Data: 1}), "parallel.tensor = 3: does not divide attention.heads = 64"},
		{b.Parallel(cluster.ParallelSpec{Tensor: 1, Expert: 8, Pipeline: 5, Data: 1}), "parallel.pipeline = 5: does not divide num_layers = 94"},
		{b.Parallel(cluster.ParallelSpec{Tensor: 1, Expert: 8, Pipeline: 1, Data: 2}), "needs 16 GPUs, cluster hgx-h200 has 8"},
		{b.Parallel(cluster.ParallelSpec{Tensor: 1, Expert: 256, Pipeline: 1, Data: 1}), "parallel.expert = 256: more GPUs than the 128 routed experts"},
		{b.Placement(cluster.PlacementSpec{Slots: 200}), "placement.slots = 200: more experts per GPU than the 128 routed experts"},
		{b.Placement(cluster.PlacementSpec{Slots: 8}), "cannot hold the 128 routed experts"},
		{b.Placement(cluster.PlacementSpec{Policy: "random"}), `placement.policy = "random"`},
		{b.Routing(cluster.RoutingSpec{Kind: cluster.RoutingZipf}), "routing.zipf_s = 0"},
		{b.Batch(12), "workload.batch = 12: not a multiple of the 8 attention groups"},
	} {
		_, err := c.b.Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error with %q, got %v", c.want, err)
		}
	}
	// A model that fits nowhere: DeepSeek-V3 on one GPU of one Compact-DASH pair.
	one := node(t, "hgx-h100")
	_, err := cluster.NewExperiment().Catalogue(reference.Catalogue).Cluster(one).Memory("compact-dash").ModelID("deepseek-v3").Build()
	var ce *dash.CapacityError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "stage 0") {
		t.Errorf("DeepSeek-V3 on one Compact-DASH GPU: %v", err)
	}
	// Zero-rate and malformed interconnects.
	for _, c := range []struct{ edit, want string }{
		{"rate: 450 GB/s", "interconnect.scale_up.rate = 0 B/s"},
		{"rate: 50 GB/s", "interconnect.network.rate = 0 B/s"},
		{"nics_per_node: 8", "interconnect.network.nics_per_node = 3"},
		{"kind: nvswitch", `interconnect.scale_up.kind = "torus"`},
	} {
		data, err := clusters.YAML("hgx-h100")
		if err != nil {
			t.Fatal(err)
		}
		repl := map[string]string{"rate: 450 GB/s": "rate: 0 GB/s", "rate: 50 GB/s": "rate: 0 GB/s",
			"nics_per_node: 8": "nics_per_node: 3", "kind: nvswitch": "kind: torus"}[c.edit]
		_, err = cluster.DecodeSpec(strings.NewReader(strings.Replace(string(data), c.edit, repl, 1)), "edited.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s -> %s: want %q, got %v", c.edit, repl, c.want, err)
		}
	}
}
