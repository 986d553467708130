package dash

import (
	"errors"
	"fmt"
	"slices"

	"github.com/dashlab/dashlab/dash/routing"
	"github.com/dashlab/dashlab/dash/unit"
)

// ExperimentBuilder assembles an experiment from a model, a memory system, a
// GPU timing model, a workload and execution switches. Every method returns
// a new builder value, so a base builder can be forked for sweeps without
// the forks affecting each other. Problems found while building up are
// recorded and reported, together with validation errors, by Build.
//
// The model, system and GPU are given as specs (Model, System, Timing) or as ids
// (ModelID, SystemID, GPU) that Build resolves through a Catalogue; the last call for
// each wins. Memory-system knobs (TRead, PageSize, Modify, ...) are recorded and
// applied by Build, in call order, to whichever system it ends up with: they work
// before or after System/SystemID alike.
type ExperimentBuilder struct {
	name      string
	catalogue Catalogue
	model     ModelSpec
	modelID   string
	hasModel  bool
	system    SystemSpec
	systemID  string
	hasSystem bool
	timing    Timing
	gpuID     string
	sysMods   []func(*SystemSpec)
	workload  WorkloadSpec
	execution ExecutionSpec
	trace     *routing.Trace // set by RoutingTrace
	errs      []error
}

// Catalogue resolves the ids of models, memory systems and GPUs for a builder. The
// engine ships no data: package reference provides the catalogue of the shipped files
// (reference.Catalogue).
type Catalogue interface {
	// Model returns the model with the given id.
	Model(id string) (ModelSpec, error)
	// System returns the memory system with the given id.
	System(id string) (SystemSpec, error)
	// Timing returns the timing model of the GPU with the given id.
	Timing(gpu string) (Timing, error)
}

// NewExperiment starts a builder with the paper's default fixed-batch
// workload (B/L_in/L_out = 4/1K/128, balanced routing) and no model, system
// or timing model yet.
func NewExperiment() ExperimentBuilder { return ExperimentBuilder{workload: DefaultWorkload()} }

// DefaultWorkload is the paper's default fixed-batch workload (§VI-A):
// B/L_in/L_out = 4/1K/128 with balanced routing.
func DefaultWorkload() WorkloadSpec { return WorkloadSpec{Batch: 4, Prompt: 1024, Output: 128} }

func (b ExperimentBuilder) fail(err error) ExperimentBuilder {
	b.errs = append(slices.Clip(b.errs), err)
	return b
}

// Name sets the experiment's name (used in reports).
func (b ExperimentBuilder) Name(name string) ExperimentBuilder { b.name = name; return b }

// Catalogue sets the catalogue that ModelID, SystemID and GPU resolve through.
func (b ExperimentBuilder) Catalogue(c Catalogue) ExperimentBuilder { b.catalogue = c; return b }

// Model sets the model. The spec is copied.
func (b ExperimentBuilder) Model(m ModelSpec) ExperimentBuilder {
	b.model, b.hasModel, b.modelID = m.clone(), true, ""
	return b
}

// ModelID sets the model by catalogue id (resolved by Build).
func (b ExperimentBuilder) ModelID(id string) ExperimentBuilder {
	b.model, b.hasModel, b.modelID = ModelSpec{}, false, id
	return b
}

// System sets the memory system. The spec is copied.
func (b ExperimentBuilder) System(s SystemSpec) ExperimentBuilder {
	b.system, b.hasSystem, b.systemID = s, true, ""
	return b
}

// SystemID sets the memory system by catalogue id ("dash", "relay-only",
// "direct-only", "compact-dash", "dash-4", ...), resolved by Build.
func (b ExperimentBuilder) SystemID(id string) ExperimentBuilder {
	b.system, b.hasSystem, b.systemID = SystemSpec{}, false, id
	return b
}

// GPU sets the GPU by catalogue id (its timing model is resolved by Build).
func (b ExperimentBuilder) GPU(id string) ExperimentBuilder {
	b.timing, b.gpuID = nil, id
	return b
}

