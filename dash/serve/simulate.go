package serve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

// Progress is reported while a simulation runs.
type Progress struct {
	// Done and Total count finished (or rejected) requests.
	Done, Total int
	// SimTime is the simulated time so far.
	SimTime unit.Duration
}

// live is an admitted request.
type live struct {
	req        Request
	prefilled  int // prompt tokens whose KV is cached
	generated  int // tokens produced
	admitted   unit.Duration
	firstToken unit.Duration
	lastToken  unit.Duration
	kv         unit.Bytes // KV written so far
	needHBF    unit.Bytes // reserved at admission
	needHBM    unit.Bytes
}

func (l *live) decoding() bool { return l.prefilled == l.req.Prompt }

// Engine runs the passes of one serving instance, one after another: a
// single GPU's sim.Passer (Simulate), or a group of GPUs running one model
// instance together (package cluster, through SimulateOn).
type Engine interface {
	// Run simulates one pass over rows, starting now.
	Run(rows []sim.Row) (sim.PassResult, error)
	// Now is the simulated time at the end of the last pass.
	Now() unit.Duration
	// Idle advances the clock to t (times in the past are ignored).
	Idle(t unit.Duration)
	// Counts reports the passes run and those replayed from identical
	// earlier ones.
	Counts() (passes, replays int)
}

// KVCapacity is the KV cache a serving instance can hold: the prompts' KV
// in HBF (prefill KV is written there), the generated tokens' in HBM
// within the decode-KV budget, and the bytes one token's KV takes. A
// package without HBF (HBMOnly) holds both in HBM.
type KVCapacity struct {
	HBF, HBM, PerToken unit.Bytes
	// HBMOnly puts the prompts' KV in HBM too (HBF is then 0).
	HBMOnly bool
}

// PlanKV is the KV capacity of one GPU with the experiment's placement
// plan, as Simulate uses it.
func PlanKV(exp dash.Experiment) KVCapacity {
	plan := exp.Plan()
	if plan.HBFStacks == 0 { // HBM only: the plan's budget left room for its own prompts' KV too
		return KVCapacity{HBM: plan.KV.HBMBudget + plan.KV.Prefill, PerToken: plan.KV.BytesPerToken, HBMOnly: true}
	}
	return KVCapacity{HBF: unit.Bytes(plan.HBFStacks) * (plan.HBF.Capacity - plan.HBF.Weights),
		HBM: plan.KV.HBMBudget, PerToken: plan.KV.BytesPerToken}
}

// passerEngine is a single GPU's Passer as an Engine.
type passerEngine struct{ *sim.Passer }

func (p passerEngine) Counts() (int, int) { return p.Passes, p.Replays }

// server is the state of one simulation: the active set, the queue and the
// KV reservations. Its memory is bounded by the active set and the queue.
type server struct {
	cfg     Config
	passer  Engine
	reqs    []Request
	lo, hi  int // measured window
	active  []*live
	waiting []Request
	head    int // next waiting request
	next    int // next arrival
	// KV capacity (bytes) and reservations.
	capHBF, capHBM   unit.Bytes
	usedHBF, usedHBM unit.Bytes
	perToken         unit.Bytes
	hbmOnly          bool // the prompts' KV in HBM too (KVCapacity.HBMOnly)
	maxContext       int  // the model's context (0: unbounded)
	run              *Run
	done             int
	rows             []sim.Row
	decodeRows       []sim.Row
	prefillRows      []sim.Row
	batch            []*live // active request of each row, in row order
	prefillOwners    []*live // active request of each prefill row
}

// Simulate serves reqs (sorted by arrival) and measures the window of
// cfg. progress, if not nil, is called every 64 iterations and at the end. Cancelling
// ctx stops the run cleanly: the returned Run covers the requests finished
// so far and has Interrupted set.
func Simulate(ctx context.Context, cfg Config, reqs []Request, progress func(Progress)) (*Run, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p, err := sim.NewPasser(cfg.Experiment, sim.Options{NoJump: cfg.NoJump})
	if err != nil {
		return nil, err
	}
	if cfg.Memo != nil {
		if err := p.ShareMemo(cfg.Memo); err != nil {
			return nil, err
		}
	}
	run, err := SimulateOn(ctx, cfg, passerEngine{p}, PlanKV(cfg.Experiment), reqs, progress)
	if run != nil {
		run.Routing = p.Routing()
	}
	return run, err
}

