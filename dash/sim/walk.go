package sim

import "slices"

// The state walk.
//
// The exact shortcuts (jump.go) need three things of the engine's state:
// a key (everything that determines the future, with absolute times seen
// from now), its counters (what accumulates or counts down, to advance by
// whole periods) and its absolute times (to shift). One walk per state
// struct provides all three: walk visits every field that matters to the
// shortcuts once, in a fixed order, with its kind, and the shortcuts are
// visitors (key, counters, advance, move, ...). A field is either walked
// or listed, with the reason, in walk_test.go, whose reflection test fails
// when a struct gains a field that is neither.
//
// A walk visits every field in place (a visitor may change any of them:
// the test flips every one) and reads what steers it (an event's kind, a
// stream's route, whether an operator started) before visiting it.

// kind is what a field is to the shortcuts.
type kind uint8

const (
	// plain is a value that shapes the future: in every key as it is.
	plain kind = iota
	// instant is an absolute time. Keys hold its distance from now (a
	// horizon in the past acts as now); every time shift moves it.
	instant
	// opInstant is a time of an operator's own. Layer keys hold its
	// distance from now, keys within a pass leave it out (it is read only
	// once the operator's data have all arrived, beyond any periodic jump);
	// it moves only with its operator (when layers are skipped): a periodic
	// jump happens while the operator runs, which its times keep.
	opInstant
	// streamID names a stream (negative: none). At layer boundaries keys
	// name it by its position among the active streams.
	streamID
	// opID names an operator (negative: none). At layer boundaries keys
	// hold it relative to the program counter; skipped layers renumber it.
	opID
	// streamSize is fixed for a stream's life: in layer keys only (within a
	// pass, streams keep their ids, which imply it).
	streamSize
	// progress is work a pass has done: in layer keys only; periodic jumps
	// advance it by its increase per period.
	progress
	// remaining is work not yet issued, counting down: in layer keys only;
	// periodic jumps advance it and stop a period short of exhausting it.
	remaining
	// stat is a statistic that outlives the pass: in no key; every
	// shortcut (periodic jump, skipped layers, replayed tail or pass) adds
	// its increase.
	stat
)

// visitor is one use of the walk: each method sees a field of its kind
// (named after it) whose value is v and returns its new value (v to leave
// it as it is). A visitor embeds ignore and overrides the kinds it uses, or
// is a kindFunc.
type visitor interface {
	// uses names the kinds the visitor looks at: the walk skips the others.
	uses() kinds
	plain(v int64) int64
	instant(v int64) int64
	opInstant(v int64) int64
	streamID(v int64) int64
	opID(v int64) int64
	streamSize(v int64) int64
	progress(v int64) int64
	remaining(v int64) int64
	stat(v int64) int64
}

// ignore leaves every field as it is.
type ignore struct{}

func (ignore) uses() kinds { return 0 }

func (ignore) plain(v int64) int64      { return v }
func (ignore) instant(v int64) int64    { return v }
func (ignore) opInstant(v int64) int64  { return v }
func (ignore) streamID(v int64) int64   { return v }
func (ignore) opID(v int64) int64       { return v }
func (ignore) streamSize(v int64) int64 { return v }
func (ignore) progress(v int64) int64   { return v }
func (ignore) remaining(v int64) int64  { return v }
func (ignore) stat(v int64) int64       { return v }

// kindFunc is a visitor that sees every field through one function of its
// kind and value (simple, for visitors off the hot path).
type kindFunc func(k kind, v int64) int64

func (kindFunc) uses() kinds { return allKinds }

func (f kindFunc) plain(v int64) int64      { return f(plain, v) }
func (f kindFunc) instant(v int64) int64    { return f(instant, v) }
func (f kindFunc) opInstant(v int64) int64  { return f(opInstant, v) }
func (f kindFunc) streamID(v int64) int64   { return f(streamID, v) }
func (f kindFunc) opID(v int64) int64       { return f(opID, v) }
func (f kindFunc) streamSize(v int64) int64 { return f(streamSize, v) }
func (f kindFunc) progress(v int64) int64   { return f(progress, v) }
func (f kindFunc) remaining(v int64) int64  { return f(remaining, v) }
func (f kindFunc) stat(v int64) int64       { return f(stat, v) }