// Timing sets the GPU timing model (which also fixes the GPU).
func (b ExperimentBuilder) Timing(t Timing) ExperimentBuilder { b.timing, b.gpuID = t, ""; return b }

// Workload replaces the whole workload.
func (b ExperimentBuilder) Workload(w WorkloadSpec) ExperimentBuilder { b.workload = w; return b }

// Batch sets the batch size B.
func (b ExperimentBuilder) Batch(n int) ExperimentBuilder { b.workload.Batch = n; return b }

// Prompt sets the prompt length L_in in tokens.
func (b ExperimentBuilder) Prompt(n int) ExperimentBuilder { b.workload.Prompt = n; return b }

// Output sets the generated length L_out in tokens.
func (b ExperimentBuilder) Output(n int) ExperimentBuilder { b.workload.Output = n; return b }

// Routing sets the expert-routing model.
func (b ExperimentBuilder) Routing(r RoutingSpec) ExperimentBuilder { b.workload.Routing = r; return b }

// Execution replaces the execution switches.
func (b ExperimentBuilder) Execution(e ExecutionSpec) ExperimentBuilder { b.execution = e; return b }

// LaunchOnlyOverhead keeps only the launch floor of each operator's fixed overhead
// (ExecutionSpec.LaunchOnlyOverhead), on or off.
func (b ExperimentBuilder) LaunchOnlyOverhead(on bool) ExperimentBuilder {
	b.execution.LaunchOnlyOverhead = on
	return b
}

// Lookahead turns early expert determination on or off.
func (b ExperimentBuilder) Lookahead(on bool) ExperimentBuilder { b.execution.Lookahead = on; return b }

// EarlyDelivery turns early expert delivery (§VI-D) on, into a GPU staging
// buffer of the given size (0: the GPU's L2), or off.
func (b ExperimentBuilder) EarlyDelivery(on bool, buffer unit.Bytes) ExperimentBuilder {
	b.execution.EarlyDelivery, b.execution.EarlyDeliveryBuffer = on, buffer
	return b
}

// Modify records f, which Build applies to a copy of the system spec after resolving
// it (with the other knobs, in call order): the general way to change any
// memory-system parameter inline.
func (b ExperimentBuilder) Modify(f func(*SystemSpec)) ExperimentBuilder {
	if f == nil {
		return b.fail(errors.New("Modify: nil function"))
	}
	b.sysMods = append(slices.Clip(b.sysMods), f)
	return b
}

// The typed knob methods below are Set with the knob's path (see Knob): the
// same rules, the same range checks, for the knobs set most.

// TRead sets the HBF page read latency t_R (hbf.t_read).
func (b ExperimentBuilder) TRead(d unit.Duration) ExperimentBuilder { return b.Set("hbf.t_read", d) }

// TProg sets the HBF page program latency t_PROG (hbf.t_prog).
func (b ExperimentBuilder) TProg(d unit.Duration) ExperimentBuilder { return b.Set("hbf.t_prog", d) }

// PageSize sets the HBF page size (hbf.page_size) and, by SystemSpec.SetPageSize's
// rule, sizes the SRAM regions to the new page wave.
func (b ExperimentBuilder) PageSize(p unit.Bytes) ExperimentBuilder { return b.Set("hbf.page_size", p) }

// LinkBandwidth sets the usable per-direction bandwidth of every link
// (link.usable). The lane rate scales with it, keeping the link's headroom
// of raw over usable (LinkSpec.SetUsable).
func (b ExperimentBuilder) LinkBandwidth(bw unit.BytesPerSecond) ExperimentBuilder {
	return b.Set("link.usable", bw)
}

// Pairs sets the number of HBM-HBF stack pairs (topology.pairs).
func (b ExperimentBuilder) Pairs(n int) ExperimentBuilder { return b.Set("topology.pairs", n) }

