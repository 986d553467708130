package cluster

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dashlab/dashlab/dash"
)

// Builder assembles a cluster experiment: the hardware (a Spec), the model,
// how it is spread (ParallelSpec), where its experts go (PlacementSpec),
// the routing distribution and the workload. Like dash.ExperimentBuilder,
// every method returns a new value and Build reports every problem at
// once.
//
// Each GPU is simulated as a dash experiment of its shard of the model:
// the builder starts that experiment from the catalogue's memory system and
// GPU named by the spec (or Memory), and PerGPU edits it (any knob of the
// single-GPU builder: Reading, Lookahead, TRead, Modify, ...).
type Builder struct {
	cat       dash.Catalogue
	spec      Spec
	hasSpec   bool
	memory    string
	model     dash.ModelSpec
	modelID   string
	hasModel  bool
	parallel  ParallelSpec
	placement PlacementSpec
	routing   RoutingSpec
	dispatch  DispatchSpec
	workload  dash.WorkloadSpec
	batchSet  bool
	perGPU    []func(dash.ExperimentBuilder) dash.ExperimentBuilder
	settings  []dash.Setting // cluster, layout and workload knobs, applied by Build
	errs      []error
}

// NewExperiment starts a builder with no parallelism (1 GPU, one instance),
// the contiguous placement, balanced routing and the paper's fixed batch
// (B/L_in/L_out = 4/1K/128; unless Batch or Workload sets it, B is 4 per
// attention group).
func NewExperiment() Builder {
	return Builder{parallel: ParallelSpec{Tensor: 1, Expert: 1, Pipeline: 1, Data: 1},
		workload: dash.WorkloadSpec{Batch: 4, Prompt: 1024, Output: 128}}
}

// Catalogue sets what model, memory-system and GPU ids resolve through
// (reference.Catalogue has the shipped ones).
func (b Builder) Catalogue(c dash.Catalogue) Builder { b.cat = c; return b }

// Cluster sets the hardware.
func (b Builder) Cluster(s Spec) Builder {
	s.Sources = slices.Clone(s.Sources)
	b.spec, b.hasSpec = s, true
	return b
}

// Memory replaces the GPUs' memory system by a catalogue id ("dash",
// "relay-only", "compact-dash", an HBM-only system...): the same GPUs and
// interconnect with another memory.
func (b Builder) Memory(id string) Builder { b.memory = id; return b }

// Model sets the model.
func (b Builder) Model(m dash.ModelSpec) Builder {
	b.model, b.hasModel, b.modelID = m, true, ""
	return b
}

// ModelID sets the model by catalogue id.
func (b Builder) ModelID(id string) Builder {
	b.model, b.hasModel, b.modelID = dash.ModelSpec{}, false, id
	return b
}

// Parallel sets the parallel degrees.
func (b Builder) Parallel(p ParallelSpec) Builder { b.parallel = p; return b }

// Placement sets the expert placement.
func (b Builder) Placement(p PlacementSpec) Builder { b.placement = p; return b }

// Routing sets the routing distribution.
func (b Builder) Routing(r RoutingSpec) Builder { b.routing = r; return b }

// Dispatch sets how the expert-parallel all-to-alls move tokens.
func (b Builder) Dispatch(d DispatchSpec) Builder { b.dispatch = d; return b }

// Layout sets the parallel layout, the expert placement, the routing
// distribution and the dispatch at once.
func (b Builder) Layout(l Layout) Builder {
	b.parallel, b.placement, b.routing, b.dispatch = l.Parallel, l.Placement, l.Routing, l.Dispatch
	return b
}

