package cluster

import (
	"errors"
	"reflect"
	"strings"

	"github.com/dashlab/dashlab/dash"
)

// Layout is how an experiment spreads a model over a cluster's GPUs: the
// parallel degrees, the expert placement and the routing distribution its
// loads follow. It is the cluster experiment file's own sections
// (parallel:, placement:, routing:).
//
// The cluster's knobs are rows of dash's one knob table (dash.KnobSpace):
// the hardware's fields (Spec: nodes, gpu.memory, interconnect.scale_up.rate,
// ...) and the layout's (parallel.expert, placement.policy, routing.zipf_s,
// ...) carry knob tags as dash's specs do, so that the range checks (Validate),
// the what-if labels (Changes), settings (Builder.With, Set), cluster
// experiment files' overrides, sweeps' overrides.PATH (the cluster sweep
// kind, reference/clusters), the CLI's --set, notebooks' nb.Knobs and
// docs/knobs.md are views of the same rows.
type Layout struct {
	// Parallel is the parallel layout.
	Parallel ParallelSpec `yaml:"parallel"`
	// Placement is the expert placement over the GPUs of a stage.
	Placement PlacementSpec `yaml:"placement,omitempty"`
	// Routing is the distribution of tokens over experts.
	Routing RoutingSpec `yaml:"routing,omitempty"`
	// Dispatch is how the expert-parallel all-to-alls move tokens.
	Dispatch DispatchSpec `yaml:"dispatch,omitempty"`
}

// DefaultLayout is one GPU, one instance: every degree 1, the contiguous
// placement and balanced routing (NewExperiment's layout).
func DefaultLayout() Layout {
	return Layout{Parallel: ParallelSpec{Tensor: 1, Expert: 1, Pipeline: 1, Data: 1}}
}

// Knob space names (dash.Knob.Space).
const (
	SpaceHardware = "cluster"
	SpaceLayout   = "cluster layout"
)

func init() {
	dash.MustRegisterKnobs(dash.KnobSpace{Name: SpaceHardware, Type: reflect.TypeFor[Spec](),
		Rules: map[string]func(any, any){"nodes": func(p, v any) { s := p.(*Spec); *s = s.WithNodes(v.(int)) }},
		Symbols: map[string]string{
			"interconnect.scale_up.rate": "scale-up", "interconnect.scale_up.latency": "alpha_scale-up", "interconnect.scale_up.energy": "e_scale-up",
			"interconnect.pcie.rate": "PCIe", "interconnect.pcie.latency": "alpha_PCIe", "interconnect.pcie.energy": "e_PCIe",
			"interconnect.network.rate": "NIC", "interconnect.network.latency": "alpha_NIC", "interconnect.network.energy": "e_NIC",
		}})
	dash.MustRegisterKnobs(dash.KnobSpace{Name: SpaceLayout, Type: reflect.TypeFor[Layout]()})
}

// IsClusterKnob reports whether a knob belongs to a cluster spec (its
// hardware or its layout) rather than to one GPU's experiment.
func IsClusterKnob(k dash.Knob) bool {
	return k.Space() == SpaceHardware || k.Space() == SpaceLayout
}

// Changes lists the knobs in which s differs from ref (the catalogue
// entry), as what-if labels ("scale-up 450 -> 900 GB/s"); the id, name,
// sources and notes are not knobs, and nodes changed by WithNodes is one
// change.
func Changes(ref, s Spec) []dash.Change { return dash.DiffKnobs(ref, s) }

// LayoutChanges lists the knobs in which l differs from ref.
func LayoutChanges(ref, l Layout) []dash.Change { return dash.DiffKnobs(ref, l) }

// rangeErrors are the knob range checks of part, less those under the
// paths skip lists (fields a kind leaves unused).
func rangeErrors(part any, skip ...string) []error {
	err := dash.CheckKnobs(part)
	if err == nil {
		return nil
	}
	var out []error
	for _, e := range unjoin(err) {
		var re *dash.RangeError
		if errors.As(e, &re) && skipped(re.Field, skip) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func skipped(field string, skip []string) bool {
	for _, p := range skip {
		if field == p || strings.HasPrefix(field, p+".") {
			return true
		}
	}
	return false
}

// unjoin splits an errors.Join into its errors.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
