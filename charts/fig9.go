package charts

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dashlab/dashlab/summary"
)

// SystemName is the paper's name of a named system ("relay-only" -> "RelayOnly"); other
// ids are returned as they are.
func SystemName(id string) string {
	switch id {
	case "dash":
		return "DASH"
	case "compact-dash":
		return "Compact-DASH"
	case "relay-only":
		return "RelayOnly"
	case "direct-only":
		return "DirectOnly"
	}
	return id
}

var shortNames = map[string]string{
	"qwen3-235b-a22b": "Qwen3", "mixtral-8x22b": "Mixtral", "grok-1": "Grok-1",
	"llama4-maverick": "Llama 4", "deepseek-v3": "DS-V3", "deepseek-v2": "DS-V2",
}

// ShortModelName is a short label for one of the paper's models ("qwen3-235b-a22b" ->
// "Qwen3"), for crowded category axes; other ids are returned as they are.
func ShortModelName(id string) string {
	if s, ok := shortNames[id]; ok {
		return s
	}
	return id
}

// paperSystems are the paper's four configurations in the order its figures list them.
var paperSystems = []string{"dash", "compact-dash", "relay-only", "direct-only"}

// systemColor is the system's colour (SystemColor), or a colour of Palette for a
// system without one.
func systemColor(id string, i int) string {
	if c := SystemColor(id); c != "" {
		return c
	}
	return colorAt(i+4, "")
}

// fig9Case is one category of Fig. 9: a model and a workload.
type fig9Case struct {
	label                 string
	model                 string
	batch, prompt, output int
}

type pointKey struct {
	model, system         string
	batch, prompt, output int
}

type fig9Index map[pointKey]summary.Point

func indexPoints(points []summary.Point) (fig9Index, []fig9Case, []string) {
	idx := fig9Index{}
	var cases []fig9Case
	seen := map[pointKey]bool{}
	var systems []string
	for _, p := range points {
		idx[pointKey{p.Model, p.System, p.Batch, p.Prompt, p.Output}] = p
		c := pointKey{p.Model, "", p.Batch, p.Prompt, p.Output}
		if !seen[c] {
			seen[c] = true
			cases = append(cases, fig9Case{model: p.Model, batch: p.Batch, prompt: p.Prompt, output: p.Output})
		}
		if !slices.Contains(systems, p.System) {
			systems = append(systems, p.System)
		}
	}
	// The paper's order of systems first.
	var ordered []string
	for _, s := range paperSystems {
		if slices.Contains(systems, s) {
			ordered = append(ordered, s)
		}
	}
	for _, s := range systems {
		if !slices.Contains(ordered, s) {
			ordered = append(ordered, s)
		}
	}
	return idx, cases, ordered
}

// get returns the point and whether it has a result; a point that fits but failed is
// an error.
func (ix fig9Index) get(model, system string, batch, prompt, output int) (summary.Point, bool, error) {
	p, ok := ix[pointKey{model, system, batch, prompt, output}]
	if !ok {
		return p, false, nil
	}
	if p.Err != nil {
		if p.Fits() {
			return p, false, fmt.Errorf("charts: %s failed: %w", p.Case, p.Err)
		}
		return p, false, nil
	}
	return p, true, nil
}

// axisModelName is ShortModelName without spaces ("Llama4"), for the crowded category
// axes of Fig. 9, where "Llama 4" ran into its neighbours at 1280 px.
func axisModelName(id string) string { return strings.ReplaceAll(ShortModelName(id), " ", "") }

// fig9Spec says how one panel of Fig. 9 normalizes.
type fig9Spec struct {
	id, title string
	// tputRef gives, for a case, the case whose RelayOnly throughput is 1.
	tputRef  func(c fig9Case) fig9Case
	tputNote string
	// tputIDs and e2eIDs: the paper.yaml ids of the geomeans, by baseline; extra are
	// further rows of the summary that the figure lists (id and metric).
	tputIDs, e2eIDs map[string]string
	extra           []rowLabel
	caption         string
	notes           []string
}

const fig9Base = "relay-only"

