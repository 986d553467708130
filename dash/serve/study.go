package serve

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/dashlab/dashlab/dash"
)

// StudySpec is a serving study: several systems replay the same Poisson
// traces at loads given as fractions of one baseline system's backlogged
// throughput (in the baseline mode), after each system's saturation is
// measured in every mode of SaturationModes.
type StudySpec struct {
	// Systems are the experiments compared (model, system, GPU, switches).
	Systems []dash.Experiment
	// Baseline is the id of the system whose backlogged throughput in
	// Scheduler.Mode defines load 1.0 (the paper: relay-only).
	Baseline string
	// Prompt and Output are the request lengths.
	Prompt, Output Length
	// Loads are the offered loads as fractions of the baseline throughput.
	Loads []float64
	// Seeds is the number of traces per load (seeds 1..Seeds).
	Seeds int
	// Warmup and Measure are the discarded and measured requests per trace.
	Warmup, Measure int
	// Scheduler is the scheduler of the load runs.
	Scheduler Scheduler
	// SaturationModes are the modes whose backlogged throughput is measured.
	SaturationModes []Mode
	// Approx is the optional faster pass model.
	Approx Approx
	// Series keeps each run's per-iteration records; KeepRuns keeps the
	// runs themselves (per-request metrics, gaps) in the result.
	Series, KeepRuns bool
	// Workers bounds the simulations run at once (0: GOMAXPROCS).
	Workers int
}

// StudyBuilder builds a StudySpec with the paper's defaults (§VI-E): 4,096
// prompt and 128 output tokens, loads 50/75/90% of relay-only's Mixed
// backlogged throughput, 5 seeds, 128 warm-up and 1,024 measured requests,
// the paper's scheduler, saturation in Mixed and Serial. It has value
// semantics: every method returns a new builder.
type StudyBuilder struct {
	s   StudySpec
	err error
}

// NewStudy starts a study with the paper's defaults and no systems.
func NewStudy() StudyBuilder {
	return StudyBuilder{s: StudySpec{Baseline: "relay-only", Prompt: Fixed(4096), Output: Fixed(128),
		Loads: []float64{0.5, 0.75, 0.9}, Seeds: 5, Warmup: 128, Measure: 1024, Scheduler: PaperScheduler(),
		SaturationModes: []Mode{Mixed, Serial}}}
}

// System adds experiments to compare.
func (b StudyBuilder) System(exps ...dash.Experiment) StudyBuilder {
	b.s.Systems = append(slices.Clip(b.s.Systems), exps...)
	return b
}

// Baseline names the system whose throughput defines load 1.0.
func (b StudyBuilder) Baseline(id string) StudyBuilder { b.s.Baseline = id; return b }

// Lengths sets the prompt and output length distributions.
func (b StudyBuilder) Lengths(prompt, output Length) StudyBuilder {
	b.s.Prompt, b.s.Output = prompt, output
	return b
}

// Loads sets the offered loads (fractions of the baseline's throughput).
func (b StudyBuilder) Loads(loads ...float64) StudyBuilder {
	b.s.Loads = slices.Clone(loads)
	return b
}

// Seeds sets the number of traces per load.
func (b StudyBuilder) Seeds(n int) StudyBuilder { b.s.Seeds = n; return b }

// Warmup sets the discarded requests per trace.
func (b StudyBuilder) Warmup(n int) StudyBuilder { b.s.Warmup = n; return b }

// Measure sets the measured requests per trace.
func (b StudyBuilder) Measure(n int) StudyBuilder { b.s.Measure = n; return b }

// Scheduler sets the whole scheduler.
func (b StudyBuilder) Scheduler(s Scheduler) StudyBuilder { b.s.Scheduler = s; return b }

// MaxBatch sets B_max.
func (b StudyBuilder) MaxBatch(n int) StudyBuilder { b.s.Scheduler.MaxBatch = n; return b }

// TokenBudget sets the iteration token budget.
func (b StudyBuilder) TokenBudget(n int) StudyBuilder { b.s.Scheduler.TokenBudget = n; return b }

