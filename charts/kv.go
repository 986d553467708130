package charts

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/lookahead"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
)

// KVSplit draws where the KV cache lives against generated tokens (§VI-F's
// asymmetric placement; the harness's summary.KVSplit, reproduce.KVStudy): HBM (decode
// KV up to the budget) and HBF (the prompt's KV and the written-back waves), with the
// paper's final split as reference lines. The subtitle names the run's model and
// workload and, on a line of its own, how it differs from the paper's Fig. 12 run
// (empty for the paper's).
func KVSplit(id string, k summary.KVSplit) (Chart, error) {
	return kvSplit(id, CaseLabel(k.ModelName, k.Case), k.WhatIf, k.Trajectory, k.Rows)
}

func kvSplit(id, label string, w summary.WhatIf, traj []sim.KVPoint, rows []summary.Row) (Chart, error) {
	if len(traj) == 0 {
		return nil, errors.New("charts: KVSplit: no KV trajectory")
	}
	var hbm, hbf, total []Point
	for _, p := range traj {
		x := float64(p.Generated)
		hbm = append(hbm, Point{X: x, Y: p.HBM.GB()})
		hbf = append(hbf, Point{X: x, Y: p.HBF.GB()})
		total = append(total, Point{X: x, Y: (p.HBM + p.HBF).GB()})
	}
	var refs []RefLine
	for _, r := range []struct{ id, name string }{{"fig12.kv_hbm_gb", "paper: HBM at 1M"}, {"fig12.kv_hbf_gb", "paper: HBF at 1M"}} {
		if v := paperOf(rows, r.id); !math.IsNaN(v) {
			refs = append(refs, RefLine{Name: fmt.Sprintf("%s %.2f GB", r.name, v), Y: v})
		}
	}
	return Lines(LineSpec{
		Common: Common{ID: id, Title: "KV cache placement over the decode", Subtitle: WhatIfSubtitle(label, w), Height: "420px"},
		XName:  "Generated tokens", YName: "KV cache (GB)",
		Series:   []XYSeries{{Name: "HBM (decode KV)", Points: hbm}, {Name: "HBF (prompt + written back)", Points: hbf}, {Name: "Total", Points: total}},
		RefLines: refs,
	})
}

// fig12Axis names each sweep's x axis and whether it is logarithmic.
var fig12Axis = map[summary.Fig12Param]struct {
	name, ref string
	log       bool
}{
	summary.Fig12PageSize: {"HBF page size (KiB)", "4 KiB", true},
	summary.Fig12TRead:    {"HBF read latency t_R (µs)", "3 µs", true},
	summary.Fig12Link:     {"Per-route D2D bandwidth (TB/s)", "1.6 TB/s", true},
}