// Build validates everything and returns the immutable experiment: the
// model, system and workload specs, the timing model, the model's tensor
// inventory and the placement plan. All problems are reported at once; an
// experiment whose weights and KV cache do not fit fails with an error that
// names the model, the bytes needed and the bytes available.
func (b ExperimentBuilder) Build() (Experiment, error) {
	errs := slices.Clone(b.errs)
	b, rerrs := b.resolve()
	errs = append(errs, rerrs...)
	if !b.hasModel {
		if b.modelID == "" {
			errs = append(errs, errors.New("model: not set (use Model or ModelID)"))
		}
	} else if err := b.model.Validate(); err != nil {
		errs = append(errs, err)
	}
	if !b.hasSystem {
		if b.systemID == "" {
			errs = append(errs, errors.New("system: not set (use System or SystemID)"))
		}
	} else if err := b.system.Validate(); err != nil {
		errs = append(errs, err)
	}
	if b.timing == nil && b.gpuID == "" {
		errs = append(errs, errors.New("timing: no GPU timing model set (use Timing or GPU; the reference package provides them)"))
	}
	workloadErr := b.workload.Validate()
	if workloadErr != nil {
		errs = append(errs, workloadErr)
	}
	if err := b.execution.Validate(); err != nil {
		errs = append(errs, err)
	}
	if workloadErr == nil && b.hasModel && b.model.MaxContext > 0 && b.workload.Prompt+b.workload.Output > b.model.MaxContext {
		errs = append(errs, fmt.Errorf("workload: prompt + output = %d tokens exceeds model %s max_context %d",
			b.workload.Prompt+b.workload.Output, b.model.ID, b.model.MaxContext))
	}
	if len(errs) > 0 {
		return Experiment{}, errors.Join(errs...)
	}
	inv, err := b.model.Inventory()
	if err != nil {
		return Experiment{}, err
	}
	e := &experiment{
		name: b.name, model: b.model.clone(), system: b.system, timing: b.timing,
		workload: b.workload, execution: b.execution, inventory: inv,
	}
	if err := inv.checkFootprint(); err != nil {
		return Experiment{}, err
	}
	e.footprint = inv.Footprint(e.model)
	if err := checkScale(e.model, e.footprint, e.workload); err != nil {
		return Experiment{}, err
	}
	if err := b.bindRouting(e); err != nil {
		return Experiment{}, err
	}
	if e.name == "" {
		e.name = fmt.Sprintf("%s/%s/B%d/%d-%d", e.model.ID, e.system.ID, e.workload.Batch, e.workload.Prompt, e.workload.Output)
	}
	plan, err := planPlacement(e)
	if err != nil {
		return Experiment{}, err
	}
	e.plan = plan
	if e.routes, err = e.system.RouteTable(); err != nil {
		return Experiment{}, err
	}
	return Experiment{e: e}, nil
}

// ResolvedSystem returns the memory system Build would use: the system (resolved
// through the catalogue when given by id) with every knob applied, in call order.
func (b ExperimentBuilder) ResolvedSystem() (SystemSpec, error) {
	r, errs := b.resolve()
	if len(errs) > 0 {
		return SystemSpec{}, errors.Join(errs...)
	}
	if !r.hasSystem {
		return SystemSpec{}, errors.New("system: not set (use System or SystemID)")
	}
	return r.system, nil
}

// resolve looks the builder's ids up in its catalogue and applies the system knobs;
// each failed lookup is an error naming the field.
func (b ExperimentBuilder) resolve() (ExperimentBuilder, []error) {
	var errs []error
	lookup := func(field, id string, get func() error) {
		if id == "" {
			return
		}
		if b.catalogue == nil {
			errs = append(errs, fmt.Errorf("%s: id %q needs a catalogue (use Catalogue; reference.Catalogue has the shipped ones)", field, id))
			return
		}
		if err := get(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", field, err))
		}
	}
	lookup("model", b.modelID, func() (err error) {
		if b.model, err = b.catalogue.Model(b.modelID); err == nil {
			b.hasModel = true
		}
		return err
	})
	lookup("system", b.systemID, func() (err error) {
		if b.system, err = b.catalogue.System(b.systemID); err == nil {
			b.hasSystem = true
		}
		return err
	})
	lookup("gpu", b.gpuID, func() (err error) {
		b.timing, err = b.catalogue.Timing(b.gpuID)
		return err
	})
	if b.hasSystem {
		for _, f := range b.sysMods {
			f(&b.system)
		}
	}
	return b, errs
}