// walker is a visitor with the kinds it uses.
type walker struct {
	v    visitor
	uses kinds
	// waveRuns walks the data registers as runs of equal waves (see
	// walkWaveRuns): set by the engine's walk when the read pipeline is
	// unbounded, where their number steers nothing.
	waveRuns bool
	// spare takes the waves a run drops and gives those it gains (nil:
	// dropped and allocated): the engine's pool, for a jump (advanceBy)
	// that changes the runs' lengths in the engine's own state.
	spare *wavePool
}

// walkerOf prepares v for a walk.
func walkerOf(v visitor) walker { return walker{v: v, uses: v.uses()} }

// integer is what the state's integer fields are built on.
type integer interface {
	~int64 | ~int32 | ~int16 | ~int | ~uint8
}

// The walks visit a field through the helper of its kind, which passes *p
// to the visitor's method and stores what it returns. (One method per kind
// keeps the visitors free of a switch on the kind.)

func visitPlain[T integer](w walker, p *T) {
	if w.uses&(1<<plain) != 0 {
		*p = T(w.v.plain(int64(*p)))
	}
}
func visitInstant[T integer](w walker, p *T) {
	if w.uses&(1<<instant) != 0 {
		*p = T(w.v.instant(int64(*p)))
	}
}
func visitOpInstant[T integer](w walker, p *T) {
	if w.uses&(1<<opInstant) != 0 {
		*p = T(w.v.opInstant(int64(*p)))
	}
}
func visitStream[T integer](w walker, p *T) {
	if w.uses&(1<<streamID) != 0 {
		*p = T(w.v.streamID(int64(*p)))
	}
}
func visitOp[T integer](w walker, p *T) {
	if w.uses&(1<<opID) != 0 {
		*p = T(w.v.opID(int64(*p)))
	}
}
func visitStreamSize[T integer](w walker, p *T) {
	if w.uses&(1<<streamSize) != 0 {
		*p = T(w.v.streamSize(int64(*p)))
	}
}
func visitProgress[T integer](w walker, p *T) {
	if w.uses&(1<<progress) != 0 {
		*p = T(w.v.progress(int64(*p)))
	}
}
func visitRemaining[T integer](w walker, p *T) {
	if w.uses&(1<<remaining) != 0 {
		*p = T(w.v.remaining(int64(*p)))
	}
}
func visitStat[T integer](w walker, p *T) {
	if w.uses&(1<<stat) != 0 {
		*p = T(w.v.stat(int64(*p)))
	}
}

// visitBool passes a flag as 0 or 1 (plain).
func visitBool(w walker, p *bool) {
	if w.uses&(1<<plain) != 0 {
		*p = w.v.plain(flag(*p)) != 0
	}
}