// Chunk sets the prefill chunk length.
func (b StudyBuilder) Chunk(n int) StudyBuilder { b.s.Scheduler.Chunk = n; return b }

// Mode sets the schedule of the load runs and of the load reference.
func (b StudyBuilder) Mode(m Mode) StudyBuilder { b.s.Scheduler.Mode = m; return b }

// SaturationModes sets the modes whose backlogged throughput is measured.
func (b StudyBuilder) SaturationModes(ms ...Mode) StudyBuilder {
	b.s.SaturationModes = slices.Clone(ms)
	return b
}

// Approx switches on the optional faster pass model.
func (b StudyBuilder) Approx(a Approx) StudyBuilder { b.s.Approx = a; return b }

// Series keeps per-iteration records of every run (implies KeepRuns).
func (b StudyBuilder) Series(on bool) StudyBuilder { b.s.Series = on; return b }

// KeepRuns keeps every run's per-request metrics in the result.
func (b StudyBuilder) KeepRuns(on bool) StudyBuilder { b.s.KeepRuns = on; return b }

// Workers bounds the simulations run at once (0: GOMAXPROCS).
func (b StudyBuilder) Workers(n int) StudyBuilder { b.s.Workers = n; return b }

// Build validates the study.
func (b StudyBuilder) Build() (Study, error) {
	if b.err != nil {
		return Study{}, b.err
	}
	if err := b.s.Validate(); err != nil {
		return Study{}, err
	}
	s := b.s
	s.Systems, s.Loads, s.SaturationModes = slices.Clone(s.Systems), slices.Clone(s.Loads), slices.Clone(s.SaturationModes)
	return Study{spec: s}, nil
}

// Validate reports every bad field.
func (s StudySpec) Validate() error {
	var errs []error
	if len(s.Systems) == 0 {
		errs = append(errs, errors.New("systems: none given (use System)"))
	}
	found := false
	for i, e := range s.Systems {
		if !e.Valid() {
			errs = append(errs, fmt.Errorf("systems[%d]: experiment not built", i))
			continue
		}
		found = found || e.System().ID == s.Baseline
	}
	if !found && len(s.Systems) > 0 && len(s.Loads) > 0 {
		errs = append(errs, fmt.Errorf("baseline = %q: not among the systems", s.Baseline))
	}
	if err := s.Prompt.validate("prompt"); err != nil {
		errs = append(errs, err)
	}
	if err := s.Output.validate("output"); err != nil {
		errs = append(errs, err)
	}
	for i, l := range s.Loads {
		if !(l > 0) || math.IsInf(l, 0) || l > 100 {
			errs = append(errs, fmt.Errorf("loads[%d] = %v: must be a positive fraction of the baseline (at most 100)", i, l))
		}
	}
	if s.Seeds < 1 || s.Seeds > 1000 {
		errs = append(errs, fmt.Errorf("seeds = %d: must be between 1 and 1000", s.Seeds))
	}
	if s.Measure < 1 {
		errs = append(errs, fmt.Errorf("measure = %d: must be at least 1", s.Measure))
	}
	if s.Warmup < 0 || s.Warmup+s.Measure > MaxRequests {
		errs = append(errs, fmt.Errorf("warmup = %d, measure = %d: must be non-negative and total at most %d", s.Warmup, s.Measure, MaxRequests))
	}
	if err := s.Scheduler.Validate(); err != nil {
		errs = append(errs, err)
	}
	if s.Approx.KVQuantum < 0 {
		errs = append(errs, fmt.Errorf("approx.kv_quantum_tokens = %d: must not be negative", s.Approx.KVQuantum))
	}
	if s.Workers < 0 {
		errs = append(errs, fmt.Errorf("workers = %d: must not be negative", s.Workers))
	}
	return errors.Join(errs...)
}

// Study is a validated serving study; run it with Run.
type Study struct{ spec StudySpec }

// Spec returns the study's specification.
func (s Study) Spec() StudySpec { return s.spec }
