package reproduce

import (
	"fmt"
	"slices"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/offload"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// Fig. 10: CPU-GPU offloading (§VI-C). Qwen3-235B-A22B at L_in/L_out =
// 1K/128 and B in {1, 4, 16, 64}: weight streaming, CPU compute and the
// Hybrid oracle against the engine's DASH run, with the host measurements
// of reference/profiles/h200-host-offload (see package offload).

// Fig10Model is the model of the comparison (the host measured its layer).
const Fig10Model = "qwen3-235b-a22b"

// Fig10Batches are the batch sizes of Fig. 10(b).
var Fig10Batches = []int{1, 4, 16, 64}

// Fig10Cores is the paper's host core cap for Fig. 10(b) (a Xeon Platinum
// 8452Y; the shipped host has 16 cores, so 32 is modelled).
const Fig10Cores = 32

// fig10CoreCurve are the core caps of Fig. 10(a): the measured 1..16 and
// the modelled 32.
var fig10CoreCurve = []int{1, 2, 4, 8, 16, 32}

// OffloadOptions select an offloading study.
type OffloadOptions struct {
	// Model is the catalogue model; its expert layer must be the one the
	// host measured.
	Model string
	// Batches, Prompt and Output are the workloads (B, L_in, L_out).
	Batches        []int
	Prompt, Output int
	// Cores are the host core caps to evaluate.
	Cores []int
	// Reading is the reading of t_R for the engine's DASH run.
	Reading dash.Reading
	// Workers bounds the simulations run at once (0: GOMAXPROCS).
	Workers int
	// Knobs are set on the engine's DASH runs first (a what-if of their system).
	Knobs []dash.Setting
}

// offloadStudy runs the engine's DASH (as in Fig. 9: lookahead where the
// router allows) for the model at each batch and evaluates the offloading
// alternatives with each host's layer times at each core cap: per host, one
// evaluation list per cap, in the order of cores[host]. The DASH runs are shared.
func offloadStudy(hosts []*offload.HostProfile, cores [][]int, o OffloadOptions) ([][][]offload.Evaluation, error) {
	model, prompt, output := o.Model, o.Prompt, o.Output
	m, err := reference.Model(model)
	if err != nil {
		return nil, err
	}
	f, err := m.Footprint()
	if err != nil {
		return nil, err
	}
	shape := offload.LayerShape{Hidden: m.HiddenSize, Inter: m.FFN.MoEIntermediate, Experts: m.FFN.RoutedExperts, TopK: m.FFN.TopK}
	if per := unit.Bytes(3 * shape.Hidden * shape.Inter); per > 0 {
		shape.WeightBytes = int(f.BytesPerExpert / per)
	}
	var cases []summary.Case
	for _, b := range o.Batches {
		c := Fig9Case(model, "dash", b, prompt, output, o.Reading)
		c.Knobs = withKnobs(o.Knobs, c.Knobs)
		cases = append(cases, c)
	}
	points := Sweep(cases, o.Workers)
	if err := summary.SweepErr(points); err != nil {
		return nil, err
	}
	out := make([][][]offload.Evaluation, len(hosts))
	for h := range hosts {
		out[h] = make([][]offload.Evaluation, len(cores[h]))
	}
	for _, p := range points {
		if p.Err != nil {
			return nil, fmt.Errorf("%s B=%d on dash: %w", model, p.Batch, p.Err)
		}
		r := p.Result
		timing, err := reference.Timing(r.GPU)
		if err != nil {
			return nil, err
		}
		spec, err := reference.GPU(r.GPU)
		if err != nil {
			return nil, err
		}
		kv := f.KVBytesPerTokenPerLayer * unit.Bytes(m.NumLayers*p.Batch*(prompt+output))
		s := offload.Scenario{Batch: p.Batch, MoELayers: f.MoELayers, Shape: shape,
			CachedFraction:    offload.CacheFraction(spec.MemCapacity, f.NonExpertBytes+f.SharedExpertBytes, kv, f.RoutedExpertBytes),
			NonExpertPerToken: nonExpertPerToken(r.Decode.Classes, output),
			DASHTPOT:          r.TPOT}
		for h, host := range hosts {
			for i, c := range cores[h] {
				s.Cores = c
				e, err := offload.Evaluate(s, host, timing)
				if err != nil {
					return nil, fmt.Errorf("%s B=%d, host %s, %d cores: %w", model, p.Batch, host.Name, c, err)
				}
				out[h][i] = append(out[h][i], e)
			}
		}
	}
	return out, nil
}

// nonExpertPerToken is the decode phase's GPU time outside the expert
// operators, per decode step: the same for every scheme.
func nonExpertPerToken(classes []sim.ClassTime, output int) unit.Duration {
	var t unit.Duration
	for _, c := range classes {
		if c.Class != sim.ClassExperts {
			t += c.Time
		}
	}
	return t / unit.Duration(max(1, output-1))
}

// coreCurve is Fig. 10(a): the host's expert-layer latency per batch at
// each core cap, measured or modelled, with the fits used.
func coreCurve(host *offload.HostProfile, cores []int) ([]summary.CoreCurvePoint, []offload.AmdahlFit, error) {
	var pts []summary.CoreCurvePoint
	var fits []offload.AmdahlFit
	for _, b := range host.Batches() {
		fit, err := host.Fit(b)
		if err != nil {
			return nil, nil, err
		}
		fits = append(fits, fit)
		for _, c := range cores {
			t, err := host.LayerTime(b, c)
			if err != nil {
				return nil, nil, err
			}
			pts = append(pts, summary.CoreCurvePoint{Batch: b, Cores: c, Latency: t.Latency, Modelled: t.Modelled})
		}
	}
	return pts, fits, nil
}

func init() {
	register(group{name: "fig10", prefixes: []string{"fig10."}, run: runFig10})
}

// Fig10Study is Fig. 10 for a host and options: the core curve
// (Fig10CoreCurve and o.Cores[0]), the evaluations at o.Cores[0] and at the
// host's largest tabulated core count.
func Fig10Study(host *offload.HostProfile, o OffloadOptions) (*summary.Fig10Result, error) {
	res, err := Fig10Studies([]*offload.HostProfile{host}, o)
	if err != nil {
		return nil, err
	}
	return res[0], nil
}

// Fig10Studies is Fig10Study for several hosts, sharing the engine's DASH runs: one
// result per host, in order. A derived host's result carries its derivation.
func Fig10Studies(hosts []*offload.HostProfile, o OffloadOptions) ([]*summary.Fig10Result, error) {
	if len(o.Cores) == 0 {
		return nil, fmt.Errorf("fig10: no core cap")
	}
	curve := append([]int(nil), fig10CoreCurve...)
	if !slices.Contains(curve, o.Cores[0]) {
		curve = append(curve, o.Cores[0])
		slices.Sort(curve)
	}
	var out []*summary.Fig10Result
	var cores [][]int
	for _, host := range hosts {
		res := &summary.Fig10Result{Model: o.Model, GPU: reference.DefaultGPU, Prompt: o.Prompt, Output: o.Output, Reading: o.Reading,
			Host: host.Name, Derived: host.Derived}
		var err error
		if res.Curve, res.Fits, err = coreCurve(host, curve); err != nil {
			return nil, err
		}
		threads := host.Threads()
		cores = append(cores, []int{o.Cores[0], threads[len(threads)-1]})
		out = append(out, res)
	}
	evs, err := offloadStudy(hosts, cores, o)
	if err != nil {
		return nil, err
	}
	for h, res := range out {
		res.Evaluations, res.Measured = evs[h][0], evs[h][1]
		variant := ""
		if res.Host == reference.MeasuredHost || res.Host == reference.HostOffloadProfile {
			variant = VariantMeasuredHost
		}
		res.Rows = fig10Rows(res.Evaluations, dash.ReadingPaper, variant, fig10Design(o, res.Host)) // another reading: a what-if (fig10Design)
	}
	return out, nil
}

// fig10Design lists how an offloading study differs from the paper's Fig. 10(b):
// Qwen3-235B-A22B at 1K/128, B in Fig10Batches, Fig10Cores cores of the paper's
// host (reference.PaperHost; the measured host is a variant, reported beside it),
// the paper reading of t_R.
func fig10Design(o OffloadOptions, host string) summary.WhatIf {
	var w summary.WhatIf
	if host != reference.PaperHost && host != reference.MeasuredHost && host != reference.HostOffloadProfile { // the measured host is a variant
		w = w.Add(dash.Change{Field: "host", From: reference.PaperHost, To: host})
	}
	if o.Model != Fig10Model {
		w = w.Add(dash.Change{Field: "model", From: Fig10Model, To: o.Model})
	}
	if !slices.Equal(o.Batches, Fig10Batches) {
		w = w.Add(dash.Change{Field: "B", From: fmt.Sprint(Fig10Batches), To: fmt.Sprint(o.Batches)})
	}
	if o.Prompt != 1024 || o.Output != 128 {
		w = w.Add(dash.Change{Field: "L_in/L_out", From: lengthsLabel(1024, 128), To: lengthsLabel(o.Prompt, o.Output)})
	}
	if len(o.Cores) > 0 && o.Cores[0] != Fig10Cores {
		w = w.Add(dash.Change{Field: "host cores", From: fmt.Sprint(Fig10Cores), To: fmt.Sprint(o.Cores[0])})
	}
	if o.Reading != dash.ReadingPaper {
		w = w.Add(dash.Change{Field: "reading", From: dash.ReadingPaper.String(), To: o.Reading.String()})
	}
	return w
}

// fig10Rows judges Fig. 10(b)'s Hybrid range over the evaluations (a variant's
// reported beside the checked values).
func fig10Rows(evs []offload.Evaluation, r dash.Reading, variant string, w summary.WhatIf) []summary.Row {
	if len(evs) == 0 {
		return nil
	}
	var slow, red []float64
	for _, e := range evs {
		slow = append(slow, e.Slowdown(e.Hybrid))
		red = append(red, e.HybridReductionPct())
	}
	var rows []summary.Row
	for _, x := range []struct {
		id string
		v  float64
	}{
		{"fig10.hybrid_slowdown_vs_dash.min", slices.Min(slow)}, {"fig10.hybrid_slowdown_vs_dash.max", slices.Max(slow)},
		{"fig10.hybrid_reduction_pct.min", slices.Min(red)}, {"fig10.hybrid_reduction_pct.max", slices.Max(red)},
	} {
		if row, err := judgeVariant(x.id, r, variant, x.v, w); err == nil {
			rows = append(rows, row)
		}
	}
	return rows
}

func runFig10(opts Options, art *Artifacts) (values, error) {
	var v values
	paper, err := reference.Host(reference.PaperHost)
	if err != nil {
		return v, err
	}
	measured, err := reference.Host(reference.MeasuredHost)
	if err != nil {
		return v, err
	}
	set := func(f *summary.Fig10Result, sfx, detail string) {
		var slow, red []float64
		for _, e := range f.Evaluations {
			slow = append(slow, e.Slowdown(e.Hybrid))
			red = append(red, e.HybridReductionPct())
		}
		v.Set("fig10.hybrid_slowdown_vs_dash.min"+sfx, slices.Min(slow), detail)
		v.Set("fig10.hybrid_slowdown_vs_dash.max"+sfx, slices.Max(slow), detail)
		v.Set("fig10.hybrid_reduction_pct.min"+sfx, slices.Min(red), detail+"; over the better of weight streaming and CPU compute")
		v.Set("fig10.hybrid_reduction_pct.max"+sfx, slices.Max(red), detail)
	}
	for _, r := range opts.readings() {
		o := OffloadOptions{Model: Fig10Model, Batches: Fig10Batches, Prompt: 1024, Output: 128,
			Cores: []int{Fig10Cores}, Reading: r, Workers: opts.Workers, Knobs: opts.Knobs}
		hosts := []*offload.HostProfile{paper}
		if r == dash.ReadingPaper && len(opts.Knobs) == 0 {
			hosts = append(hosts, measured)
		}
		fs, err := Fig10Studies(hosts, o)
		if err != nil {
			return v, fmt.Errorf("%v reading: %w", r, err)
		}
		setReading(&art.Fig10, r, fs[0])
		sfx := ReadingSuffix(r)
		set(fs[0], sfx, fmt.Sprintf("Qwen3 1K/128, B in %v, %d cores of the %s (derived, not measured: the measured host's layer times, per-core term x %.3f by clock, shared term at %v of DRAM); DASH TPOT from the engine, %v reading",
			Fig10Batches, Fig10Cores, reference.PaperHost, paper.Derived.ClockScale, paper.Derived.Memory, r))
		if len(fs) > 1 {
			art.Fig10Measured = fs[1]
			set(fs[1], sfx+"."+VariantMeasuredHost, fmt.Sprintf("Qwen3 1K/128, B in %v, %d cores of the measured %s (modelled from its 1..16-core measurements); DASH TPOT from the engine, %v reading",
				Fig10Batches, Fig10Cores, reference.MeasuredHost, r))
		}
	}
	return v, nil
}