func buildFig9(sum summary.Fig9, spec fig9Spec, label func(fig9Case) string) (Figure, error) {
	points := sum.Points
	if len(points) == 0 {
		return Figure{}, errors.New("charts: " + spec.id + ": no points")
	}
	ix, cases, systems := indexPoints(points)
	if !slices.Contains(systems, fig9Base) {
		return Figure{}, fmt.Errorf("charts: %s: no %s points to normalize to", spec.id, fig9Base)
	}
	cats := make([]string, len(cases))
	for i := range cases {
		cases[i].label = label(cases[i])
		cats[i] = cases[i].label
	}
	var tput, e2e []Series
	var absent []BarNote
	for si, s := range systems {
		tv, ev := make([]float64, len(cases)), make([]float64, len(cases))
		for i, c := range cases {
			tv[i], ev[i] = math.NaN(), math.NaN()
			p, ok, err := ix.get(c.model, s, c.batch, c.prompt, c.output)
			if err != nil {
				return Figure{}, err
			}
			if !ok {
				if _, present := ix[pointKey{c.model, s, c.batch, c.prompt, c.output}]; present && !p.Fits() {
					absent = append(absent, BarNote{Series: SystemName(s), Category: c.label, Text: "does not fit"})
				}
				continue
			}
			r := spec.tputRef(c)
			base, okT, err := ix.get(r.model, fig9Base, r.batch, r.prompt, r.output)
			if err != nil {
				return Figure{}, err
			}
			if okT && base.Result.DecodeThroughput > 0 {
				tv[i] = p.Result.DecodeThroughput / base.Result.DecodeThroughput
			}
			base, okE, err := ix.get(c.model, fig9Base, c.batch, c.prompt, c.output)
			if err != nil {
				return Figure{}, err
			}
			if okE && base.Result.E2E > 0 {
				ev[i] = p.Result.E2E.Seconds() / base.Result.E2E.Seconds()
			}
		}
		color := systemColor(s, si)
		tput = append(tput, Series{Name: SystemName(s), Values: tv, Color: color})
		e2e = append(e2e, Series{Name: SystemName(s), Values: ev, Color: color})
	}
	common := func(suffix, title, sub string) Common {
		return Common{ID: SanitizeID(spec.id + "_" + suffix), Title: title, Subtitle: WhatIfSubtitle(sub, sum.WhatIf), Width: "960px", Height: "460px"}
	}
	tputChart, err := GroupedBar(BarSpec{
		Common: common("throughput", spec.title+": normalized throughput", spec.tputNote),
		XName:  "Model and workload", YName: "Decode throughput / RelayOnly's (×, higher is better)",
		Categories: cats, Series: tput, Absent: absent,
		RefLines: []RefLine{{Name: "RelayOnly reference = 1", Y: 1, Color: "#999999"}},
	})
	if err != nil {
		return Figure{}, err
	}
	e2eChart, err := GroupedBar(BarSpec{
		Common: common("e2e", spec.title+": normalized end-to-end latency", "E2E latency / RelayOnly's E2E at the same model and workload"),
		XName:  "Model and workload", YName: "E2E latency / RelayOnly's (×, lower is better)",
		Categories: cats, Series: e2e, Absent: absent,
	})
	if err != nil {
		return Figure{}, err
	}

	// Paired ratios DASH / baseline per case, their geomeans, and the paper's.
	var ratioSeries, redSeries []Series
	var ratioRefs, redRefs []RefLine
	var rows []summary.Row
	for bi, pr := range sum.Paired {
		b := pr.Baseline
		rv, dv := make([]float64, len(cases)), make([]float64, len(cases))
		for i, c := range cases {
			rv[i], dv[i] = math.NaN(), math.NaN()
			if pc, ok := pr.Of(c.model, c.batch, c.prompt, c.output); ok {
				rv[i], dv[i] = pc.Throughput, pc.E2EReductionPct()
			}
		}
		color := systemColor(b, bi)
		name := "DASH / " + SystemName(b)
		ratioSeries = append(ratioSeries, Series{Name: name, Values: rv, Color: color})
		redSeries = append(redSeries, Series{Name: "vs " + SystemName(b), Values: dv, Color: color})
		gt, ge := pr.ThroughputSpeedupGeomean, pr.E2EReductionPct
		pt, pe := paperOf(sum.Rows, spec.tputIDs[b]), paperOf(sum.Rows, spec.e2eIDs[b])
		ratioRefs = append(ratioRefs, RefLine{Name: fmt.Sprintf("simulated geomean vs %s: %.2f×", SystemName(b), gt), Y: gt, Color: color, Solid: true,
			Label: fmt.Sprintf("simulated %.2f×", gt)})
		redRefs = append(redRefs, RefLine{Name: fmt.Sprintf("simulated vs %s: %.1f %%", SystemName(b), ge), Y: ge, Color: color, Solid: true,
			Label: fmt.Sprintf("simulated %.1f %%", ge)})
		if finite(pt) {
			ratioRefs = append(ratioRefs, RefLine{Name: fmt.Sprintf("paper geomean vs %s: %.2f×", SystemName(b), pt), Y: pt, Color: darker(color),
				Label: fmt.Sprintf("paper %.2f×", pt)})
		}
		if finite(pe) {
			redRefs = append(redRefs, RefLine{Name: fmt.Sprintf("paper vs %s: %.1f %%", SystemName(b), pe), Y: pe, Color: darker(color),
				Label: fmt.Sprintf("paper %.1f %%", pe)})
		}
		n := fmt.Sprintf("%d paired (model, workload) cases", len(pr.Cases))
		if row, ok := labelled(sum.Rows, spec.tputIDs[b], "geomean decode-throughput speedup of DASH over "+SystemName(b)+", "+n); ok {
			rows = append(rows, row)
		}
		if row, ok := labelled(sum.Rows, spec.e2eIDs[b], "E2E reduction of DASH vs "+SystemName(b)+" (1 - geomean of paired ratios), "+n); ok {
			rows = append(rows, row)
		}
	}
	rows = append(rows, labelRows(sum.Rows, spec.extra)...)
	fig := Figure{ID: spec.id, Title: spec.title, Caption: WhatIfCaption(spec.caption, sum.WhatIf), Charts: []Chart{tputChart, e2eChart}, Notes: spec.notes}
	if len(ratioSeries) > 0 {
		ratio, err := GroupedBar(BarSpec{
			Common: common("speedup", spec.title+": DASH's throughput speedup, paired",
				"decode throughput of DASH / baseline at the same model and workload; lines: geomeans, simulated (solid) and the paper's (dashed)"),
			XName: "Model and workload", YName: "Throughput speedup of DASH (×)",
			Categories: cats, Series: ratioSeries, RefLines: ratioRefs,
		})
		if err != nil {
			return Figure{}, err
		}
		red, err := GroupedBar(BarSpec{
			Common: common("reduction", spec.title+": DASH's end-to-end latency reduction, paired",
				"1 - E2E of DASH / baseline's; lines: 1 - geomean of the ratios, simulated (solid) and the paper's (dashed)"),
			XName: "Model and workload", YName: "E2E latency reduction of DASH (%)",
			Categories: cats, Series: redSeries, RefLines: redRefs,
		})
		if err != nil {
			return Figure{}, err
		}
		fig.Charts = append(fig.Charts, ratio, red)
	}
	fig.Rows = rows
	return fig, nil
}

