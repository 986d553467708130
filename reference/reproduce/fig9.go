package reproduce

import (
	"fmt"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
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

// Fig9bWorkloads are the sequence-length cases of Fig. 9(b) (K = 1024).
var Fig9bWorkloads = []Fig9bWorkload{
	{"512/16", 512, 16}, {"4K/16", 4096, 16}, {"512/20K", 512, 20480}, {"20K/20K", 20480, 20480},
}

// Fig9Result holds the sweeps behind Fig. 9 under one reading of t_R.
type Fig9Result struct {
	A []Point // 1K/128, B in {1,4,16,64}
	B []Point // B = 1, the Fig9bWorkloads
}

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
func Fig9Case(model, system string, batch, prompt, output int, r dash.Reading) Case {
	c := Case{Model: model, System: system, Batch: batch, Prompt: prompt, Output: output, Reading: r}
	if IsDASH(system) {
		c.Modify = func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.Lookahead(true) }
	}
	return c
}

// IsDASH reports whether a named system is a DASH architecture (both the
// direct and the relay path), as opposed to a single-path baseline.
func IsDASH(system string) bool {
	s, err := dash.PaperSystem(system)
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

func fig9aSpecs(r dash.Reading) []Case {
	var specs []Case
	for _, m := range reference.Fig9ModelIDs {
		for _, b := range Fig9aBatches {
			for _, s := range Fig9Systems {
				specs = append(specs, Fig9Case(m, s, b, 1024, 128, r))
			}
		}
	}
	return specs
}

func runFig9a(opts Options, art *Artifacts) (Values, error) {
	var v Values
	for _, r := range dash.Readings() {
		specs := fig9aSpecs(r)
		points := runSweep(specs, opts.Workers)
		art.fig9(r).A = points
		if err := SweepErr(points); err != nil {
			return v, fmt.Errorf("%v reading: %w", r, err)
		}
		var b4 []Case
		for _, sp := range specs {
			if sp.Batch == 4 {
				b4 = append(b4, sp)
			}
		}
		sfx := ReadingSuffix(r)
		if err := setPairedGeomeans(&v, "fig9a", sfx, points, specs, fmt.Sprintf("(model, B) pairs, %v reading", r)); err != nil {
			return v, err
		}
		tput, e2e, err := paired(points, b4, "relay-only")
		if err != nil {
			return v, err
		}
		what := fmt.Sprintf("B=4, five models, %v reading", r)
		v.Set("intro.b4.throughput_speedup_geomean.vs_relay_only"+sfx, Geomean(tput), what)
		v.Set("intro.b4.e2e_reduction_pct.vs_relay_only"+sfx, 100*(1-Geomean(e2e)), what)
	}
	return v, nil
}

func fig9bSpecs(r dash.Reading) []Case {
	var specs []Case
	for _, m := range reference.Fig9ModelIDs {
		model := reference.MustModel(m)
		for _, w := range Fig9bWorkloads {
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

func runFig9b(opts Options, art *Artifacts) (Values, error) {
	var v Values
	for _, r := range dash.Readings() {
		specs := fig9bSpecs(r)
		points := runSweep(specs, opts.Workers)
		art.fig9(r).B = points
		if err := SweepErr(points); err != nil {
			return v, fmt.Errorf("%v reading: %w", r, err)
		}
		if err := setPairedGeomeans(&v, "fig9b", ReadingSuffix(r), points, specs,
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
	tokens := Llama4LongDecode.Prompt + Llama4LongDecode.Output
	kv := f.KVBytesPerTokenPerLayer * unit.Bytes(m.NumLayers) * unit.Bytes(tokens)
	v.Set("fig9b.llama4_4k_1m.kv_cache_gb", kv.GB(),
		fmt.Sprintf("%d tokens x %d layers x %v KV per token per layer", tokens, m.NumLayers, f.KVBytesPerTokenPerLayer))
	return v, nil
}

// Llama4LongDecode is Fig. 9(b)'s KV-overflow workload 4K/1M (K = 1024 for
// the prompt, M = 10^6 for the decode: the lengths that give the paper's
// 197.413 GB KV cache).
var Llama4LongDecode = Fig9bWorkload{Label: "4K/1M", Prompt: 4096, Output: 1_000_000}

// setPairedGeomeans sets the prefix's throughput-speedup and E2E-reduction
// geomeans of DASH over each baseline, with the reading's id suffix.
func setPairedGeomeans(v *Values, prefix, readingSuffix string, points []Point, specs []Case, what string) error {
	for _, base := range []string{"relay-only", "direct-only"} {
		tput, e2e, err := paired(points, specs, base)
		if err != nil {
			return err
		}
		suffix := ".vs_" + strings.ReplaceAll(base, "-", "_") + readingSuffix
		n := fmt.Sprintf("%d %s", len(tput), what)
		v.Set(prefix+".throughput_speedup_geomean"+suffix, Geomean(tput), "geomean of decode-throughput ratios over "+n+misfits(points))
		v.Set(prefix+".e2e_reduction_pct"+suffix, 100*(1-Geomean(e2e)), "1 - geomean of E2E ratios over "+n)
	}
	return nil
}

// PairedRatio returns DASH's decode-throughput ratio and E2E-latency ratio
// over a baseline run of the same work: the paired ratios Fig. 9's
// geomeans are taken over.
func PairedRatio(dash, base Point) (throughput, e2e float64) {
	return dash.Result.DecodeThroughput / base.Result.DecodeThroughput, dash.Result.E2E.Seconds() / base.Result.E2E.Seconds()
}

// paired returns, for every DASH point of specs, the ratios DASH / base of
// decode throughput and of E2E latency on the same work.
func paired(points []Point, specs []Case, base string) (tput, e2e []float64, err error) {
	for _, sp := range specs {
		if sp.System != "dash" {
			continue
		}
		d, okD := Find(points, sp.Model, "dash", sp.Batch, sp.Prompt, sp.Output)
		x, okX := Find(points, sp.Model, base, sp.Batch, sp.Prompt, sp.Output)
		if !okD || !okX {
			return nil, nil, fmt.Errorf("missing dash or %s for %s B=%d %d/%d", base, sp.Model, sp.Batch, sp.Prompt, sp.Output)
		}
		t, e := PairedRatio(d, x)
		tput, e2e = append(tput, t), append(e2e, e)
	}
	return tput, e2e, nil
}
