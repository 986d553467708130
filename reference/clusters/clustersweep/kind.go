// Package clustersweep registers the sweep kind of cluster experiments
// (kind: cluster) with reference/sweep: a program that links it (the
// dashlab CLI, a notebook) sweeps cluster experiments with every feature of
// the sweep system. It is apart from package clusters, whose reproduce
// group the sweep package's tests import.
package clustersweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/reference/clusters"
	"github.com/dashlab/dashlab/reference/sweep"
)

// Kind is the sweep kind of cluster experiments (reference/sweep): each
// point runs the fixed batch of a cluster experiment (cluster.Run) and
// every sweep feature holds for it (axes, zip, where, shards, resume,
// merge, Slurm and Kubernetes). The base is an experiment file whose model,
// workload (one instance's batch) and execution switches are the cluster
// experiment's; its system is every GPU's memory system (dash by default,
// as in every sweep; an HBM-only GPU is its catalogue system: h200, h100,
// h100-pcie); its gpu and profile are left out (the GPUs are the
// cluster's gpu.timing); the cluster section names the catalogue cluster;
// every cluster knob (hardware: nodes, gpu.memory, interconnect.*; layout:
// parallel.*, placement.*, routing.*) and every memory-system knob (set on
// every GPU) is an override, in the base and as axes:
//
//	name: layouts
//	kind: cluster
//	cluster: {id: hgx-h200}
//	base:
//	  model: qwen3-235b-a22b
//	  system: dash
//	  workload: {batch: 64, prompt: 1024, output: 64}
//	  overrides: {hbf.reading: paper, routing: {kind: zipf, zipf_s: 1.0, seed: 1}}
//	axes:
//	  - {path: overrides.parallel.tensor, values: [1, 8, 8, 1, 2]}
//	  - {path: overrides.parallel.expert, values: [1, 1, 8, 8, 8]}
//	  - {path: overrides.placement.policy, values: [contiguous, popularity]}
//	zip: [[overrides.parallel.tensor, overrides.parallel.expert]]
const Kind = "cluster"

// Section is the cluster kind's section (cluster:).
type Section struct {
	// ID is the catalogue cluster (dashlab cluster list), swept as
	// cluster.id.
	ID string `yaml:"id"`
}

// Metrics are the cluster kind's metric columns.
var Metrics = []string{"gpus", "ttft_ms", "tpot_ms", "e2e_ms", "throughput_tok_per_s", "decode_throughput_tok_per_s",
	"decode_throughput_per_gpu_tok_per_s", "comm_share", "kv_tokens", "kv_headroom", "dispatched_pairs", "local_pairs"}

type sweepKind struct{}

func init() {
	if err := sweep.RegisterKind(sweepKind{}); err != nil {
		panic(err)
	}
}

func (sweepKind) Name() string { return Kind }
func (sweepKind) Section() (string, reflect.Type) {
	return "cluster", reflect.TypeFor[Section]()
}
func (sweepKind) Metrics() []string { return Metrics }

// TakesKnob: the cluster's knobs and the GPUs' memory-system knobs.
func (sweepKind) TakesKnob(k dash.Knob) bool {
	return cluster.IsClusterKnob(k) || k.Space() == "memory system"
}

// builder is the point's cluster experiment.
func (sweepKind) builder(p sweep.Point) cluster.Builder {
	sec := p.Params.(*Section)
	f := clusters.File{Cluster: sec.ID, Memory: p.File.System, Parallel: cluster.DefaultLayout().Parallel}
	b := f.Builder().Model(p.Model).Workload(p.File.Workload)
	if (p.File.GPU != "" && p.File.GPU != reference.DefaultGPU) || (p.File.Profile != "" && p.File.Profile != reference.DefaultProfile) {
		b = b.Fail(fmt.Errorf("gpu = %q, profile = %q: a cluster's GPUs are its gpu.timing (set overrides.gpu.timing)", p.File.GPU, p.File.Profile))
	}
	for _, s := range p.Settings {
		if s.Path == "gpu.memory" {
			b = b.Fail(fmt.Errorf("overrides.gpu.memory = %s: the GPUs' memory system is the experiment's system (sweep the path system)", s.Value))
		}
	}
	x := p.File.Execution
	b = b.PerGPU(func(g dash.ExperimentBuilder) dash.ExperimentBuilder { return g.Execution(x) })
	return b.With(p.Settings...)
}

func (k sweepKind) Validate(p sweep.Point) error {
	if p.Params.(*Section).ID == "" {
		return errors.New("cluster.id: not set (a catalogue cluster: dashlab cluster list)")
	}
	return k.builder(p).Validate()
}

// Cost is the fixed kind's estimate for the instance's layers (a cluster
// runs one engine pass per stage and step, the straggler's).
func (sweepKind) Cost(p sweep.Point) float64 {
	w := p.File.Workload
	return float64(max(1, p.Model.NumLayers)) * (256 + float64(w.Prompt)/8 + float64(w.Output)*(1+float64(w.Output)/(1<<18)))
}

func (k sweepKind) Run(ctx context.Context, p sweep.Point) (sweep.Outcome, error) {
	e, err := k.builder(p).Build()
	if err != nil {
		return sweep.Outcome{}, err
	}
	if err := ctx.Err(); err != nil {
		return sweep.Outcome{}, err
	}
	r, err := cluster.Run(e)
	if err != nil {
		return sweep.Outcome{}, err
	}
	head := r.KV.Headroom
	if math.IsInf(head, 0) || math.IsNaN(head) {
		head = 0
	}
	return sweep.Outcome{Metrics: []float64{float64(r.GPUs), r.TTFT.Milliseconds(), r.TPOT.Milliseconds(), r.E2E.Milliseconds(),
		r.Throughput, r.DecodeThroughput, r.PerGPU, r.CommShare, float64(r.KV.Tokens), head,
		float64(r.Stats.DispatchPairs), float64(r.Stats.LocalPairs)}, Result: r}, nil
}