func flag(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// visitLen passes the length of a list whose elements follow (plain).
func visitLen(w walker, n int) {
	if w.uses&(1<<plain) != 0 {
		w.v.plain(int64(n))
	}
}

// walk visits the engine's state: the pass's progress, the statistics, the
// pending events, every stack and link, the active streams and the
// operators in flight (the program counter's to the highest with streams
// or prefetches; idle ones are left out).
func (e *engine) walk(w walker) {
	lo, hi := e.pc, e.maxOp // the operators in flight, whatever v does to pc and maxOp
	w.waveRuns = e.cfg.readWaves == 0
	visitInstant(w, &e.now)
	visitOp(w, &e.pc)
	visitOp(w, &e.maxOp)
	visitPlain(w, &e.writesPending)
	visitBool(w, &e.passEnded)
	visitPlain(w, &e.gpuStaged)
	e.st.walk(w)
	visitLen(w, len(e.q))
	for i := range e.q {
		e.q[i].walk(w)
	}
	for i := range e.hbf {
		e.hbf[i].walk(w)
	}
	for i := range e.hbm {
		e.hbm[i].walk(w)
	}
	for i := range e.links {
		e.links[i].walk(w)
	}
	for i := range e.pools {
		e.pools[i].walk(w)
	}
	visitLen(w, len(e.active))
	for i := range e.active {
		id := e.active[i]
		visitStream(w, &e.active[i])
		e.streams[id].walk(w)
	}
	for i := lo; i <= hi && i < len(e.ops); i++ {
		op := &e.ops[i]
		if op.idle() {
			continue
		}
		visitLen(w, i-lo) // which operator follows
		op.walk(w)
	}
}

func (s *stats) walk(w walker) {
	for i := range s.requested {
		visitStat(w, &s.requested[i])
		visitStat(w, &s.delivered[i])
	}
	visitStat(w, &s.events)
	visitStat(w, &s.earlyBytes)
	for i := range s.classTime { // one per class: a fixed length
		s.classTime[i].walk(w)
	}
}

func (c *classStats) walk(w walker) {
	visitStat(w, &c.ops)
	visitStat(w, &c.time)
	visitStat(w, &c.compute)
	visitStat(w, &c.overhead)
}

func (ev *event) walk(w walker) {
	k := ev.kind
	visitInstant(w, &ev.t)
	visitPlain(w, &ev.kind)
	visitPlain(w, &ev.at)
	switch k {
	case evOpEnd:
		visitOp(w, &ev.stream)
	case evArrayDone:
		visitPlain(w, &ev.stream) // 1 a sense, -1 a program's end, 2 a suspension
	default:
		visitStream(w, &ev.stream)
	}
	visitPlain(w, &ev.bytes)
}

func (s *server) walk(w walker) {
	visitInstant(w, &s.until)
	visitStat(w, &s.busy)
	visitStat(w, &s.bytes)
}

func (h *hbmStack) walk(w walker) { h.array.walk(w) }

func (s *hbfStack) walk(w walker) {
	visitLen(w, len(s.readQ))
	for i := range s.readQ {
		s.readQ[i].walk(w)
	}
	visitBool(w, &s.programActive)
	visitPlain(w, &s.progPages)
	visitInstant(w, &s.progFrom)
	visitInstant(w, &s.progUntil)
	visitBool(w, &s.suspending)
	visitBool(w, &s.suspended)
	visitPlain(w, &s.progLeft)
	visitPlain(w, &s.progStale)
	visitInstant(w, &s.arrayUntil)
	visitLen(w, len(s.sensing))
	for _, wave := range s.sensing {
		walkSegs(w, wave)
	}
	if w.waveRuns {
		walkWaveRuns(w, &s.dataReg)
	} else {
		visitLen(w, len(s.dataReg))
		for _, wave := range s.dataReg {
			walkSegs(w, wave)
		}
	}
	walkSegs(w, s.cacheReg)
	visitPlain(w, &s.cacheNext)
	visitPlain(w, &s.cacheDone)
	visitBool(w, &s.tsvWait)
	s.tsv.walk(w)
	visitLen(w, len(s.progPending))
	for i := range s.progPending {
		s.progPending[i].walk(w)
	}
	walkSegs(w, s.programming)
	visitStat(w, &s.senseBusy)
	visitStat(w, &s.progBusy)
	visitStat(w, &s.waves)
	visitStat(w, &s.programs)
	visitStat(w, &s.suspends)
	visitStat(w, &s.flushes)
	visitStat(w, &s.resensed)
}

func (g *readGroup) walk(w walker) {
	visitOp(w, &g.op)
	visitLen(w, len(g.runs))
	for i := range g.runs {
		g.runs[i].walk(w)
	}
	visitPlain(w, &g.next)
}

func (r *readRun) walk(w walker) {
	visitStream(w, &r.stream)
	// Whether full segments are left decides the size of the next one.
	full := r.full > 0
	visitBool(w, &full)
	visitRemaining(w, &r.full)
	visitPlain(w, &r.last)
	visitPlain(w, &r.weight)
	visitPlain(w, &r.credit)
	visitPlain(w, &r.lead)
	visitBool(w, &r.began)
}

func (s *seg) walk(w walker) {
	visitStream(w, &s.stream)
	visitPlain(w, &s.bytes)
}

// walkWaveRuns visits a list of page waves as maximal runs of equal waves:
// the number of runs (plain), then each run's length (remaining) and its
// wave, once. With an unbounded read pipeline (the paper reading) every
// wave of an operator is sensed at once, and hundreds of identical ones
// wait in the data registers while the TSV drains them one by one; walked
// wave by wave, that backlog made every state differ from the one a wave
// earlier, so no period was ever found. As a run, it is a counter that
// drains by one wave a period, which a periodic jump advances (stopping
// short of its end, like every remaining counter); nothing but its end
// (the array programs only once the registers are empty) depends on its
// length when the pipeline is unbounded. What a visitor does to a run's
// wave is done to every wave of the run, and a run whose length it changes
// gains or loses waves (all equal, so which ones does not matter).
func walkWaveRuns(w walker, p *[][]seg) {
	ws := *p
	// The runs' ends, the first few kept for the walk below (which changes
	// nothing past the run it is at, so they stay the ends).
	var kept [8]int
	runs := 0
	for i := 0; i < len(ws); runs++ {
		i = runEnd(ws, i)
		if runs < len(kept) {
			kept[runs] = i
		}
	}
	visitLen(w, runs)
	// The runs are compacted in place (o: the next place) until one grows
	// past the runs not yet read; from then on into grown.
	var grown [][]seg
	o := 0
	for r, i := 0, 0; i < len(ws); r++ {
		var j int
		if r < len(kept) {
			j = kept[r]
		} else {
			j = runEnd(ws, i)
		}
		n := int64(j - i)
		visitRemaining(w, &n)
		first := ws[i]
		walkSegs(w, first)
		if j-i > 1 && !slices.Equal(ws[i+1], first) { // the visitor changed the run's wave
			for k := i + 1; k < j; k++ {
				copy(ws[k], first)
			}
		}
		m := int(max(0, n))
		keep := min(m, j-i)
		for k := i + keep; k < j; k++ {
			w.spare.put(ws[k]) // dropped
		}
		if grown == nil && o+m > j {
			grown = append(make([][]seg, 0, o+m+len(ws)-j), ws[:o]...)
		}
		if grown != nil {
			grown = append(grown, ws[i:i+keep]...)
		} else if o != i {
			copy(ws[o:], ws[i:i+keep])
		}
		for k := keep; k < m; k++ {
			c := append(w.spare.get(), first...)
			if grown != nil {
				grown = append(grown, c)
			} else {
				ws[o+k] = c
			}
		}
		o += m
		i = j
	}
	if grown != nil {
		clear(ws)
		*p = grown
		return
	}
	clear(ws[o:])
	*p = ws[:o]
}

// runEnd is the end of the run of waves equal to ws[i].
func runEnd(ws [][]seg, i int) int {
	j := i + 1
	for j < len(ws) && slices.Equal(ws[j], ws[i]) {
		j++
	}
	return j
}

func walkSegs(w walker, ss []seg) {
	visitLen(w, len(ss))
	for i := range ss {
		ss[i].walk(w)
	}
}

func (p *pool) walk(w walker) {
	visitPlain(w, &p.free)
	for c := range p.wait {
		visitLen(w, len(p.wait[c]))
		for i := range p.wait[c] {
			p.wait[c][i].walk(w)
		}
	}
}

func (wt *waiter) walk(w walker) {
	wt.seg.walk(w)
	visitPlain(w, &wt.hop)
	visitPlain(w, &wt.next)
}

func (pw *progWave) walk(w walker) {
	visitPlain(w, &pw.slots)
	walkSegs(w, pw.parts)
}

func (st *stream) walk(w walker) {
	visitPlain(w, &st.route)
	visitOp(w, &st.consumer)
	// The operator that consumes or issued it orders a write's claim on
	// the transfer SRAM against sensed reads (engine.writeFirst), so it is
	// state: a layer jump renumbers it and keys hold it (seed 31476: a
	// write whose operator kept its number from before a layer jump took
	// the SRAM from a read sensed for the next operator).
	visitOp(w, &st.op)
	visitStreamSize(w, &st.total)
	visitProgress(w, &st.done)
	visitProgress(w, &st.arrived)
	// What is left to issue of a stream issued chunk by chunk (HBM reads,
	// writes) bounds a jump; a sensed read keeps its progress in readQ and
	// its toIssue never moves.
	visitRemaining(w, &st.toIssue)
	visitBool(w, &st.started)
	visitBool(w, &st.early)
	walkSegs(w, st.staged)
	st.progBuf.walk(w)
}

// idle reports whether an operator has nothing in flight: not started,
// nothing issued or staged.
func (op *opState) idle() bool {
	return !op.started && !op.prefetched && !op.routedDone && op.pending == 0 && op.early == 0
}

func (op *opState) walk(w walker) {
	started := op.started
	visitBool(w, &op.started)
	if started { // an operator's times are set when it starts
		visitOpInstant(w, &op.start)
		visitOpInstant(w, &op.computeDone)
	}
	visitPlain(w, &op.pending)
	visitPlain(w, &op.total)
	visitPlain(w, &op.lastBytes)
	visitBool(w, &op.prefetched)
	visitBool(w, &op.routedDone)
	visitPlain(w, &op.early)
	visitBool(w, &op.fromHBM)
	visitPlain(w, &op.progWait)
}
