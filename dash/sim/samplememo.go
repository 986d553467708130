package sim

import (
	"errors"
	"reflect"
	"sync"

	"github.com/dashlab/dashlab/dash"
)

// Sampled decodes that share their program-free passes.
//
// A sampled decode (longdecode.go) measures two kinds of pass: the base
// step, with the step's writebacks dropped, and the step with them. A base
// step writes nothing to HBF, so no page program runs in it and the NAND
// program parameters (t_PROG, the program scope, program suspend and its
// latencies, HBM reads while programming) play no part in it; the KV
// ledger that decides the step's program does not depend on them either.
// Runs whose experiments differ only in those parameters therefore measure
// the same base steps: a DecodeSamples shared by them (Options.Samples)
// holds each base step's record once, measured by the first run that needs
// it. A record is kept only if its pass started no program (checked as it
// is measured); the records are the same integers whichever run measured
// them, so every run's result is what it is alone. Fig. 12's t_PROG sweep
// and its program models share the nominal run's base steps.

// DecodeSamples holds the base-step records of sampled decodes, shared by
// runs whose experiments differ only in the NAND program parameters. It is
// safe for concurrent use; NewDecodeSamples makes one.
type DecodeSamples struct {
	mu     sync.Mutex
	exp    dash.Experiment // the first run's experiment, program parameters cleared
	sample int             // its Options.DecodeSample
	set    bool
	runs   int                  // the runs that share it
	steps  map[int]*sampleEntry // by decode step
	shared int                  // records taken from another run
}

// sampleEntry is one base step's record, measured once; done is closed
// when it is known (ok false: the pass programmed, or its run failed).
// left is how many other runs have still to look it up: at 0 it is dropped.
type sampleEntry struct {
	done chan struct{}
	rec  record
	ok   bool
	left int
}

// NewDecodeSamples returns an empty set of base steps shared by runs runs:
// a record is dropped once every one of them has looked it up, so that the
// set holds only the steps some run has still to reach. More runs than runs
// may share it; a step dropped before one of them reaches it is simulated
// again, results unchanged.
func NewDecodeSamples(runs int) *DecodeSamples {
	return &DecodeSamples{runs: max(runs, 1), steps: map[int]*sampleEntry{}}
}

// Shared counts the base steps runs took from the set instead of
// simulating them.
func (m *DecodeSamples) Shared() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.shared
}

// attach checks that a run of exp sampling every s-th block may share m:
// the first run sets its experiment, the others must have the same one up
// to the NAND program parameters.
func (m *DecodeSamples) attach(exp dash.Experiment, s int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.set {
		m.exp, m.sample, m.set = exp, s, true
		return nil
	}
	if s != m.sample || !sameButPrograms(m.exp, exp) {
		return errors.New("sim: Options.Samples is shared by runs whose experiments differ beyond the NAND program parameters (hbf.t_prog, program_scope, program_suspend, t_suspend, t_resume, execution.hbm_while_programming) or in Options.DecodeSample")
	}
	return nil
}

// sameButPrograms reports whether a and b are the same experiment up to the
// NAND program parameters.
func sameButPrograms(a, b dash.Experiment) bool {
	sa, sb := a.System(), b.System()
	for _, s := range []*dash.SystemSpec{&sa, &sb} {
		s.HBF.TProg, s.HBF.ProgramScope, s.HBF.ProgramSuspend, s.HBF.TSuspend, s.HBF.TResume = 0, "", false, 0, 0
	}
	xa, xb := a.Execution(), b.Execution()
	xa.HBMWhileProgramming, xb.HBMWhileProgramming = false, false
	ta, tb := a.Timing(), b.Timing()
	if ta == nil || tb == nil || reflect.TypeOf(ta) != reflect.TypeOf(tb) || !reflect.TypeOf(ta).Comparable() || ta != tb {
		return false
	}
	return reflect.DeepEqual(sa, sb) && reflect.DeepEqual(xa, xb) && reflect.DeepEqual(a.Model(), b.Model()) &&
		reflect.DeepEqual(a.Workload(), b.Workload()) && reflect.DeepEqual(a.Plan(), b.Plan()) &&
		reflect.DeepEqual(a.Routes(), b.Routes()) && reflect.DeepEqual(a.Inventory(), b.Inventory()) &&
		reflect.DeepEqual(a.Footprint(), b.Footprint()) && a.RoutingTraceBound() == nil && b.RoutingTraceBound() == nil
}

// base returns the record of decode step s with its writebacks dropped:
// from m when a run measured it, else measured by r (and kept in m if its
// pass started no program).
func (m *DecodeSamples) base(r *recorder, ctx, s int) (record, error) {
	if m == nil {
		return r.measure(ctx, s, false)
	}
	m.mu.Lock()
	if en, ok := m.steps[s]; ok {
		if en.left--; en.left <= 0 {
			delete(m.steps, s)
		}
		m.mu.Unlock()
		<-en.done
		if en.ok {
			m.mu.Lock()
			m.shared++
			m.mu.Unlock()
			r.program(ctx, s) // what building it leaves in the run: its extrapolated shapes
			return en.rec, nil
		}
		return r.measure(ctx, s, false)
	}
	en := &sampleEntry{done: make(chan struct{}), left: m.runs - 1}
	if en.left > 0 {
		m.steps[s] = en
	}
	m.mu.Unlock()
	defer close(en.done)
	programs := r.e.programCount()
	rec, err := r.measure(ctx, s, false)
	if err == nil && r.e.programCount() == programs {
		en.rec, en.ok = rec, true
	}
	return rec, err
}

// programCount is the page programs the engine's stacks have started.
func (e *engine) programCount() int64 {
	var n int64
	for i := range e.hbf {
		n += e.hbf[i].programs
	}
	return n
}

// program builds the step's program without its writebacks, as measure
// does, without running it: a shared step still leaves in the run's
// program builder what its build does (Result.Extrapolated's shapes).
func (r *recorder) program(ctx, step int) {
	defer r.dropWritebacks()()
	r.build(ctx, step)
}
