package serve

import (
	"errors"
	"fmt"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
)

// Config is one serving simulation: the memory system and model (an
// experiment; its workload supplies only the routing model and the
// activation workspace the HBM plan reserves), the scheduler, the measured
// window and the engine switches.
type Config struct {
	// Experiment is the model, system, GPU and execution switches.
	Experiment dash.Experiment
	// Scheduler is the iteration-level scheduler.
	Scheduler Scheduler
	// Warmup requests (in arrival order) are simulated but not measured;
	// the next Measure requests are. Measure 0 measures every request after
	// the warm-up.
	Warmup, Measure int
	// Series keeps one record per iteration (memory grows with the run).
	Series bool
	// NoJump simulates every pass event by event (no replay, no jumps):
	// identical results, slower.
	NoJump bool
	// Approx switches on the optional faster pass model.
	Approx Approx
	// Memo, if not nil, holds the passes measured by other simulations of
	// the same experiment (sim.NewPassMemo of Experiment): passes found
	// there replay instead of being simulated, and those simulated are
	// added. Results are the same with or without it; a Study shares one
	// per system. Simulate uses it; SimulateOn's engine keeps its own.
	Memo *sim.PassMemo
}

// Approx is the optional approximation of the pass model. The zero value
// is exact.
type Approx struct {
	// KVQuantum, when positive, replaces an iteration's decode rows by as
	// many identical rows at their mean prompt and mean context, the context
	// rounded to the nearest multiple of KVQuantum tokens, so that many more
	// passes are identical and replay. Its error against the exact passes
	// is measured by TestApproxError and the benchmarks.
	KVQuantum int `json:"kv_quantum_tokens,omitempty"`
}

// Validate reports every bad field.
func (c Config) Validate() error {
	var errs []error
	if !c.Experiment.Valid() {
		errs = append(errs, errors.New("experiment: not built (use dash.NewExperiment()...Build())"))
	}
	if err := c.Scheduler.Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.Warmup < 0 || c.Warmup > MaxRequests {
		errs = append(errs, fmt.Errorf("warmup = %d: must be between 0 and %d", c.Warmup, MaxRequests))
	}
	if c.Measure < 0 || c.Measure > MaxRequests {
		errs = append(errs, fmt.Errorf("measure = %d: must be between 0 and %d", c.Measure, MaxRequests))
	}
	if c.Approx.KVQuantum < 0 || c.Approx.KVQuantum > MaxTokens {
		errs = append(errs, fmt.Errorf("approx.kv_quantum_tokens = %d: must be between 0 (exact) and %d", c.Approx.KVQuantum, MaxTokens))
	}
	return errors.Join(errs...)
}

// window returns the measured request ids [lo, hi) of n requests.
func (c Config) window(n int) (lo, hi int) {
	lo = min(c.Warmup, n)
	hi = n
	if c.Measure > 0 {
		hi = min(n, lo+c.Measure)
	}
	return lo, hi
}