// darker returns a darker shade of a #rrggbb color, for the paper's line next to the
// simulated one.
func darker(c string) string {
	var r, g, b int
	if _, err := fmt.Sscanf(c, "#%02x%02x%02x", &r, &g, &b); err != nil {
		return PaperColor
	}
	return fmt.Sprintf("#%02x%02x%02x", r*55/100, g*55/100, b*55/100)
}

// Fig9a draws the paper's Fig. 9(a) from the harness's summary of the fixed-batch sweep
// (reproduce.SummariseFig9; L_in/L_out = 1K/128, B in {1, 4, 16, 64}) with the paper's
// normalization (§VI-B): throughput to RelayOnly at B = 64 of the same model, E2E latency
// to RelayOnly at the same B. Configurations that do not fit their memory system
// (Compact-DASH with the largest models) are labelled "does not fit" where their bar
// would be. Two more charts give DASH's paired speedups and E2E reductions over RelayOnly
// and DirectOnly per case, with the harness's geometric means and the paper's; the rows
// (the harness's verdicts) compare them.
func Fig9a(sum summary.Fig9) (Figure, error) {
	maxB := 0
	for _, p := range sum.Points {
		maxB = max(maxB, p.Batch)
	}
	var extra []rowLabel
	// §I's B = 4 numbers, from the same sweep.
	if b4 := sum.B4; b4 != nil && len(b4.Cases) > 0 {
		extra = []rowLabel{
			{"intro.b4.throughput_speedup_geomean.vs_relay_only", fmt.Sprintf("§I: B = 4 geomean throughput speedup over RelayOnly, %d models", len(b4.Cases))},
			{"intro.b4.e2e_reduction_pct.vs_relay_only", fmt.Sprintf("§I: B = 4 E2E reduction vs RelayOnly, %d models", len(b4.Cases))},
		}
	}
	return buildFig9(sum, fig9Spec{
		id: "fig9a", title: "Fig. 9(a): batch sweep",
		tputRef: func(c fig9Case) fig9Case {
			c.batch = maxB
			return c
		},
		tputNote: fmt.Sprintf("decode throughput / RelayOnly's at B = %d of the same model (the paper's normalization)", maxB),
		tputIDs:  map[string]string{"relay-only": "fig9a.throughput_speedup_geomean.vs_relay_only", "direct-only": "fig9a.throughput_speedup_geomean.vs_direct_only"},
		e2eIDs:   map[string]string{"relay-only": "fig9a.e2e_reduction_pct.vs_relay_only", "direct-only": "fig9a.e2e_reduction_pct.vs_direct_only"},
		extra:    extra,
		caption: "Five models at B = 1, 4, 16, 64 with 1K prompt and 128 output tokens, on the paper's four configurations. " +
			"Throughput is the decode-phase rate B x (L_out - 1) / (E2E - TTFT).",
	}, func(c fig9Case) string { return axisModelName(c.model) + "\nB=" + fmt.Sprint(c.batch) })
}

