package reproduce

import (
	"fmt"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

// LayerRun is one traced decode layer of a lookahead study arm.
type LayerRun struct {
	// Name says which arm ("conventional", "lookahead", ...).
	Name string
	// Result holds the traced timeline (Result.Timeline).
	Result sim.Result
	// Layer is the traced layer's duration, from its first operator's start
	// to its last operator's end.
	Layer unit.Duration
	// Classes is the operator time per class, in the order the classes
	// first appear in the conventional flow.
	Classes []ClassSpan
}

// ClassSpan is the GPU time one operator class takes in a traced layer.
type ClassSpan struct {
	// Class is the operator class (sim.ClassRouter, sim.ClassExperts, ...).
	Class sim.OpClass
	// Time is the summed duration of the class's operators.
	Time unit.Duration
}

// LookaheadLayer explains a lookahead result with one traced decode layer:
// the layer's bytes that matter (the router and the attention-routing
// matrix lookahead adds, the shared experts sensed ahead in either flow,
// the base-die SRAM that can hold data before the MoE block starts) and
// the traced layer under conventional selection, lookahead selection, and
// lookahead with early expert delivery into the GPU's L2.
type LookaheadLayer struct {
	// Model is the catalogue id; TRead the HBF read latency; Reading the
	// reading of t_R.
	Model   string
	TRead   unit.Duration
	Reading dash.Reading
	// RouterBytes is the router matrix W_r of one MoE layer;
	// AttentionRoutingBytes the matrix W_out diag(gamma) W_r that lookahead
	// reads in addition (§V-C).
	RouterBytes, AttentionRoutingBytes unit.Bytes
	// SharedExpertBytes is the layer's shared experts (predictable, sensed
	// ahead of the MoE block in both flows); RoutedBytes the selected
	// experts' bytes at this batch (top-k experts at B = 1).
	SharedExpertBytes, RoutedBytes unit.Bytes
	// StagingSRAM is the base-die SRAM of the whole package that can hold
	// sensed expert data before the MoE block starts (HBF transfer regions
	// plus HBM relay regions, every stack).
	StagingSRAM unit.Bytes
	// Runs are the traced arms: conventional, lookahead, lookahead with
	// early delivery.
	Runs []LayerRun
}

// TraceLookaheadLayer traces decode step 1, layer layer, of a model on
// DASH at B/L_in = 1/prompt under the reading and t_R, in the three arms
// of LookaheadLayer.
func TraceLookaheadLayer(model string, r dash.Reading, tr unit.Duration, prompt, layer int) (LookaheadLayer, error) {
	out := LookaheadLayer{Model: model, TRead: tr, Reading: r}
	arms := []struct {
		name             string
		lookahead, early bool
	}{{"conventional", false, false}, {"lookahead", true, false}, {"lookahead + early delivery", true, true}}
	for _, a := range arms {
		exp, err := Build(Case{Model: model, System: "dash", Batch: 1, Prompt: prompt, Output: 3, Reading: r,
			Modify: func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
				return b.TRead(tr).Lookahead(a.lookahead).EarlyDelivery(a.early, 0)
			}})
		if err != nil {
			return out, err
		}
		if len(out.Runs) == 0 {
			m, s := exp.Model(), exp.System()
			lw := exp.Inventory().Layers(m)[layer]
			if !lw.MoE {
				return out, fmt.Errorf("%s layer %d is not an MoE layer", model, layer)
			}
			out.RouterBytes, out.SharedExpertBytes = lw.Router, lw.SharedExperts
			out.AttentionRoutingBytes = dash.LookaheadRouterBytes(m)
			out.RoutedBytes = unit.Bytes(m.FFN.TopK) * lw.RoutedExpert
			out.StagingSRAM = unit.Bytes(s.Topology.Pairs) * (s.HBF.SRAM.Usable() + s.HBM.RelaySRAM.Usable())
		}
		res, err := sim.RunWith(exp, sim.Options{Trace: &sim.TraceSpec{Pass: 1, Layer: layer}})
		if err != nil {
			return out, err
		}
		if res.Timeline == nil || len(res.Timeline.Ops) == 0 {
			return out, fmt.Errorf("%s: no timeline for layer %d", model, layer)
		}
		run := LayerRun{Name: a.name, Result: res}
		ops := res.Timeline.Ops
		run.Layer = ops[len(ops)-1].End - ops[0].Start
		var order []sim.OpClass
		if len(out.Runs) > 0 {
			for _, c := range out.Runs[0].Classes {
				order = append(order, c.Class)
			}
		}
		idx := map[sim.OpClass]int{}
		for i, c := range order {
			idx[c] = i
			run.Classes = append(run.Classes, ClassSpan{Class: c})
		}
		for _, o := range ops {
			i, ok := idx[o.Class]
			if !ok {
				i = len(run.Classes)
				idx[o.Class] = i
				run.Classes = append(run.Classes, ClassSpan{Class: o.Class})
			}
			run.Classes[i].Time += o.End - o.Start
		}
		out.Runs = append(out.Runs, run)
	}
	return out, nil
}

// ClassTime is the time of an operator class in run i (0 when absent).
func (l LookaheadLayer) ClassTime(i int, class sim.OpClass) unit.Duration {
	for _, c := range l.Runs[i].Classes {
		if c.Class == class {
			return c.Time
		}
	}
	return 0
}