// With applies knob settings as data (a cluster file's overrides, the
// CLI's --set, a sweep point; see Layout): the cluster's hardware and layout
// knobs and the workload's are applied by Build, in call order and as one
// batch (dash.ApplySettings), to the cluster and layout it ends up with; the
// GPUs' memory-system and execution knobs to every GPU's experiment, as
// PerGPU does. A bad setting is reported by Build.
func (b Builder) With(settings ...dash.Setting) Builder {
	var gpu []dash.Setting
	for _, s := range settings {
		k, err := dash.LookupKnob(s.Path)
		if err == nil {
			_, err = k.Parse(s.Value)
		}
		switch {
		case err != nil:
			b = b.Fail(err)
		case strings.HasPrefix(k.Path, "workload.routing."):
			b = b.Fail(&dash.ValueError{Path: k.Path, Value: s.Value, Reason: "a cluster's loads follow its layout's routing (routing.kind, routing.zipf_s, ...), not the workload's"})
		case IsClusterKnob(k) || strings.HasPrefix(k.Path, "workload."):
			b.settings = append(slices.Clip(b.settings), s)
		default: // one GPU's memory system or execution switches
			gpu = append(gpu, s)
		}
	}
	if len(gpu) > 0 {
		b = b.PerGPU(func(g dash.ExperimentBuilder) dash.ExperimentBuilder { return g.With(gpu...) })
	}
	return b
}

// Set sets a knob by its path to a typed value (b.Set("parallel.expert", 8),
// b.Set("interconnect.scale_up.rate", 900*unit.GBps), b.Set("hbf.t_read",
// 5*unit.Microsecond) on every GPU), as With does.
func (b Builder) Set(path string, v any) Builder {
	s, err := dash.SettingOf(path, v)
	if err != nil {
		return b.Fail(err)
	}
	return b.With(s)
}

// Workload sets the fixed-batch workload (its routing is ignored: see
// Routing).
func (b Builder) Workload(w dash.WorkloadSpec) Builder { b.workload, b.batchSet = w, true; return b }

// Batch, Prompt and Output set the fixed batch.
func (b Builder) Batch(n int) Builder  { b.workload.Batch, b.batchSet = n, true; return b }
func (b Builder) Prompt(n int) Builder { b.workload.Prompt = n; return b }
func (b Builder) Output(n int) Builder { b.workload.Output = n; return b }

// Fail records an error that Build reports (for helpers that resolve ids
// before building).
func (b Builder) Fail(err error) Builder {
	b.errs = append(slices.Clip(b.errs), err)
	return b
}

// PerGPU records an edit of every GPU's experiment (applied in call order).
func (b Builder) PerGPU(f func(dash.ExperimentBuilder) dash.ExperimentBuilder) Builder {
	if f == nil {
		b.errs = append(slices.Clip(b.errs), errors.New("PerGPU: nil function"))
		return b
	}
	b.perGPU = append(slices.Clip(b.perGPU), f)
	return b
}

// Experiment is a validated cluster experiment.
type Experiment struct {
	spec      Spec
	memory    string
	model     dash.ModelSpec
	parallel  ParallelSpec
	placement PlacementSpec
	routing   RoutingSpec
	dispatch  DispatchSpec
	workload  dash.WorkloadSpec
	template  dash.ExperimentBuilder
	stages    []Stage
}

// Stage is one pipeline stage: the dash experiment of one of its GPUs (the
// shard model on the GPU's memory system) and its MoE layers' placement.
type Stage struct {
	// Index is the stage's position; FirstLayer its first layer in the model.
	Index, FirstLayer int
	// GPU is the experiment of each GPU of the stage (all alike but for
	// their expert loads).
	GPU dash.Experiment
	// Placement holds, per local layer, where its experts live (nil for
	// dense layers and without expert parallelism).
	placement []*layerPlacement
	// caches are the GPUs' HBM expert caches (nil: none; see cache.go).
	caches []*gpuCache
}

// Spec is the cluster hardware.
func (e Experiment) Spec() Spec { return e.spec }

// Model is the whole model.
func (e Experiment) Model() dash.ModelSpec { return e.model }

// Parallel is the parallel layout.
func (e Experiment) Parallel() ParallelSpec { return e.parallel }

// PlacementSpec is the expert placement.
func (e Experiment) PlacementSpec() PlacementSpec { return e.placement }

// Layout is the parallel layout, placement, routing and dispatch.
func (e Experiment) Layout() Layout {
	return Layout{Parallel: e.parallel, Placement: e.placement, Routing: e.routing, Dispatch: e.dispatch}
}

// RoutingSpec is the routing distribution.
func (e Experiment) RoutingSpec() RoutingSpec { return e.routing }

// Workload is the fixed batch.
func (e Experiment) Workload() dash.WorkloadSpec { return e.workload }

// Stages are the pipeline stages.
func (e Experiment) Stages() []Stage { return slices.Clone(e.stages) }

