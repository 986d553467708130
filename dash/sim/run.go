package sim

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/dashlab/dashlab/dash"
)

// Options adjust a simulation.
type Options struct {
	// Trace records the timeline of one layer of one pass (pass 0 is the
	// prefill, pass 1 the first decode step).
	Trace *TraceSpec
	// NoJump disables every closed-form shortcut: each chunk and each layer
	// is simulated event by event. Results are identical; only slower.
	NoJump bool
	// DecodeSample, when above 1, samples long decodes: the decode step
	// that starts every DecodeSample-th paged-KV block is simulated, the
	// steps between take records interpolated linearly in the context, and
	// writeback steps add the exactly measured cost of every
	// DecodeSample-th writeback of the same layers (see longdecode.go).
	// 0 or 1 simulates every distinct step. Ignored with NoJump or a traced
	// decode pass.
	DecodeSample int
	// Samples, when set with DecodeSample, is shared by sampled decodes whose
	// experiments differ only in the NAND program parameters: each base step
	// (no writeback, hence no program) is simulated by one of them and its
	// record reused by the others, results unchanged (samplememo.go).
	Samples *DecodeSamples `json:"-"`
	// MaxEvents is the run's event budget: a run that would handle more
	// events stops with a *BudgetError (0: DefaultMaxEvents).
	MaxEvents int64
	// MaxWall is the run's wall-clock budget: a run that takes longer stops
	// with a *BudgetError (0: DefaultMaxWall).
	MaxWall time.Duration
	// audit checks the physics as the run goes (tests; see auditor).
	audit *auditor
}

// TraceSpec selects the layer to trace.
type TraceSpec struct {
	// Pass is the forward pass: 0 is the prefill, s the s-th decode step.
	Pass int
	// Layer is the decoder layer.
	Layer int
}

// Run simulates a fixed-batch experiment.
func Run(exp dash.Experiment) (Result, error) { return RunWith(exp, Options{}) }

