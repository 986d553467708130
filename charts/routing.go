package charts

import (
	"errors"
	"fmt"
	"math"

	"github.com/dashlab/dashlab/dash/routing"
	"github.com/dashlab/dashlab/summary"
)

// RoutingSkew draws a routing trace's skew per MoE layer (routing.Analyze):
// the hottest expert's load over the balanced share (DeepSeek-V3's Fig. 9
// measure), and the share of consecutive tokens repeating their first
// choice or sharing an expert (Mixtral's Table 5 measures) and of first
// choices the previous layer's predicts (ExFlow's affinity), each beside
// its value under uniform routing.
func RoutingSkew(id, trace string, st routing.Stats) ([]Chart, error) {
	if len(st.Layers) == 0 {
		return nil, errors.New("charts: RoutingSkew: no layers")
	}
	var hot, first, anyRep, next []Point
	for i, l := range st.Layers {
		x := float64(l)
		hot = append(hot, Point{X: x, Y: st.HotLoad[i]})
		first = append(first, Point{X: x, Y: st.FirstRepeat[i]})
		anyRep = append(anyRep, Point{X: x, Y: st.AnyRepeat[i]})
		if i > 0 {
			next = append(next, Point{X: x, Y: st.NextLayer[i]})
		}
	}
	sub := fmt.Sprintf("%s: %d tokens, top-%d of %d experts", trace, st.Tokens, st.TopK, st.Experts)
	a, err := Lines(LineSpec{Common: Common{ID: id + "_hot", Title: "Hottest expert's load per MoE layer", Subtitle: sub},
		XName: "Decoder layer", YName: "Load (x balanced share)", Series: []XYSeries{{Name: "hottest expert", Points: hot, Color: Palette[0]}},
		RefLines: []RefLine{{Name: "balanced: 1", Y: 1}, {Name: fmt.Sprintf("cap E/k: %g", float64(st.Experts)/float64(max(1, st.TopK))), Y: float64(st.Experts) / float64(max(1, st.TopK)), Color: "#9aa0a6"}}})
	if err != nil {
		return nil, err
	}
	b, err := Lines(LineSpec{Common: Common{ID: id + "_locality", Title: "Temporal and cross-layer locality per MoE layer", Subtitle: sub},
		XName: "Decoder layer", YName: "Share of tokens",
		Series: []XYSeries{{Name: "first choice repeats the previous token's", Points: first, Color: Palette[1]},
			{Name: "an expert shared with the previous token", Points: anyRep, Color: Palette[2]},
			{Name: "first choice predicted by the previous layer's", Points: next, Color: Palette[3]}},
		RefLines: []RefLine{{Name: fmt.Sprintf("uniform, first choice: %.3f", st.FirstRepeatRandom), Y: st.FirstRepeatRandom, Color: Palette[1]},
			{Name: fmt.Sprintf("uniform, any expert: %.3f", st.AnyRepeatRandom), Y: st.AnyRepeatRandom, Color: Palette[2]}}})
	if err != nil {
		return nil, err
	}
	return []Chart{a, b}, nil
}