// MustBuild is Build for notebooks: it panics on error.
func (b ExperimentBuilder) MustBuild() Experiment {
	e, err := b.Build()
	if err != nil {
		panic(err)
	}
	return e
}

// Experiment is a validated, immutable experiment. Its accessors return
// copies; derive a variant with Builder.
type Experiment struct{ e *experiment }

type experiment struct {
	name      string
	model     ModelSpec
	system    SystemSpec
	timing    Timing
	workload  WorkloadSpec
	execution ExecutionSpec
	inventory Inventory
	footprint Footprint
	plan      Plan
	routes    RouteTable
	trace     *routing.Bound // kind trace: the trace checked against the model
}

// get returns the experiment's data, or zero data for the zero Experiment,
// whose accessors therefore return zero values instead of panicking.
func (e Experiment) get() *experiment {
	if e.e == nil {
		return &experiment{}
	}
	return e.e
}

// Valid reports whether e came from a successful Build.
func (e Experiment) Valid() bool { return e.e != nil }

// Name is the experiment's name ("" for the zero Experiment).
func (e Experiment) Name() string { return e.get().name }

// Model returns a copy of the model spec.
func (e Experiment) Model() ModelSpec { return e.get().model.clone() }

// System returns a copy of the system spec.
func (e Experiment) System() SystemSpec { return e.get().system }

// Routes is the memory system's route table, compiled and checked by Build.
func (e Experiment) Routes() RouteTable { return e.get().routes.Clone() }

// Workload returns a copy of the workload.
func (e Experiment) Workload() WorkloadSpec { return e.get().workload }

// Execution returns a copy of the execution switches.
func (e Experiment) Execution() ExecutionSpec { return e.get().execution }

// Timing returns the GPU timing model (nil for the zero Experiment).
func (e Experiment) Timing() Timing { return e.get().timing }

// Footprint returns the model's derived footprint.
func (e Experiment) Footprint() Footprint { return e.get().footprint }

// Inventory returns a copy of the model's tensor inventory.
func (e Experiment) Inventory() Inventory { return e.get().inventory.clone() }

// Plan returns the placement plan.
func (e Experiment) Plan() Plan { return e.get().plan.clone() }

// Builder returns a builder holding this experiment's settings, to derive a
// variant ("the same, with t_R = 32 µs"). The zero Experiment gives
// NewExperiment().
func (e Experiment) Builder() ExperimentBuilder {
	if e.e == nil {
		return NewExperiment()
	}
	return ExperimentBuilder{
		name: "", model: e.e.model.clone(), hasModel: true, system: e.e.system, hasSystem: true,
		timing: e.e.timing, workload: e.e.workload, execution: e.e.execution, trace: e.e.traceOf(),
	}
}

// clone deep-copies the spec (slices and pointers).
func (m ModelSpec) clone() ModelSpec {
	c := m
	c.Sources = slices.Clone(m.Sources)
	if m.Attention.MLA != nil {
		mla := *m.Attention.MLA
		if mla.Indexer != nil {
			ix := *mla.Indexer
			mla.Indexer = &ix
		}
		c.Attention.MLA = &mla
	}
	return c
}

// traceOf is the trace a builder derived from the experiment reuses.
func (e *experiment) traceOf() *routing.Trace {
	if e.trace == nil {
		return nil
	}
	return e.trace.Trace()
}