// Fig12 draws the sensitivity study (§VI-F, Fig. 12): E2E latency against
// page size, t_R and per-route D2D bandwidth, each normalized to the
// paper's reference point, under each reading of t_R; program-busy time
// against the E2E-exposed write stall over t_PROG; the KV split; and the
// paper's numbers against the engine's (the harness's rows).
func Fig12(r *summary.Fig12Result) (Figure, error) {
	if r == nil || len(r.Points) == 0 {
		return Figure{}, errors.New("charts: Fig12: no sensitivity results")
	}
	nom, ok := r.Nominal[dash.ReadingPaper]
	if !ok {
		for _, v := range r.Nominal {
			nom = v
		}
	}
	on := summary.Case{Model: nom.Model, System: nom.System, Batch: nom.Batch, Prompt: nom.Prompt, Output: nom.Output}
	w := r.WhatIf
	fig := Figure{ID: "fig12", Title: "Fig. 12: sensitivity to the HBF parameters (§VI-F)",
		Caption: WhatIfCaption("", w) + CaseLabel(r.ModelName, on) + ": prompt KV in HBF, decode KV in HBM up to the package-wide budget, then written back " +
			"page wave by page wave. Each sweep is normalized as the paper does; each reading of t_R (paper: t_R a readiness latency only; physical: one page wave per t_R per stack; serial: t_R paid before each chunk's transfer)."}
	for _, p := range []summary.Fig12Param{summary.Fig12PageSize, summary.Fig12TRead, summary.Fig12Link} {
		ax := fig12Axis[p]
		var series []XYSeries
		for _, rd := range dash.Readings() {
			var pts []Point
			for _, x := range r.Sweep(p, rd) {
				pts = append(pts, Point{X: x.Value, Y: x.Normalized})
			}
			if len(pts) > 0 {
				series = append(series, XYSeries{Name: rd.String() + " reading", Points: pts})
			}
		}
		c, err := Lines(LineSpec{
			Common: Common{ID: "fig12_" + string(p), Title: "E2E latency against " + ax.name, Subtitle: WhatIfSubtitle("normalized to "+ax.ref, w), Height: "380px"},
			XName:  ax.name, YName: "Normalized E2E latency", Series: series, LogX: ax.log,
			RefLines: []RefLine{{Name: "reference point", Y: 1, Color: "#999999"}},
		})
		if err != nil {
			return Figure{}, err
		}
		fig.Charts = append(fig.Charts, c)
	}
	var series []XYSeries
	for _, rd := range dash.Readings() {
		var busy, stall []Point
		for _, x := range r.Sweep(summary.Fig12TProg, rd) {
			busy = append(busy, Point{X: x.Value, Y: x.ProgramBusy.Seconds()})
			stall = append(stall, Point{X: x.Value, Y: x.Stall.Seconds()})
		}
		series = append(series, XYSeries{Name: "program busy, " + rd.String() + " reading", Points: busy},
			XYSeries{Name: "exposed stall, " + rd.String() + " reading", Points: stall})
	}
	// the paper's two published stalls, drawn in the paper reading's colour (legend: "... (paper)")
	paper := []XYSeries{{Name: "exposed stall, paper reading", Points: []Point{{X: 500, Y: paperOf(r.Rows, "fig12.write_stall_s.tprog500us")}, {X: 5000, Y: paperOf(r.Rows, "fig12.write_stall_s.tprog5ms")}}}}
	c, err := Lines(LineSpec{
		Common: Common{ID: "fig12_t_prog", Title: "HBF program latency: program-busy time against exposed stall", Subtitle: WhatIfSubtitle("totals over the run, both stacks' programs summed", w), Height: "420px"},
		XName:  "t_PROG (µs)", YName: "Time (s)", Series: series, Paper: paper, LogX: true,
	})
	if err != nil {
		return Figure{}, err
	}
	fig.Charts = append(fig.Charts, c)
	if len(r.KV) > 0 {
		c, err := kvSplit("fig12_kv", CaseLabel(r.ModelName, on), w, r.KV, r.Rows)
		if err != nil {
			return Figure{}, err
		}
		fig.Charts = append(fig.Charts, c)
	}
	if len(r.Programs) > 0 {
		var rows [][]string
		for _, p := range r.Programs {
			model := p.Model
			if p.Default {
				model += " (the part's; checked)"
			}
			rows = append(rows, []string{model, p.TProg.String(), fmt.Sprintf("%.2f s", p.ProgramBusy.Seconds()), fmt.Sprintf("%.2f s", p.Stall.Seconds()), fmt.Sprint(p.Suspends)})
		}
		fig.Tables = append(fig.Tables, HTMLTable("Exposed write stall under each NAND program model (paper reading; the paper: 0 s at 500 µs, 19.94 s at 5 ms). "+
			"stack: a program holds every plane of its stack; planes: only the planes it writes (a full page wave: all of them); suspend: a read suspends the program (t_SUS), which resumes (t_RES) when no read waits.",
			[]string{"program model", "t_PROG", "program busy", "exposed stall", "suspensions"}, rows))
	}
	fig.Rows = append(fig.Rows, labelRows(r.Rows, []rowLabel{
		{"fig12.kv_hbm_gb", "KV in HBM at 1M"}, {"fig12.kv_hbf_gb", "KV in HBF at 1M"}, {"fig9b.llama4_4k_1m.kv_cache_gb", "KV cache at 1M"},
		{"fig12.write_stall_s.tprog500us", "exposed write stall, t_PROG 500µs"}, {"fig12.write_stall_s.tprog5ms", "exposed write stall, t_PROG 5ms"},
		{"fig9b.llama4_4k_1m.throughput_speedup.vs_relay_only", "4K/1M throughput speedup vs RelayOnly"},
		{"fig9b.llama4_4k_1m.e2e_reduction_pct.vs_relay_only", "4K/1M E2E reduction vs RelayOnly"},
	})...)
	for _, rd := range dash.Readings() {
		pts := r.Sweep(summary.Fig12PageSize, rd)
		if n := len(pts); n > 2 && pts[n-1].Normalized > pts[n-2].Normalized {
			fig.Notes = append(fig.Notes, fmt.Sprintf("%v reading: the page-size trend turns at %s (%.3f against %.3f at %s). "+
				"The HBF transfer chunk is half a page wave, so at the largest pages it is coarser than the HBF share of a replicated attention projection at B = 1, "+
				"and that share's start-up (sense, TSV fill and link crossing of one chunk) grows.",
				rd, pts[n-1].Label, pts[n-1].Normalized, pts[n-2].Normalized, pts[n-2].Label))
		}
		for _, x := range r.Sweep(summary.Fig12TProg, rd) {
			if x.Value == 5000 && x.ProgramBusy > 0 {
				stacks := max(1, len(x.Result.HBF))
				fig.Notes = append(fig.Notes, fmt.Sprintf("%v reading, t_PROG %s: %s of stall against %s of programming per stack (%.0f%% exposed): "+
					"at 1M tokens the decode step reads HBF almost continuously (experts, replicated-weight shares, the global layers' HBF-resident KV), so little of a program hides.",
					rd, x.Label, Dur(x.Stall), Dur(x.ProgramBusy/unit.Duration(stacks)), 100*x.Stall.Seconds()/(x.ProgramBusy.Seconds()/float64(stacks))))
			}
		}
	}
	budget := "The HBM decode-KV budget comes from the planner: HBM capacity less the replicated weights (attention, norms and routers, dense FFN, LM head) and the prefill workspace"
	if b := nom.KV.BudgetHBM; b > 0 {
		budget += fmt.Sprintf(" (%v in the nominal run)", b)
	}
	budget += "."
	if hbm, ok := summary.RowByID(r.Rows, "fig12.kv_hbm_gb"); ok && hbm.Simulated != nil {
		budget += fmt.Sprintf(" The paper's %s GB in HBM is %.2f GB less than the engine keeps there; the paper does not state its budget's parts, "+
			"and none of the candidates measured in notebook 08 (the embedding table, the prompt's KV, both, whole page waves, GiB stacks) lands within the paper's rounding, "+
			"so the engine keeps its planner's budget.", strconv.FormatFloat(hbm.Paper, 'f', -1, 64), *hbm.Simulated-hbm.Paper)
	}
	fig.Notes = append(fig.Notes, budget,
		"A page wave programs every die, plane and subarray of a stack, so a program blocks every read of that stack for t_PROG (program/read interference); "+
			"the stall is E2E at that t_PROG less E2E of the same run whose programs take no time.",
		sampleNote(r.DecodeSample))
	return fig, nil
}