// MemoryID is the GPUs' memory system id.
func (e Experiment) MemoryID() string { return e.memory }

// Valid reports whether e came from Build.
func (e Experiment) Valid() bool { return len(e.stages) > 0 }

// Name is "qwen3-235b-a22b on hgx-h100 (dash), TP8 EP8 PP1 DP1".
func (e Experiment) Name() string {
	return fmt.Sprintf("%s on %s (%s), %v", e.model.ID, e.spec.ID, e.memory, e.parallel)
}

// Build validates everything and derives every stage's GPU experiment. A
// shard that does not fit on its GPU fails with the dash.CapacityError,
// naming the stage and the parallel layout.
func (b Builder) Build() (Experiment, error) {
	e, w, err := b.check()
	if err != nil {
		return Experiment{}, err
	}
	if err := e.buildStages(w); err != nil {
		return Experiment{}, err
	}
	return e, nil
}

// Validate reports what Build would refuse but for capacity: every bad
// spec, layout, workload or knob, and the GPUs' memory system with its
// knobs, without planning a shard on its GPU (a sweep validates its points
// so; one that does not fit is a row of its own, not a bad spec).
func (b Builder) Validate() error {
	e, _, err := b.check()
	if err != nil {
		return err
	}
	if sys, err := e.template.ResolvedSystem(); err != nil {
		return err
	} else if err := sys.Validate(); err != nil {
		return err
	}
	return nil
}

// check validates everything but the shards' fit, and returns the
// experiment without stages and the per-GPU workload.
func (b Builder) check() (Experiment, dash.WorkloadSpec, error) {
	errs := slices.Clone(b.errs)
	if len(b.settings) > 0 && len(errs) == 0 {
		b.spec.Sources = slices.Clone(b.spec.Sources)
		lay := Layout{Parallel: b.parallel, Placement: b.placement, Routing: b.routing, Dispatch: b.dispatch}
		t := dash.KnobTarget{Workload: &b.workload, Parts: []any{&lay}}
		if b.hasSpec {
			t.Parts = append(t.Parts, &b.spec)
		}
		if err := dash.ApplySettings(t, b.settings...); err != nil {
			errs = append(errs, err)
		}
		b.parallel, b.placement, b.routing, b.dispatch = lay.Parallel, lay.Placement, lay.Routing, lay.Dispatch
		for _, s := range b.settings {
			b.batchSet = b.batchSet || s.Path == "workload.batch"
		}
	}
	if !b.hasSpec {
		if len(errs) == 0 {
			errs = append(errs, errors.New("cluster: not set (use Cluster; reference.Cluster has the shipped ones)"))
		}
	} else if err := b.spec.Validate(); err != nil {
		errs = append(errs, err)
	}
	if b.cat == nil {
		errs = append(errs, errors.New("catalogue: not set (use Catalogue; reference.Catalogue has the shipped ones)"))
	}
	m := b.model
	if !b.hasModel && b.cat != nil {
		if b.modelID == "" {
			errs = append(errs, errors.New("model: not set (use Model or ModelID)"))
		} else if got, err := b.cat.Model(b.modelID); err != nil {
			errs = append(errs, fmt.Errorf("model: %w", err))
		} else {
			m = got
		}
	}
	if len(errs) > 0 {
		return Experiment{}, dash.WorkloadSpec{}, errors.Join(errs...)
	}
	if err := m.Validate(); err != nil {
		return Experiment{}, dash.WorkloadSpec{}, err
	}
	p := b.parallel
	if err := p.Validate(m); err != nil {
		errs = append(errs, err)
	} else if need, have := p.GPUs(), b.spec.GPUs(); need > have {
		errs = append(errs, fmt.Errorf("parallel: %v needs %d GPUs, cluster %s has %d (nodes x gpus_per_node)", p, need, b.spec.ID, have))
	}
	if p.Expert > 1 {
		if err := b.placement.validate(m.FFN.RoutedExperts, p.Expert); err != nil {
			errs = append(errs, err)
		}
	} else if perr := rangeErrors(&Layout{Placement: b.placement}, "parallel", "routing"); len(perr) > 0 {
		errs = append(errs, perr...)
	} else if b.placement.Slots != 0 {
		errs = append(errs, fmt.Errorf("placement.slots = %d: only with expert parallelism (parallel.expert > 1)", b.placement.Slots))
	}
	if err := b.routing.validate(); err != nil {
		errs = append(errs, err)
	}
	if err := b.dispatch.validate(); err != nil {
		errs = append(errs, err)
	}
	if !b.batchSet && p.Tensor >= 1 && p.Expert >= 1 {
		b.workload.Batch *= p.AttentionGroups()
	}
	if err := b.workload.Validate(); err != nil {
		errs = append(errs, err)
	} else if a := p.AttentionGroups(); a > 0 && b.workload.Batch%a != 0 {
		errs = append(errs, fmt.Errorf("workload.batch = %d: not a multiple of the %d attention groups per stage (parallel.expert / parallel.tensor)", b.workload.Batch, a))
	}
	if len(errs) > 0 {
		return Experiment{}, dash.WorkloadSpec{}, errors.Join(errs...)
	}
	memory := b.memory
	if memory == "" {
		memory = b.spec.GPU.Memory
	}
	tmpl := dash.NewExperiment().Catalogue(b.cat).SystemID(memory).GPU(b.spec.GPU.Timing)
	for _, f := range b.perGPU {
		tmpl = f(tmpl)
	}
	e := Experiment{spec: b.spec, memory: memory, model: m, parallel: p, placement: b.placement,
		routing: b.routing, dispatch: b.dispatch, workload: b.workload, template: tmpl}
	w := b.workload
	w.Batch /= p.AttentionGroups()
	w.Routing = dash.RoutingSpec{}
	return e, w, nil
}