// SimulateOn is Simulate on an instance given by its engine and KV
// capacity (cfg.Experiment names the model and system in the Run; its
// Passer is not used).
func SimulateOn(ctx context.Context, cfg Config, p Engine, kv KVCapacity, reqs []Request, progress func(Progress)) (*Run, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, errors.New("serve: no engine")
	}
	if kv.PerToken <= 0 || kv.HBF < 0 || kv.HBM < 0 {
		return nil, fmt.Errorf("serve: KV capacity %+v: need a positive per-token size and non-negative capacities", kv)
	}
	if len(reqs) == 0 || len(reqs) > MaxRequests {
		return nil, fmt.Errorf("requests = %d: must be between 1 and %d", len(reqs), MaxRequests)
	}
	for i, r := range reqs {
		if r.ID != i || r.Prompt < 1 || r.Output < 1 || r.Arrival < 0 || (i > 0 && r.Arrival < reqs[i-1].Arrival) {
			return nil, fmt.Errorf("request %d: want ids in order, arrivals sorted and non-negative, lengths at least 1 (got %+v)", i, r)
		}
		if r.Prefilled && r.Output < 2 {
			return nil, fmt.Errorf("request %d: prefilled with output %d: nothing left to decode (its first token came with it)", i, r.Output)
		}
	}
	exp := cfg.Experiment
	if b := exp.RoutingTraceBound(); b != nil { // recorded routing: each request's tokens up to its last processed one
		for _, r := range reqs {
			if err := b.NeedRequest(r.ID, r.Prompt+r.Output-1); err != nil {
				return nil, fmt.Errorf("workload.routing.file: %w", err)
			}
		}
	}
	s := &server{cfg: cfg, passer: p, reqs: reqs,
		capHBF:     kv.HBF,
		capHBM:     kv.HBM,
		perToken:   kv.PerToken,
		hbmOnly:    kv.HBMOnly,
		maxContext: exp.Model().MaxContext,
		run:        &Run{Model: exp.Model().ID, System: exp.System().ID, Mode: cfg.Scheduler.Mode, Requests: len(reqs)},
	}
	s.lo, s.hi = cfg.window(len(reqs))
	if s.lo < s.hi {
		s.run.WindowStart, s.run.WindowEnd = reqs[s.lo].Arrival, reqs[s.hi-1].Arrival
	}
	start := time.Now()
	for s.done < len(reqs) {
		if ctx.Err() != nil {
			s.run.Interrupted = true
			break
		}
		if err := s.iterate(); err != nil {
			return nil, err
		}
		if progress != nil && s.run.Iters%64 == 0 {
			progress(Progress{Done: s.done, Total: len(reqs), SimTime: p.Now()})
		}
	}
	if progress != nil {
		progress(Progress{Done: s.done, Total: len(reqs), SimTime: p.Now()})
	}
	s.run.WindowRequests = s.hi - s.lo
	if s.run.Interrupted { // the window ends at the last measured arrival simulated
		n := 0
		for i := s.lo; i < s.hi && reqs[i].Arrival <= p.Now(); i++ {
			n++
		}
		s.run.WindowRequests = n
		if n > 0 {
			s.run.WindowEnd = reqs[s.lo+n-1].Arrival
		}
	}
	slices.SortFunc(s.run.Measured, func(a, b RequestMetrics) int { return a.ID - b.ID })
	s.run.SimTime = p.Now()
	s.run.Passes, s.run.Replays = p.Counts()
	if pe, ok := p.(passerEngine); ok {
		s.run.SharedReplays = pe.SharedHits
	}
	s.run.Wall = time.Since(start)
	return s.run, nil
}