// sampleNote says how the study's decodes were simulated (r.DecodeSample).
func sampleNote(n int) string {
	switch {
	case n <= 1:
		return "The decodes are simulated exactly, every step."
	case n == summary.Fig12DecodeSample:
		return fmt.Sprintf("The decodes are sampled: one KV block in %d simulated, the steps between interpolated (within 0.1%% of the exact run in the tests).", n)
	}
	return fmt.Sprintf("The decodes are sampled: one KV block in %d simulated, the steps between interpolated (the reproduction samples one in %d, within 0.1%% of the exact run in the tests).",
		n, summary.Fig12DecodeSample)
}

// LookaheadAgreement draws the exact-lookahead checker's agreement per
// model: the share of random tokens whose early and conventional
// selections agree (eligible routers), or would agree (routers with an
// expert bias, which keep late selection).
func LookaheadAgreement(id string, reps []lookahead.Report) (Chart, error) {
	if len(reps) == 0 {
		return nil, errors.New("charts: LookaheadAgreement: no reports")
	}
	var cats []string
	var early, late []float64
	for _, r := range reps {
		cats = append(cats, ShortModelName(r.Model))
		if r.Eligible {
			early, late = append(early, r.AgreementPct()), append(late, math.NaN())
		} else {
			early, late = append(early, math.NaN()), append(late, r.AgreementPct())
		}
	}
	return GroupedBar(BarSpec{
		Common: Common{ID: id, Title: "Lookahead selection against conventional routing (FP32)",
			Subtitle: fmt.Sprintf("%d random tokens per model at its real dimensions", reps[0].Tokens), Height: "400px"},
		XName: "Model", YName: "Selections that agree (%)", Categories: cats, YMin: 0, YMax: 100,
		Series:      []Series{{Name: "early selection (eligible)", Values: early}, {Name: "if early were used (expert bias: late)", Values: late}},
		LabelRotate: 30,
	})
}
