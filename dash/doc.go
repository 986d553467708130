// Package dash is the specification layer of dashlab, a simulator of the
// DASH memory system (HBM and High-Bandwidth Flash stacks attached to a GPU
// over UCIe, with direct, relay and HBM-HBF paths) for MoE inference.
//
// # Where it sits
//
// Data flow one way through dashlab: spec -> Build -> engine -> harness summary ->
// charts / CLI / notebooks. This package is the first two steps: specs (plain values,
// decoded strictly, each with Validate) and [ExperimentBuilder.Build], which validates
// everything and plans the placement into an immutable [Experiment]. Package sim runs
// an Experiment into a sim.Result; reference/reproduce summarises results against the
// paper (the types of package summary); package charts draws the summaries. Nothing here knows a
// paper number or a catalogue id: package reference resolves ids ([Catalogue]).
//
// # Specs
//
// Everything the simulator takes is a plain value with yaml tags, decoded
// strictly (an unknown key is an error that names it): a [ModelSpec] (an MoE
// architecture, from which [ModelSpec.Inventory] derives every stored tensor
// with its dtype layout, and [Footprint] the totals: Table II's weights, the
// expert share, bytes per expert, KV bytes per token), a [SystemSpec] (one
// [HBMSpec], one [HBFSpec] and one [LinkSpec] part, replicated by a
// [TopologySpec] of stack pairs with any subset of the GPU-HBM, GPU-HBF and
// HBM-HBF paths, each link at its own usable rate (a pair may hold several
// HBM stacks sharing its HBF stack, or no HBF at all); Build compiles it
// into a [RouteTable], every resource with its rate and every route as a
// list of hops, which the engine runs; the engine holds no named system: the paper's four
// configurations, with every value cited, are files of reference/systems), a
// [WorkloadSpec] and an [ExecutionSpec]. Quantities carry units from package unit: GB is 1e9
// bytes and GiB 2^30, and a YAML value without its unit is refused.
//
// # Knobs
//
// Every leaf field of SystemSpec, WorkloadSpec and ExecutionSpec is a knob
// ([Knob]): an override path (hbf.t_read, link.usable, workload.batch) with a
// typed value, whose knob tag beside its yaml tag gives its symbol, what it
// is, its plausible range and its source. [Knobs] is the table; Validate's
// range checks ([RangeError]), the what-if labels ([Change.Label]), the
// builder's [ExperimentBuilder.Set] and [ExperimentBuilder.With], experiment
// files' overrides, and, above this package, the notebooks' knobs, sweep
// axes, the CLI's --set and docs/knobs.md are all read from it. A knob with a
// rule (hbf.page_size sizes the SRAM regions to the new page wave,
// link.usable scales the lane rate) follows it wherever it is set. No zero
// value stands for "the paper's": a read pipeline of depth 0 is refused (the
// paper reading is hbf.read_waves_in_flight: unbounded, or hbf.reading:
// paper), and the zero [Reading] leaves a system's own depth alone.
//
// # Experiments
//
// [NewExperiment] starts a fluent, value-semantics builder: every method
// returns a new builder, so a base can be forked for sweeps. Build validates
// everything at once (each message names the field and the bad value),
// derives the inventory, and plans placement ([Plan], the policy of the
// paper's section V-A: experts striped over the HBF stacks, every-token
// weights replicated in HBM and HBF, prefill KV in HBF, decode KV in HBM).
// An experiment that does not fit its memory system is refused with an
// error that says "does not fit" and gives the bytes needed and available.
// The resulting [Experiment] is immutable: its accessors return copies.
//
// The GPU enters through [Timing], which package gpu implements from measured
// operator latencies. The simulation itself is package sim; the model
// catalogue, the measured profiles and the paper's published numbers are
// package reference, which this package never imports: users bring their
// own models, systems and profiles.
package dash