// iterate runs one scheduler iteration (or idles to the next arrival).
func (s *server) iterate() error {
	now := s.passer.Now()
	s.arrive(now)
	if s.done == len(s.reqs) { // the last requests were rejected on arrival
		return nil
	}
	s.compose()
	if len(s.rows) == 0 {
		if s.next < len(s.reqs) {
			s.passer.Idle(s.reqs[s.next].Arrival)
			return nil
		}
		return fmt.Errorf("serve: no work at %v with %d requests waiting and %d active (KV reservations %v of %v HBF, %v of %v HBM)",
			now, len(s.waiting)-s.head, len(s.active), s.usedHBF, s.capHBF, s.usedHBM, s.capHBM)
	}
	it := Iteration{Start: now, Active: len(s.active), Waiting: len(s.waiting) - s.head}
	var busy unit.Duration
	runPass := func(rows []sim.Row) (unit.Duration, error) {
		if len(rows) == 0 {
			return s.passer.Now(), nil
		}
		pr, err := s.passer.Run(rows)
		if err != nil {
			return 0, err
		}
		it.ActiveExperts = max(it.ActiveExperts, pr.ActiveExperts)
		it.HBMRead += pr.HBMRead
		it.DirectRead += pr.DirectRead
		it.RelayRead += pr.RelayRead
		it.Written += pr.Written
		busy += pr.LinkBusy
		return s.passer.Now(), nil
	}
	var decEnd, preEnd unit.Duration
	var err error
	if s.cfg.Scheduler.Mode == Serial {
		if decEnd, err = runPass(s.decodeRows); err != nil {
			return err
		}
		if preEnd, err = runPass(s.prefillRows); err != nil {
			return err
		}
	} else {
		if decEnd, err = runPass(s.rows); err != nil {
			return err
		}
		preEnd = decEnd
	}
	end := s.passer.Now()
	it.Duration = end - now
	if it.Duration > 0 {
		it.LinkUtilization = float64(busy) / float64(it.Duration)
	}
	for i, l := range s.batch {
		r := s.rows[i]
		if r.Decode() {
			l.generated++
			l.kv += s.perToken
			s.run.KVAllocated += s.perToken
			s.token(l, decEnd)
		} else {
			l.prefilled += r.Tokens
			l.kv += unit.Bytes(r.Tokens) * s.perToken
			s.run.KVAllocated += unit.Bytes(r.Tokens) * s.perToken
			if l.prefilled == l.req.Prompt {
				l.generated = 1
				l.firstToken = preEnd
				s.token(l, preEnd)
			}
		}
	}
	s.retire()
	s.run.Iters++
	it.DecodeRows, it.PrefillRows, it.Tokens = len(s.decodeRows), len(s.prefillRows), 0
	for _, r := range s.rows {
		it.Tokens += r.Tokens
	}
	s.run.MaxRows = max(s.run.MaxRows, len(s.rows))
	s.run.MaxTokens = max(s.run.MaxTokens, it.Tokens)
	if s.cfg.Series {
		s.run.Iterations = append(s.run.Iterations, it)
	}
	return nil
}

// arrive moves the requests that have arrived by now into the queue,
// refusing those that can never fit (their KV beyond the capacity, or
// prompt + output beyond the model's context).
func (s *server) arrive(now unit.Duration) {
	for s.next < len(s.reqs) && s.reqs[s.next].Arrival <= now {
		r := s.reqs[s.next]
		s.next++
		hbf, hbm := s.need(r)
		switch {
		case hbf > s.capHBF:
			s.reject(r, fmt.Sprintf("prompt KV %v exceeds the HBF KV capacity %v", hbf, s.capHBF))
		case hbm > s.capHBM:
			s.reject(r, fmt.Sprintf("decode KV %v exceeds the HBM decode-KV budget %v", hbm, s.capHBM))
		case s.maxContext > 0 && r.Prompt+r.Output > s.maxContext:
			s.reject(r, fmt.Sprintf("prompt + output = %d tokens exceeds the model's max_context %d", r.Prompt+r.Output, s.maxContext))
		default:
			if s.head > 0 && s.head == len(s.waiting) { // reuse the drained queue
				s.waiting, s.head = s.waiting[:0], 0
			}
			s.waiting = append(s.waiting, r)
		}
	}
}

func (s *server) reject(r Request, reason string) {
	s.run.Rejections = append(s.run.Rejections, Rejection{ID: r.ID, Reason: reason})
	s.done++
}

// need is the KV a request reserves: its prompt's in HBF, its generated
// tokens' in HBM (the last token's KV is never written).
func (s *server) need(r Request) (hbf, hbm unit.Bytes) {
	if s.hbmOnly {
		return 0, unit.Bytes(r.Prompt+r.Output-1) * s.perToken
	}
	return unit.Bytes(r.Prompt) * s.perToken, unit.Bytes(r.Output-1) * s.perToken
}