// RunWith simulates a fixed-batch experiment with options.
func RunWith(exp dash.Experiment, opts Options) (Result, error) {
	if !exp.Valid() {
		return Result{}, errors.New("sim: experiment was not built (use dash.NewExperiment()...Build())")
	}
	start := time.Now()
	bud, err := newBudget(opts, start)
	if err != nil {
		return Result{}, err
	}
	cfg, err := newConfig(exp)
	if err != nil {
		return Result{}, err
	}
	e := newEngine(cfg)
	e.useShortcuts(!opts.NoJump)
	e.replaySegments()
	e.budget = bud
	e.useAudit(opts)
	pb := newProgramBuilder(exp)
	if pb.rec, err = newRecorded(exp, pb.layers); err != nil {
		return Result{}, err
	}
	if pb.rec != nil {
		pb.rec.eng = e
	}
	w := exp.Workload()
	if b := exp.RoutingTraceBound(); b != nil { // the B requests' tokens up to the last processed one
		if err := b.Need(w.Batch, w.Prompt+w.Output-1); err != nil {
			return Result{}, fmt.Errorf("sim: workload.routing.file: %w", err)
		}
	}
	res := Result{Name: exp.Name(), Model: exp.Model().ID, System: exp.System().ID, GPU: exp.Timing().GPU().ID,
		Batch: w.Batch, Prompt: w.Prompt, Output: w.Output}

	var phaseStart stats
	runPhase := func(p pass, idx int) error {
		if opts.Trace != nil && opts.Trace.Pass == idx {
			e.trace = &traceRec{layer: opts.Trace.Layer}
		}
		err := e.runPass(&p)
		if e.trace != nil {
			res.Timeline = &Timeline{Pass: idx, Layer: e.trace.layer, Ops: e.trace.ops, Spans: e.trace.spans}
			e.trace = nil
		}
		return err
	}
	phaseStart = e.st.clone()
	if err := pb.routeFixed(0, w.Prompt, false); err != nil {
		return Result{}, err
	}
	if err := runPhase(pb.build(false, w.Prompt, 0), 0); err != nil {
		return Result{}, err
	}
	res.TTFT = e.now
	res.Prefill = e.st.phase(phaseStart, res.TTFT)
	phaseStart = e.st.clone()
	// Decode steps. Each pass starts with the memory system idle (every
	// transfer of the previous pass has completed), so two steps with the
	// same program take the same time and leave the same statistics: the
	// first is simulated, the others replay its measured increments.
	type replay struct {
		d     Time
		delta []int64
	}
	memo := map[stepKey]replay{}
	var before, after []int64
	var tmpl *pass
	if pb.kv, err = newKVLedger(exp); err != nil {
		return Result{}, err
	}
	firstWB := 0
	sampled := opts.DecodeSample > 1 && !opts.NoJump && (opts.Trace == nil || opts.Trace.Pass == 0) && pb.rec == nil
	if sampled && opts.Samples != nil {
		if err := opts.Samples.attach(exp, opts.DecodeSample); err != nil {
			return Result{}, err
		}
	}
	if sampled {
		if err := e.sampledDecode(opts.Samples, pb, w.Prompt, w.Output, opts.DecodeSample, &firstWB); err != nil {
			return Result{}, err
		}
	}
	// Runs of replayed steps are queued (m x a record) and applied in bulk
	// (replays.go) before a step is simulated and at the end.
	var run replay
	var runKey stepKey
	runN := 0
	endRun := func() error {
		if runN > 0 {
			e.queueReplay(run.d, run.delta, runN)
			runN = 0
		}
		e.flushReplays()
		return e.err
	}
	for s := 1; s < w.Output && !sampled; s++ {
		ctx := w.Prompt + s
		if pb.kv != nil {
			pb.kv.advance()
			if firstWB == 0 && pb.kv.total > 0 {
				firstWB = s
			}
		}
		if err := pb.routeFixed(s, ctx, true); err != nil {
			return Result{}, err
		}
		key := pb.decodeKey(ctx, s)
		traced := opts.Trace != nil && opts.Trace.Pass == s
		if r, ok := memo[key]; ok && !opts.NoJump && !traced {
			if pb.rec != nil {
				pb.rec.step(r.d)
			}
			if runN > 0 && key != runKey {
				e.queueReplay(run.d, run.delta, runN)
				runN = 0
			}
			run, runKey = r, key
			runN++
			if e.err == nil {
				e.err = e.checkBudget()
			}
			if e.err != nil {
				return Result{}, e.err
			}
			continue
		}
		if err := endRun(); err != nil {
			return Result{}, err
		}
		if tmpl == nil {
			p := pb.build(true, ctx, s)
			tmpl = &p
		} else {
			pb.setContext(tmpl, ctx, s)
		}
		t0 := e.now
		before = e.globalCounters(before[:0])
		if err := runPhase(*tmpl, s); err != nil {
			return Result{}, err
		}
		after = e.globalCounters(after[:0])
		delta := make([]int64, len(after))
		for i := range after {
			delta[i] = after[i] - before[i]
		}
		if len(memo) > 64 { // keys never recur once the context has moved on
			clear(memo)
		}
		memo[key] = replay{d: e.now - t0, delta: delta}
		if pb.rec != nil {
			pb.rec.step(e.now - t0)
		}
	}
	if err := endRun(); err != nil {
		return Result{}, err
	}
	res.E2E = e.now
	res.Decode = e.st.phase(phaseStart, res.E2E-res.TTFT)
	res.KV = kvStats(exp, pb.kv)
	if pb.rec != nil {
		res.Routing = pb.rec.finish()
	}
	res.KV.FirstWritebackStep = firstWB
	programs := make([]int64, len(e.hbf))
	var progBusy Time
	for i := range e.hbf {
		programs[i] = e.hbf[i].programs
		progBusy += e.hbf[i].progBusy
	}
	res.Flash = flashStats(exp, programs, progBusy)
	tokens := float64(w.Batch * w.Output)
	res.Throughput = tokens / res.E2E.Seconds()
	if w.Output > 1 {
		res.TPOT = (res.E2E - res.TTFT) / Time(w.Output-1)
		res.DecodeThroughput = float64(w.Batch*(w.Output-1)) / (res.E2E - res.TTFT).Seconds()
	}
	e.report(&res)
	for k := range pb.extrapolated {
		res.Extrapolated = append(res.Extrapolated, k)
	}
	slices.Sort(res.Extrapolated)
	res.Perf.Passes = w.Output
	res.Perf.Wall = time.Since(start)
	return res, nil
}