// RoutingFigure draws a routing study (beyond the paper): the trace's skew
// per layer (RoutingSkew), TPOT and the decode-step tail of every case, the
// Direct and Relay busy time of DASH's whole-expert assignment (§VI-E)
// against a perfect split, and the cases' table with the expert cache's
// hits and the decode-KV budget it leaves; then the study's routing.* rows
// (simulated only).
func RoutingFigure(s summary.RoutingStudy) (Figure, error) {
	if len(s.Cases) == 0 {
		return Figure{}, errors.New("charts: RoutingFigure: no cases")
	}
	id := "routing_" + SanitizeID(s.ID)
	fig := Figure{ID: id, Title: fmt.Sprintf("%s under skewed routing and an HBM expert cache", ShortModelName(s.Model)),
		Caption: "The paper assigns whole experts to the Direct or the Relay route (§VI-E) and evaluates it under balanced routing only. " +
			"Here the same fixed batch replays per-token routing (a trace, synthetic Zipf skews) and keeps experts in an HBM cache " +
			"(its budget taken from the decode KV's); the engine reads every selected expert whole, as under balanced routing."}
	if s.Trace != "" && len(s.Stats.Layers) > 0 {
		cs, err := RoutingSkew(id+"_skew", s.Trace, s.Stats)
		if err != nil {
			return Figure{}, err
		}
		fig.Charts = append(fig.Charts, cs...)
	}
	sub := WorkloadLabel(s.System, s.Batch, s.Prompt, s.Output)
	var cats []string
	tpot, p50, p99 := make([]float64, len(s.Cases)), make([]float64, len(s.Cases)), make([]float64, len(s.Cases))
	var td, tr, ideal []float64
	var imbCats []string
	var rows [][]string
	for i, c := range s.Cases {
		r := c.Result
		cats = append(cats, c.Label)
		tpot[i], p50[i], p99[i] = r.TPOT.Milliseconds(), math.NaN(), math.NaN()
		row := []string{c.Label, SystemName(r.System), Dur(r.TPOT), "-", "-", "-", "-", "-", "-", trimF(float64(r.KV.BudgetHBM)/1e9, 2)}
		if g := r.Routing; g != nil {
			p50[i], p99[i] = float64(g.StepP50)/1e6, float64(g.StepP99)/1e6
			row[3], row[4], row[5] = Dur(g.StepP50), Dur(g.StepP99), trimF(g.DistinctMean, 2)
			if g.IdealTime > 0 {
				imbCats = append(imbCats, c.Label)
				td, tr, ideal = append(td, float64(g.DirectTime)/1e6), append(tr, float64(g.RelayTime)/1e6), append(ideal, float64(g.IdealTime)/1e6)
				row[6] = trimF(100*g.Imbalance, 1) + "%"
			}
			row[7] = fmt.Sprintf("%v / %v / %v", g.DirectBytes, g.RelayBytes, g.CachedBytes)
			if cc := g.Cache; cc != nil {
				row[8] = fmt.Sprintf("%s%% of %d experts held (%d fills)", trimF(100*cc.HitRate, 1), cc.Capacity, cc.Fills)
			}
		}
		rows = append(rows, row)
	}
	bars, err := GroupedBar(BarSpec{Common: Common{ID: id + "_tpot", Title: "TPOT and the decode-step tail per routing case", Subtitle: sub, Height: "560px"},
		XName: "Case", YName: "Time (ms)", Categories: cats, LabelRotate: 25,
		Series: []Series{{Name: "TPOT", Values: tpot}, {Name: "decode step P50", Values: p50}, {Name: "decode step P99", Values: p99}}})
	if err != nil {
		return Figure{}, err
	}
	fig.Charts = append(fig.Charts, bars)
	if len(imbCats) > 0 {
		imb, err := GroupedBar(BarSpec{Common: Common{ID: id + "_routes", Title: "Whole-expert assignment: Direct and Relay busy time against a perfect split", Subtitle: sub, Height: "560px"},
			XName: "Case", YName: "Expert delivery time summed over the run (ms)", Categories: imbCats, LabelRotate: 25,
			Series: []Series{{Name: "T_Direct", Values: td}, {Name: "T_Relay (with HBM-cache reads)", Values: tr}, {Name: "perfect split", Values: ideal}}})
		if err != nil {
			return Figure{}, err
		}
		fig.Charts = append(fig.Charts, imb)
	}
	fig.Tables = append(fig.Tables, HTMLTable("Routing cases", []string{"case", "system", "TPOT", "step P50", "step P99",
		"distinct experts / layer", "imbalance", "experts' bytes: Direct / Relay / HBM cache", "expert cache", "decode-KV budget (GB)"}, rows))
	fig.Rows = s.Rows
	fig.Notes = append(fig.Notes,
		"Imbalance is max(T_Direct, T_Relay) summed over passes and MoE layers, over the time a perfect (byte-divisible) split of the same bytes takes, minus 1: what assigning whole experts costs. Zero on a single-path system.",
		"A cached expert is read from HBM over the GPU-HBM links the Relay route drains over, at the HBM array's rate; a miss the cache admits is written into HBM. The cache's budget comes out of the decode-KV budget.")
	if s.Trace != "" {
		fig.Notes = append(fig.Notes, "The trace is "+s.Trace+" (reference/routing/README.md gives its provenance); experiment request i replays trace request i.")
	}
	return fig, nil
}
