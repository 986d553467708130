package sim

import (
	"math"
	"testing"

	"github.com/dashlab/dashlab/dash"
	trace "github.com/dashlab/dashlab/dash/routing"
	"github.com/dashlab/dashlab/dash/unit"
)

// The routing statistics time the cached experts' reads as the engine
// reads them: every token selects the same experts, a static cache holds
// them all, so a decode step's MoE layer reads only from HBM, over both
// HBM stacks' read routes, DRAM array bound (1.2 TB/s a stack on the
// paper's parts, below the 1.6 TB/s link). The statistics' Relay time of
// a layer is the engine's: the span of the HBM reads of the expert block
// in the simulated timeline, within the chunk's start-up; the link's rate
// would make it a quarter shorter.
func TestCachedReadsAtTheArrayRate(t *testing.T) {
	const b, in, out = 4, 64, 6
	const layer, pass = 5, 2
	base := build(t, "qwen3-30b-a3b", "dash", b, in, out)
	tr := sameExperts(t, base)
	exp := build(t, "qwen3-30b-a3b", "dash", b, in, out, func(x dash.ExperimentBuilder) dash.ExperimentBuilder {
		return x.RoutingTrace(tr, false).Execution(dash.ExecutionSpec{ExpertCache: dash.ExpertCacheSpec{Budget: 4 * unit.GB, Policy: trace.PolicyStatic}})
	})
	r := run(t, exp, Options{Trace: &TraceSpec{Pass: pass, Layer: layer}})
	g := r.Routing
	m := exp.Model()
	moe, _ := m.MoELayerSet()
	if g.Cache == nil || g.Cache.Misses != 0 || g.DirectBytes+g.RelayBytes != 0 {
		t.Fatalf("the cache does not serve every selected expert: %+v, Direct %v, Relay %v", g.Cache, g.DirectBytes, g.RelayBytes)
	}
	layers := g.Passes * int64(len(moe))
	perLayer := g.RelayTime / Time(layers)
	if g.DirectTime != 0 || g.MakespanTime != g.RelayTime || g.IdealTime != g.RelayTime || g.Imbalance != 0 {
		t.Errorf("all from HBM: Direct %v, Relay %v, makespan %v, ideal %v, imbalance %g", g.DirectTime, g.RelayTime, g.MakespanTime, g.IdealTime, g.Imbalance)
	}
	var start, end Time = math.MaxInt64, 0
	var bytes unit.Bytes
	for _, s := range r.Timeline.Spans {
		if s.Route == RouteHBM && s.Class == ClassExperts {
			start, end = min(start, s.Start), max(end, s.End)
			bytes += s.Bytes
		}
	}
	size := exp.Inventory().Layers(m)[layer].RoutedExpert
	if want := unit.Bytes(m.FFN.TopK) * size; bytes != want {
		t.Fatalf("layer %d of pass %d read %v of experts from HBM, want %v", layer, pass, bytes, want)
	}
	engine := end - start
	array := exp.System().HBM.ArrayBandwidth * unit.BytesPerSecond(exp.System().Topology.HBMStacks())
	t.Logf("a layer's %v from HBM: the engine's span %v, the statistics' %v, at the array rate %v", bytes, engine, perLayer, unit.TransferTime(bytes, array))
	if d := float64(perLayer)/float64(engine) - 1; math.Abs(d) > 0.08 {
		t.Errorf("the statistics time a layer's cached reads %v, the engine %v (%+.1f%%)", perLayer, engine, 100*d)
	}
}

// Serving's decode-step percentiles are the fixed-batch runner's: a
// Passer running a fixed batch's passes (per-token routing, each row its
// request) reports the same steps, and a pass that also prefills is not a
// decode step.
func TestPasserDecodeStepPercentiles(t *testing.T) {
	const b, in, out = 4, 64, 12
	syn := dash.RoutingSpec{Kind: dash.RoutingSynthetic, Seed: 3, ZipfS: 1.2, Repeat: 0.3}
	exp := build(t, "qwen3-30b-a3b", "dash", b, in, out, func(x dash.ExperimentBuilder) dash.ExperimentBuilder { return x.Routing(syn) })
	want := run(t, exp, Options{}).Routing
	p, err := NewPasser(exp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]Row, b)
	for i := range rows {
		rows[i] = Row{Tokens: in, Prompt: in, Request: i}
	}
	if _, err := p.Run(rows); err != nil {
		t.Fatal(err)
	}
	for s := 1; s < out; s++ {
		for i := range rows {
			rows[i] = Row{Tokens: 1, Cached: in + s - 1, Prompt: in, Request: i}
		}
		if _, err := p.Run(rows); err != nil {
			t.Fatal(err)
		}
	}
	got := p.Routing()
	if got.DecodeSteps != int64(out-1) || got.StepP50 != want.StepP50 || got.StepP90 != want.StepP90 || got.StepP99 != want.StepP99 || got.StepMax != want.StepMax {
		t.Errorf("Passer: %d steps, P50 %v P90 %v P99 %v max %v; fixed batch: %d, %v %v %v %v", got.DecodeSteps, got.StepP50, got.StepP90, got.StepP99, got.StepMax,
			want.DecodeSteps, want.StepP50, want.StepP90, want.StepP99, want.StepMax)
	}
	// a long pass that prefills a new request beside the decodes
	mixed := append(rows[:b:b], Row{Tokens: 2048, Prompt: 2048, Request: b})
	for i := range b {
		mixed[i].Cached++
	}
	r, err := p.Run(mixed)
	if err != nil {
		t.Fatal(err)
	}
	if g := p.Routing(); g.DecodeSteps != got.DecodeSteps || g.StepMax != got.StepMax || r.Duration <= got.StepMax {
		t.Errorf("a pass that prefills (%v) counted as a decode step: %d steps, max %v", r.Duration, g.DecodeSteps, g.StepMax)
	}
}