// compose builds the iteration's rows: one decode token per active request
// past its prompt, then at most one prefill chunk per request in prefill
// (active ones first, then admissions in arrival order) within the budget.
// A prefilled request (Request.Prefilled) decodes from its admission.
func (s *server) compose() {
	sc := s.cfg.Scheduler
	s.rows, s.decodeRows, s.prefillRows, s.batch = s.rows[:0], s.decodeRows[:0], s.prefillRows[:0], s.batch[:0]
	s.prefillOwners = s.prefillOwners[:0]
	budget := sc.TokenBudget
	var prefill []*live
	for _, l := range s.active {
		if l.decoding() {
			s.decodeRows = append(s.decodeRows, s.decodeRow(l))
			s.batch = append(s.batch, l)
			budget--
		} else {
			prefill = append(prefill, l)
		}
	}
	addChunk := func(l *live) {
		n := min(sc.Chunk, l.req.Prompt-l.prefilled, budget)
		s.prefillRows = append(s.prefillRows, sim.Row{Tokens: n, Cached: l.prefilled, Prompt: l.req.Prompt, Request: l.req.ID})
		s.prefillOwners = append(s.prefillOwners, l)
		budget -= n
	}
	for _, l := range prefill {
		if budget <= 0 {
			break
		}
		addChunk(l)
	}
	now := s.passer.Now()
	for budget > 0 && len(s.active) < sc.MaxBatch && s.head < len(s.waiting) {
		r := s.waiting[s.head]
		hbf, hbm := s.need(r)
		if s.usedHBF+hbf > s.capHBF || s.usedHBM+hbm > s.capHBM {
			break // first come, first served: the head waits for KV
		}
		s.head++
		s.usedHBF += hbf
		s.usedHBM += hbm
		l := &live{req: r, admitted: now, needHBF: hbf, needHBM: hbm}
		s.active = append(s.active, l)
		if r.Prefilled { // its prompt's KV and first token came with it
			l.prefilled, l.generated = r.Prompt, 1
			l.firstToken, l.lastToken = r.Arrival, r.Arrival
			l.kv = unit.Bytes(r.Prompt) * s.perToken
			s.run.KVAllocated += l.kv
			if r.Output > 1 {
				s.decodeRows = append(s.decodeRows, s.decodeRow(l))
				s.batch = append(s.batch, l)
				budget--
			}
			continue
		}
		addChunk(l)
	}
	s.batch = append(s.batch, s.prefillOwners...)
	s.run.MaxActive = max(s.run.MaxActive, len(s.active))
	approximate(s.decodeRows, s.cfg.Approx.KVQuantum)
	s.rows = append(append(s.rows, s.decodeRows...), s.prefillRows...)
}

// decodeRow is an active request's next decode step.
func (s *server) decodeRow(l *live) sim.Row {
	return sim.Row{Tokens: 1, Cached: l.req.Prompt + l.generated - 1, Prompt: l.req.Prompt, Request: l.req.ID}
}

// approximate replaces the decode rows by as many identical rows at their
// mean prompt and mean context, the context rounded to the nearest multiple
// of the quantum (never below the prompt): the approximate pass model. The
// decode attention kernel is already timed as a batch of equal work at the
// rows' mean span, so what changes is the per-row block rounding of the KV
// reads, the HBF/HBM split of rows with different prompts, and the
// rounding to the quantum.
func approximate(rows []sim.Row, q int) {
	if q <= 0 || len(rows) == 0 {
		return
	}
	var prompt, ctx int
	for _, r := range rows {
		prompt += r.Prompt
		ctx += r.Cached + r.Tokens
	}
	n := len(rows)
	p := (prompt + n/2) / n
	c := int(math.Round(float64(ctx)/float64(n)/float64(q))) * q
	c = max(c, p+1)
	for i := range rows {
		rows[i] = sim.Row{Tokens: 1, Cached: c - 1, Prompt: p, Request: rows[i].Request}
	}
}

// token records a produced token at t.
func (s *server) token(l *live, t unit.Duration) {
	if l.generated > 1 && l.req.ID >= s.lo && l.req.ID < s.hi {
		s.run.GapsMS = append(s.run.GapsMS, (t - l.lastToken).Milliseconds())
	}
	l.lastToken = t
}

// retire removes the requests that produced their last token, frees their
// KV and records their metrics.
func (s *server) retire() {
	kept := s.active[:0]
	for _, l := range s.active {
		if l.generated < l.req.Output {
			kept = append(kept, l)
			continue
		}
		s.finish(l)
	}
	clear(s.active[len(kept):])
	s.active = kept
}

func (s *server) finish(l *live) {
	r := l.req
	s.usedHBF -= l.needHBF
	s.usedHBM -= l.needHBM
	s.run.KVFreed += l.kv
	s.done++
	s.run.Completed++
	fin := l.lastToken
	if a, b := max(r.Arrival, s.run.WindowStart), min(fin, s.run.WindowEnd); b > a {
		s.run.InSystem += (b - a).Seconds()
	}
	if fin >= s.run.WindowStart && fin <= s.run.WindowEnd {
		s.run.CompletedInWindow++
	}
	if r.ID < s.lo || r.ID >= s.hi {
		return
	}
	m := RequestMetrics{ID: r.ID, Prompt: r.Prompt, Output: r.Output, Arrival: r.Arrival,
		Queue: l.admitted - r.Arrival, TTFT: l.firstToken - r.Arrival, E2E: fin - r.Arrival}
	if r.Output > 1 {
		m.TPOT = (fin - l.firstToken) / unit.Duration(r.Output-1)
	}
	s.run.Measured = append(s.run.Measured, m)
}
