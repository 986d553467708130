package reproduce

import (
	"fmt"
	"strings"

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

// Fig9Result holds the sweeps behind Fig. 9.
type Fig9Result struct {
	A []Point // 1K/128, B in {1,4,16,64}
	B []Point // B = 1, the Fig9bWorkloads
}

func init() {
	register(group{name: "fig9a", prefixes: []string{"fig9a.", "intro.b4."}, run: runFig9a})
	register(group{name: "fig9b", prefixes: []string{"fig9b."}, run: runFig9b})
}

func runFig9a(opts Options, art *Artifacts) (Values, error) {
	var specs []Case
	for _, m := range reference.Fig9ModelIDs {
		for _, b := range Fig9aBatches {
			for _, s := range Fig9Systems {
				specs = append(specs, Case{Model: m, System: s, Batch: b, Prompt: 1024, Output: 128})
			}
		}
	}
	points := runSweep(specs, opts.Workers)
	art.Fig9.A = points
	var v Values
	if err := SweepErr(points); err != nil {
		return v, err
	}
	var b4 []Case
	for _, sp := range specs {
		if sp.Batch == 4 {
			b4 = append(b4, sp)
		}
	}
	if err := setPairedGeomeans(&v, "fig9a", points, specs, "(model, B) pairs"); err != nil {
		return v, err
	}
	tput, e2e, err := paired(points, b4, "relay-only")
	if err != nil {
		return v, err
	}
	v.Set("intro.b4.throughput_speedup_geomean.vs_relay_only", Geomean(tput), "B=4, five models")
	v.Set("intro.b4.e2e_reduction_pct.vs_relay_only", 100*(1-Geomean(e2e)), "B=4, five models")
	return v, nil
}

func fig9bSpecs() []Case {
	var specs []Case
	for _, m := range reference.Fig9ModelIDs {
		model := reference.MustModel(m)
		for _, w := range Fig9bWorkloads {
			if model.MaxContext > 0 && w.Prompt+w.Output > model.MaxContext {
				continue // the paper includes only workloads within the context window
			}
			for _, s := range Fig9Systems {
				specs = append(specs, Case{Model: m, System: s, Batch: 1, Prompt: w.Prompt, Output: w.Output})
			}
		}
	}
	return specs
}

func runFig9b(opts Options, art *Artifacts) (Values, error) {
	specs := fig9bSpecs()
	points := runSweep(specs, opts.Workers)
	art.Fig9.B = points
	var v Values
	if err := SweepErr(points); err != nil {
		return v, err
	}
	if err := setPairedGeomeans(&v, "fig9b", points, specs,
		"(model, workload) pairs; the paper's 20 include Llama 4's 4K/256K and 4K/1M KV-spill cases, not simulated yet"); err != nil {
		return v, err
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
// geomeans of DASH over each baseline.
func setPairedGeomeans(v *Values, prefix string, points []Point, specs []Case, what string) error {
	for _, base := range []string{"relay-only", "direct-only"} {
		tput, e2e, err := paired(points, specs, base)
		if err != nil {
			return err
		}
		suffix := ".vs_" + strings.ReplaceAll(base, "-", "_")
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