// buildStages derives the stages' GPU experiments for a per-GPU workload
// (it sizes each GPU's placement plan: workspace and KV).
func (e *Experiment) buildStages(w dash.WorkloadSpec) error {
	p, m := e.parallel, e.model
	slots := 0
	if p.Expert > 1 {
		slots = e.placement.slotsFor(m.FFN.RoutedExperts, p.Expert)
	}
	per := m.NumLayers / p.Pipeline
	moe, _ := m.MoELayerSet()
	e.stages = e.stages[:0]
	for s := range p.Pipeline {
		shard := p.shardModel(m, s, slots)
		gpu, err := e.template.Model(shard).Workload(w).Build()
		if err != nil {
			return fmt.Errorf("cluster %s, %v, stage %d (layers %d-%d) on one GPU (%s, %s): %w",
				e.spec.ID, p, s, s*per, (s+1)*per-1, e.spec.GPU.Timing, e.memory, err)
		}
		st := Stage{Index: s, FirstLayer: s * per, GPU: gpu, placement: make([]*layerPlacement, per)}
		// Expert parallelism places the experts over the stage's GPUs; without
		// it a skewed routing still sets how many experts each layer reads
		// (every GPU holds every expert, its slice of each).
		if p.Expert > 1 || e.routing.kind() != RoutingBalanced || e.routing.sampled() || gpu.Plan().ExpertCache > 0 {
			w := max(1, p.Expert)
			var shared *layerPlacement // balanced routing: every layer alike
			for l := range per {
				if !slices.Contains(moe, s*per+l) {
					continue
				}
				if shared != nil {
					st.placement[l] = shared
					continue
				}
				lp := e.placement.place(e.routing.popularity(s*per+l, m.FFN.RoutedExperts, m.FFN.TopK), w)
				st.placement[l] = &lp
				if e.routing.kind() == RoutingBalanced {
					shared = &lp
				}
			}
		}
		if st.caches, err = newStageCaches(st, max(1, p.Expert)); err != nil {
			return fmt.Errorf("cluster %s, %v, stage %d: %w", e.spec.ID, p, s, err)
		}
		e.stages = append(e.stages, st)
	}
	return nil
}

// WithWorkload rebuilds the stages' GPU experiments for another per-GPU
// workload (serving sizes each GPU's workspace for its share of the
// iteration budget).
func (e Experiment) WithWorkload(w dash.WorkloadSpec) (Experiment, error) {
	c := e
	c.stages = nil
	c.workload = w
	gw := w
	gw.Batch = max(1, w.Batch/e.parallel.AttentionGroups())
	gw.Routing = dash.RoutingSpec{}
	if err := c.buildStages(gw); err != nil {
		return Experiment{}, err
	}
	return c, nil
}