// runPass simulates one forward pass to its end (every operator finished
// and every write it issued completed).
func (e *engine) runPass(p *pass) error {
	e.pass = p
	if e.audit != nil {
		e.audit.start(&e.cfg, len(p.ops))
	}
	if cap(e.ops) >= len(p.ops) {
		e.ops = e.ops[:len(p.ops)]
		clear(e.ops)
	} else {
		e.ops = make([]opState, len(p.ops))
	}
	e.streams = e.streams[:0]
	e.active = e.active[:0]
	e.pc, e.passEnded, e.writesPending, e.maxOp = 0, false, 0, 0
	e.startOp(0)
	e.cut.opStarted(0)
	for !e.passEnded {
		if len(e.q) == 0 && !e.unstick() {
			return fmt.Errorf("sim: deadlock at %v in operator %d of %d (layer %d): no event pending",
				e.now, e.pc, len(p.ops), p.ops[min(e.pc, len(p.ops)-1)].layer)
		}
		ev := e.q.pop()
		e.now = ev.t
		e.st.events++
		e.processed++
		e.handle(ev)
		if e.err == nil {
			e.err = e.checkBudget()
		}
		if e.err != nil {
			return e.err
		}
	}
	if len(e.q) != 0 {
		return fmt.Errorf("sim: %d events left after the pass ended (first: %+v at %v)", len(e.q), e.q[0], e.now)
	}
	e.cut.passEnded()
	return nil
}

func (s stats) clone() stats {
	c := s
	c.classTime = append([]classStats(nil), s.classTime...)
	return c
}

// phase is the breakdown accumulated since from.
func (s stats) phase(from stats, d Time) Phase {
	p := Phase{Duration: d}
	for c := range numClasses {
		a, b := s.classTime[c], from.classTime[c]
		ct := ClassTime{Class: OpClass(c), Ops: a.ops - b.ops, Time: a.time - b.time,
			Compute: a.compute - b.compute, Overhead: a.overhead - b.overhead}
		ct.Stall = ct.Time - ct.Compute - ct.Overhead
		p.Classes = append(p.Classes, ct)
	}
	return p
}

// useAudit turns the auditor of opts on (tests).
func (e *engine) useAudit(opts Options) {
	e.audit = opts.audit
	if e.audit != nil {
		e.audit.deliveries = opts.NoJump
	}
}

// report fills the traffic statistics.
func (e *engine) report(r *Result) {
	for i, l := range e.links {
		if l.bytes == 0 && l.busy == 0 {
			continue
		}
		info := e.cfg.rt.links[i]
		r.Links = append(r.Links, LinkStats{Pair: info.pair, Link: info.label, Bytes: l.bytes, Busy: l.busy,
			Utilization: float64(l.busy) / float64(max(1, r.E2E))})
	}
	for i, h := range e.hbf {
		r.HBF = append(r.HBF, HBFStats{Stack: i, SenseBusy: h.senseBusy, ProgBusy: h.progBusy, Waves: h.waves,
			Programs: h.programs, Suspends: h.suspends, Flushes: h.flushes, TSVBusy: h.tsv.busy, TSVBytes: h.tsv.bytes, Resensed: h.resensed})
	}
	for rt := range numRoutes {
		if e.st.requested[rt] == 0 {
			continue
		}
		r.Routes = append(r.Routes, RouteStats{Route: Route(rt), Requested: e.st.requested[rt], Delivered: e.st.delivered[rt]})
	}
	r.Early = EarlyStats{Buffer: e.cfg.earlyBuf, Delivered: e.st.earlyBytes, Peak: e.st.earlyPeak}
	r.Perf.Events = e.processed
	r.Perf.ReplayedPasses = e.replayed
	r.Perf.SampledPasses = e.sampled
	r.Perf.SkippedEvents = e.st.events - e.processed
	e.cut.report(&r.Perf)
	if e.recorded != nil {
		e.recorded.report(&r.Perf)
	}
}
