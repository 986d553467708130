package reproduce

import (
	"fmt"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// Fig. 9: fixed-batch throughput and E2E latency (§VI-B).
//
// Throughput is the decode-phase rate, B x (L_out - 1) / (E2E - TTFT): the
// paper's Fig. 9(a) reports throughput and E2E separately with different
// gains (1.90x and a 42.2% reduction over RelayOnly), which output tokens
// over E2E could not give. Speedups are geometric means of paired ratios
// DASH / baseline; E2E reductions are 1 - the geometric mean of the paired
// latency ratios DASH / baseline ("based on paired latency ratios").

// Fig9Systems are the four configurations of the paper's Fig. 8.
var Fig9Systems = []string{"dash", "compact-dash", "relay-only", "direct-only"}

// Fig9aBatches are the batch sizes of Fig. 9(a).
var Fig9aBatches = []int{1, 4, 16, 64}

// Fig9bWorkload is one L_in/L_out pair of Fig. 9(b).
type Fig9bWorkload struct {
	// Label is the paper's name for it ("512/20K").
	Label string
	// Prompt and Output are L_in and L_out in tokens.
	Prompt, Output int
}

// fig9bWorkloads are the sequence-length cases of Fig. 9(b) (K = 1024).
var fig9bWorkloads = []Fig9bWorkload{
	{"512/16", 512, 16}, {"4K/16", 4096, 16}, {"512/20K", 512, 20480}, {"20K/20K", 20480, 20480},
}

// fig9Baselines are the single-path systems DASH is paired with, in the paper's order.
var fig9Baselines = []string{"relay-only", "direct-only"}

func init() {
	register(group{name: "fig9a", prefixes: []string{"fig9a.", "intro.b4."}, run: runFig9a})
	register(group{name: "fig9b", prefixes: []string{"fig9b."}, run: runFig9b})
}

// Fig9Case is the Fig. 9 case of a model, system and workload under a
// reading of t_R. The DASH architectures (dash, compact-dash and their
// pair-count variants) select experts early where the router allows (§I
// and §V-C make lookahead part of DASH; routers with an expert bias keep
// conventional selection); the single-path baselines select conventionally,
// as in the paper.
func Fig9Case(model, system string, batch, prompt, output int, r dash.Reading) summary.Case {
	c := summary.Case{Model: model, System: system, Batch: batch, Prompt: prompt, Output: output, Reading: r}
	if isDASH(system) {
		c.Knobs = []dash.Setting{knob("execution.lookahead", true)}
	}
	return c
}

// isDASH reports whether a named system is a DASH architecture (both the
// direct and the relay path), as opposed to a single-path baseline.
func isDASH(system string) bool {
	s, err := reference.System(system)
	return err == nil && s.Topology.Direct() && s.Topology.Relay()
}

// ReadingSuffix is the id suffix of values computed under a reading: ""
// for the paper reading (the checked values) and ".physical" for the
// physical reading (reported beside them).
func ReadingSuffix(r dash.Reading) string {
	if r == dash.ReadingPaper {
		return ""
	}
	return "." + r.String()
}

// fig9aSpecs are the cases of the Fig. 9(a) sweep under a reading of t_R: every
// Fig. 9 model at every Fig9aBatches batch, 1K/128, on every Fig9Systems system.
func fig9aSpecs(r dash.Reading) []summary.Case {
	var cases []summary.Case
	for _, m := range reference.Fig9ModelIDs {
		for _, b := range Fig9aBatches {
			for _, s := range Fig9Systems {
				cases = append(cases, Fig9Case(m, s, b, 1024, 128, r))
			}
		}
	}
	return cases
}

func runFig9a(opts Options, art *Artifacts) (values, error) {
	var v values
	for _, r := range opts.readings() {
		points := Sweep(opts.withKnobs(fig9aSpecs(r)), opts.Workers)
		sum := SummariseFig9(points)
		f := art.Fig9[r]
		f.A = sum
		setReading(&art.Fig9, r, f)
		if err := summary.SweepErr(points); err != nil {
			return v, fmt.Errorf("%v reading: %w", r, err)
		}
		sfx := ReadingSuffix(r)
		if err := setPairedGeomeans(&v, "fig9a", sfx, sum, fmt.Sprintf("(model, B) pairs, %v reading", r)); err != nil {
			return v, err
		}
		if sum.B4 == nil || len(sum.B4.Missing) > 0 {
			return v, fmt.Errorf("fig9a, %v reading: no complete B = 4 comparison with relay-only", r)
		}
		what := fmt.Sprintf("B=4, five models, %v reading", r)
		v.Set("intro.b4.throughput_speedup_geomean.vs_relay_only"+sfx, sum.B4.ThroughputSpeedupGeomean, what)
		v.Set("intro.b4.e2e_reduction_pct.vs_relay_only"+sfx, sum.B4.E2EReductionPct, what)
	}
	return v, nil
}

// SummariseFig9 pairs DASH with each of Fig9Baselines that the points include: per
// (model, workload), the ratios DASH / baseline of decode throughput and E2E latency, and
// their geomeans. With B = 4 points it adds §I's B = 4 comparison with RelayOnly. The
// report, the CLI and the notebooks all read Fig. 9's numbers from here.
//
// Its WhatIf lists how the sweep differs from the paper's Fig. 9(a) or 9(b): every
// point's changed parts and switches (summary.Point.WhatIf), then the models, batch
// sizes and lengths.
func SummariseFig9(points []summary.Point) summary.Fig9 {
	out := summary.Fig9{Points: points}
	for _, p := range points {
		out.WhatIf = out.WhatIf.Add(p.WhatIf...)
	}
	out.WhatIf = out.WhatIf.Add(fig9Design(points)...)
	has := map[string]bool{}
	for _, p := range points {
		has[p.System] = true
	}
	if !has["dash"] {
		return out
	}
	for _, base := range fig9Baselines {
		if has[base] {
			out.Paired = append(out.Paired, pair(points, base, func(summary.Case) bool { return true }))
		}
	}
	if has["relay-only"] {
		b4 := pair(points, "relay-only", func(c summary.Case) bool { return c.Batch == 4 })
		if len(b4.Cases)+len(b4.Missing) > 0 {
			out.B4 = &b4
		}
	}
	out.Rows = fig9Rows(out, fig9Panel(points))
	return out
}

// fig9Panel is the Fig. 9 panel a sweep is read as: "fig9b" for B = 1 over several
// lengths, "fig9a" otherwise (as fig9Design reads it).
func fig9Panel(points []summary.Point) string {
	batches, lengths := map[int]bool{}, map[[2]int]bool{}
	for _, p := range points {
		batches[p.Batch], lengths[[2]int{p.Prompt, p.Output}] = true, true
	}
	if len(batches) == 1 && batches[1] && len(lengths) > 1 {
		return "fig9b"
	}
	return "fig9a"
}

// fig9Rows judges a Fig. 9 summary's geomeans against the panel's ids (and §I's B = 4
// comparison in Fig. 9(a)): what-ifs when the sweep is not the paper's.
func fig9Rows(sum summary.Fig9, panel string) []summary.Row {
	var rows []summary.Row
	add := func(id string, x float64) {
		if r, err := judge(id, dash.ReadingPaper, x, sum.WhatIf); err == nil {
			rows = append(rows, r)
		}
	}
	for _, p := range sum.Paired {
		sfx := ".vs_" + strings.ReplaceAll(p.Baseline, "-", "_")
		add(panel+".throughput_speedup_geomean"+sfx, p.ThroughputSpeedupGeomean)
		add(panel+".e2e_reduction_pct"+sfx, p.E2EReductionPct)
	}
	if b4 := sum.B4; b4 != nil && panel == "fig9a" && len(b4.Cases) > 0 {
		add("intro.b4.throughput_speedup_geomean.vs_relay_only", b4.ThroughputSpeedupGeomean)
		add("intro.b4.e2e_reduction_pct.vs_relay_only", b4.E2EReductionPct)
	}
	return rows
}

// pair compares every DASH point that keep accepts with the baseline's point of the same
// model and workload.
func pair(points []summary.Point, base string, keep func(summary.Case) bool) summary.Paired {
	out := summary.Paired{Baseline: base}
	var tput, e2e []float64
	for _, d := range points {
		if d.System != "dash" || !keep(d.Case) {
			continue
		}
		x, okX := summary.Find(points, d.Model, base, d.Batch, d.Prompt, d.Output)
		if !d.OK() || !okX {
			out.Missing = append(out.Missing, d.Case)
			continue
		}
		t, e := summary.PairedRatio(d, x)
		out.Cases = append(out.Cases, summary.PairedCase{Case: d.Case, Throughput: t, E2E: e})
		tput, e2e = append(tput, t), append(e2e, e)
	}
	out.ThroughputSpeedupGeomean = summary.Geomean(tput)
	out.E2EReductionPct = 100 * (1 - summary.Geomean(e2e))
	return out
}

// fig9bSpecs are the cases of the Fig. 9(b) sweep under a reading of t_R: every Fig. 9
// model at B = 1 with each Fig9bWorkloads workload within its context window, on every
// Fig9Systems system.
func fig9bSpecs(r dash.Reading) []summary.Case {
	var specs []summary.Case
	for _, m := range reference.Fig9ModelIDs {
		model := reference.MustModel(m)
		for _, w := range fig9bWorkloads {
			if model.MaxContext > 0 && w.Prompt+w.Output > model.MaxContext {
				continue // the paper includes only workloads within the context window
			}
			for _, s := range Fig9Systems {
				specs = append(specs, Fig9Case(m, s, 1, w.Prompt, w.Output, r))
			}
		}
	}
	return specs
}

func runFig9b(opts Options, art *Artifacts) (values, error) {
	var v values
	for _, r := range opts.readings() {
		points := Sweep(opts.withKnobs(fig9bSpecs(r)), opts.Workers)
		sum := SummariseFig9(points)
		f := art.Fig9[r]
		f.B = sum
		setReading(&art.Fig9, r, f)
		if err := summary.SweepErr(points); err != nil {
			return v, fmt.Errorf("%v reading: %w", r, err)
		}
		if err := setPairedGeomeans(&v, "fig9b", ReadingSuffix(r), sum,
			fmt.Sprintf("(model, workload) pairs, %v reading; the paper's 20 include Llama 4's 4K/256K and 4K/1M KV-spill cases, not simulated yet", r)); err != nil {
			return v, err
		}
	}
	// The KV footprint of the Llama 4 long decode follows from the spec.
	m := reference.MustModel("llama4-maverick")
	f, err := m.Footprint()
	if err != nil {
		return v, err
	}
	tokens := llama4LongDecode.Prompt + llama4LongDecode.Output
	kv := f.KVBytesPerTokenPerLayer * unit.Bytes(m.NumLayers) * unit.Bytes(tokens)
	v.Set("fig9b.llama4_4k_1m.kv_cache_gb", kv.GB(),
		fmt.Sprintf("%d tokens x %d layers x %v KV per token per layer", tokens, m.NumLayers, f.KVBytesPerTokenPerLayer))
	return v, nil
}

// llama4LongDecode is Fig. 9(b)'s KV-overflow workload 4K/1M (K = 1024 for
// the prompt, M = 10^6 for the decode: the lengths that give the paper's
// 197.413 GB KV cache).
var llama4LongDecode = Fig9bWorkload{Label: "4K/1M", Prompt: 4096, Output: 1_000_000}

// setPairedGeomeans sets the prefix's throughput-speedup and E2E-reduction geomeans of
// DASH over each baseline, from the sweep's summary, with the reading's id suffix.
func setPairedGeomeans(v *values, prefix, readingSuffix string, sum summary.Fig9, what string) error {
	for _, base := range fig9Baselines {
		p, ok := sum.Against(base)
		if !ok || len(p.Missing) > 0 {
			return fmt.Errorf("%s: missing dash or %s results for %d cases", prefix, base, len(p.Missing))
		}
		suffix := ".vs_" + strings.ReplaceAll(base, "-", "_") + readingSuffix
		n := fmt.Sprintf("%d %s", len(p.Cases), what)
		v.Set(prefix+".throughput_speedup_geomean"+suffix, p.ThroughputSpeedupGeomean, "geomean of decode-throughput ratios over "+n+misfits(sum.Points))
		v.Set(prefix+".e2e_reduction_pct"+suffix, p.E2EReductionPct, "1 - geomean of E2E ratios over "+n)
	}
	return nil
}
