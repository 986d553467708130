package reproduce

import (
	"fmt"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
)

// TraceLookaheadLayer traces decode step 1, layer layer, of a model on
// DASH at B/L_in = 1/prompt under the reading and t_R, in the three arms
// of LookaheadLayer.
func TraceLookaheadLayer(model string, r dash.Reading, tr unit.Duration, prompt, layer int) (summary.LookaheadLayer, error) {
	out := summary.LookaheadLayer{Model: model, TRead: tr, Reading: r}
	arms := []struct {
		name             string
		lookahead, early bool
	}{{"conventional", false, false}, {"lookahead", true, false}, {"lookahead + early delivery", true, true}}
	for _, a := range arms {
		exp, err := Build(summary.Case{Model: model, System: "dash", Batch: 1, Prompt: prompt, Output: 3, Reading: r,
			Knobs: []dash.Setting{knob("hbf.t_read", tr), knob("execution.lookahead", a.lookahead),
				knob("execution.early_delivery", a.early), knob("execution.early_delivery_buffer", unit.Bytes(0))}})
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
		run := summary.LayerRun{Name: a.name, Result: res}
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
			run.Classes = append(run.Classes, summary.ClassSpan{Class: c})
		}
		for _, o := range ops {
			i, ok := idx[o.Class]
			if !ok {
				i = len(run.Classes)
				idx[o.Class] = i
				run.Classes = append(run.Classes, summary.ClassSpan{Class: o.Class})
			}
			run.Classes[i].Time += o.End - o.Start
		}
		out.Runs = append(out.Runs, run)
	}
	return out, nil
}