// Fig9b draws the paper's Fig. 9(b) from the harness's summary of the B = 1
// sequence-length sweep (reproduce.SummariseFig9; L_in/L_out in 512/16, 4K/16, 512/20K,
// 20K/20K within each model's context window), both metrics normalized to RelayOnly at the same model and workload,
// with the paired speedups and E2E reductions and the paper's geomeans. The paper's
// Llama 4 KV-overflow cases (4K/256K, 4K/1M) are not in this sweep (a note says so).
func Fig9b(sum summary.Fig9) (Figure, error) {
	var grok []string
	for _, p := range sum.Points {
		if p.Model == "grok-1" && p.System == fig9Base {
			grok = append(grok, summary.LengthLabel(p.Prompt)+"/"+summary.LengthLabel(p.Output))
		}
	}
	notes := []string{"The paper's geomeans are over 20 (model, workload) combinations, which include Llama 4 Maverick's 4K/256K and 4K/1M KV-overflow cases; " +
		"those are not in this sweep (4K/256K is not simulated yet; 4K/1M is simulated with Fig. 12's study, fig9b.llama4_4k_1m.*), so the simulated geomeans are over the cases shown."}
	if len(grok) > 0 {
		notes = append(notes, "Grok-1 is run only at "+strings.Join(grok, " and ")+": the other workloads exceed its context window, as in the paper.")
	}
	return buildFig9(sum, fig9Spec{
		id: "fig9b", title: "Fig. 9(b): sequence-length sweep",
		tputRef:  func(c fig9Case) fig9Case { return c },
		tputNote: "decode throughput / RelayOnly's at the same model and workload (B = 1)",
		tputIDs:  map[string]string{"relay-only": "fig9b.throughput_speedup_geomean.vs_relay_only", "direct-only": "fig9b.throughput_speedup_geomean.vs_direct_only"},
		e2eIDs:   map[string]string{"relay-only": "fig9b.e2e_reduction_pct.vs_relay_only", "direct-only": "fig9b.e2e_reduction_pct.vs_direct_only"},
		caption:  "B = 1 with short (512/16), prefill-dominant (4K/16), decode-heavy (512/20K) and long (20K/20K) prompt/output lengths.",
		notes:    notes,
	}, func(c fig9Case) string {
		return axisModelName(c.model) + "\n" + summary.LengthLabel(c.prompt) + "/" + summary.LengthLabel(c.output)
	})
}
