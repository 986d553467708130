package dash

import (
	"errors"
	"fmt"

	"github.com/dashlab/dashlab/dash/routing"
)

// RoutingModel is the model's routing shape, as package routing checks a
// trace against it.
func (m ModelSpec) RoutingModel() routing.Model {
	moe, _ := m.MoELayerSet()
	return routing.Model{ID: m.ID, Layers: m.NumLayers, MoELayers: moe, Experts: m.FFN.RoutedExperts, TopK: m.FFN.TopK}
}

// RoutingTrace sets the trace of kind trace directly (a trace read or
// generated in a notebook, or a shipped one), instead of reading
// workload.routing.file at Build; the kind becomes trace and the file
// names the trace.
func (b ExperimentBuilder) RoutingTrace(t *routing.Trace, wrap bool) ExperimentBuilder {
	if t == nil {
		return b.fail(errors.New("workload.routing: RoutingTrace(nil)"))
	}
	b.trace = t
	b.workload.Routing = RoutingSpec{Kind: RoutingTrace, File: t.Name(), Wrap: wrap}
	return b
}

// bindRouting reads (or takes) and checks the recorded routing of kind
// trace against the model. Whether the trace holds the tokens a run needs
// is the runner's check (the fixed batch in sim.RunWith, each request in
// serve), under the trace's rule.
func (b ExperimentBuilder) bindRouting(e *experiment) error {
	r := e.workload.Routing
	if r.EffectiveKind() != RoutingTrace {
		if r.EffectiveKind() == RoutingSynthetic {
			if _, err := routing.NewSource(r.Synthetic(), e.model.RoutingModel()); err != nil {
				return fmt.Errorf("workload.routing: %w", err)
			}
		}
		return nil
	}
	t := b.trace
	if t == nil || t.Name() != r.File {
		var err error
		if t, err = routing.ReadCached(r.File); err != nil {
			return fmt.Errorf("workload.routing.file: %w", err)
		}
	}
	bound, err := t.Bind(e.model.RoutingModel(), r.Wrap)
	if err != nil {
		return fmt.Errorf("workload.routing.file: %w", err)
	}
	e.trace = bound
	return nil
}

// RoutingSource returns the experiment's per-token routing (kinds trace
// and synthetic) as a routing.Source for one simulation: the bound trace
// (shared, read-only), or a new generator. Nil for the formula kinds
// (balanced, uniform, zipf).
func (e Experiment) RoutingSource() routing.Source {
	x := e.get()
	switch x.workload.Routing.EffectiveKind() {
	case RoutingTrace:
		if x.trace == nil {
			return nil
		}
		return x.trace
	case RoutingSynthetic:
		src, err := routing.NewSource(x.workload.Routing.Synthetic(), x.model.RoutingModel())
		if err != nil { // Build checked it
			return nil
		}
		return src
	}
	return nil
}

// RoutingTraceBound is the bound trace of kind trace (nil otherwise).
func (e Experiment) RoutingTraceBound() *routing.Bound { return e.get().trace }
