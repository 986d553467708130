package sim

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
	// opInstant is a time of an operator's own. Keys hold its distance from
	// now; it moves only with its operator (when layers are skipped): a
	// periodic jump happens while the operator runs, which its times keep.
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

func (f kindFunc) plain(v int64) int64      { return f(plain, v) }
func (f kindFunc) instant(v int64) int64    { return f(instant, v) }
func (f kindFunc) opInstant(v int64) int64  { return f(opInstant, v) }
func (f kindFunc) streamID(v int64) int64   { return f(streamID, v) }
func (f kindFunc) opID(v int64) int64       { return f(opID, v) }
func (f kindFunc) streamSize(v int64) int64 { return f(streamSize, v) }
func (f kindFunc) progress(v int64) int64   { return f(progress, v) }
func (f kindFunc) remaining(v int64) int64  { return f(remaining, v) }
func (f kindFunc) stat(v int64) int64       { return f(stat, v) }

// integer is what the state's integer fields are built on.
type integer interface {
	~int64 | ~int32 | ~int | ~uint8
}

// The walks visit a field through the helper of its kind, which passes *p
// to the visitor's method and stores what it returns. (One method per kind
// keeps the visitors free of a switch on the kind.)

func visitPlain[T integer](v visitor, p *T)      { *p = T(v.plain(int64(*p))) }
func visitInstant[T integer](v visitor, p *T)    { *p = T(v.instant(int64(*p))) }
func visitOpInstant[T integer](v visitor, p *T)  { *p = T(v.opInstant(int64(*p))) }
func visitStream[T integer](v visitor, p *T)     { *p = T(v.streamID(int64(*p))) }
func visitOp[T integer](v visitor, p *T)         { *p = T(v.opID(int64(*p))) }
func visitStreamSize[T integer](v visitor, p *T) { *p = T(v.streamSize(int64(*p))) }
func visitProgress[T integer](v visitor, p *T)   { *p = T(v.progress(int64(*p))) }
func visitRemaining[T integer](v visitor, p *T)  { *p = T(v.remaining(int64(*p))) }
func visitStat[T integer](v visitor, p *T)       { *p = T(v.stat(int64(*p))) }

// visitBool passes a flag as 0 or 1 (plain).
func visitBool(v visitor, p *bool) { *p = v.plain(flag(*p)) != 0 }

func flag(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// visitLen passes the length of a list whose elements follow (plain).
func visitLen(v visitor, n int) { v.plain(int64(n)) }

// walk visits the engine's state: the pass's progress, the statistics, the
// pending events, every stack and link, the active streams and the
// operators in flight (the program counter's to the highest with streams
// or prefetches; idle ones are left out).
func (e *engine) walk(v visitor) {
	lo, hi := e.pc, e.maxOp // the operators in flight, whatever v does to pc and maxOp
	visitInstant(v, &e.now)
	visitOp(v, &e.pc)
	visitOp(v, &e.maxOp)
	visitPlain(v, &e.writesPending)
	visitBool(v, &e.passEnded)
	visitPlain(v, &e.gpuStaged)
	e.st.walk(v)
	visitLen(v, len(e.q))
	for i := range e.q {
		e.q[i].walk(v)
	}
	for i := range e.hbf {
		e.hbf[i].walk(v)
	}
	for i := range e.hbm {
		e.hbm[i].walk(v)
	}
	for i := range e.links {
		for d := range e.links[i] {
			e.links[i][d].walk(v)
		}
	}
	visitLen(v, len(e.active))
	for i := range e.active {
		id := e.active[i]
		visitStream(v, &e.active[i])
		e.streams[id].walk(v)
	}
	for i := lo; i <= hi && i < len(e.ops); i++ {
		op := &e.ops[i]
		if op.idle() {
			continue
		}
		v.plain(int64(i - lo)) // which operator follows
		op.walk(v)
	}
}

func (s *stats) walk(v visitor) {
	for i := range s.requested {
		visitStat(v, &s.requested[i])
		visitStat(v, &s.delivered[i])
	}
	visitStat(v, &s.events)
	visitStat(v, &s.earlyBytes)
	for i := range s.classTime { // one per class: a fixed length
		s.classTime[i].walk(v)
	}
}

func (c *classStats) walk(v visitor) {
	visitStat(v, &c.ops)
	visitStat(v, &c.time)
	visitStat(v, &c.compute)
	visitStat(v, &c.overhead)
}

func (ev *event) walk(v visitor) {
	k := ev.kind
	visitInstant(v, &ev.t)
	visitPlain(v, &ev.kind)
	visitPlain(v, &ev.stack)
	switch k {
	case evOpEnd:
		visitOp(v, &ev.stream)
	case evArrayDone:
		visitPlain(v, &ev.stream) // 1 for a program, 0 for a sense
	default:
		visitStream(v, &ev.stream)
	}
	visitPlain(v, &ev.bytes)
}

func (s *server) walk(v visitor) {
	visitInstant(v, &s.until)
	visitStat(v, &s.busy)
	visitStat(v, &s.bytes)
}

func (h *hbmStack) walk(v visitor) { h.array.walk(v) }

func (s *hbfStack) walk(v visitor) {
	visitLen(v, len(s.readQ))
	for i := range s.readQ {
		s.readQ[i].walk(v)
	}
	visitBool(v, &s.programActive)
	visitInstant(v, &s.arrayUntil)
	for _, waves := range [][][]seg{s.sensing, s.dataReg} {
		visitLen(v, len(waves))
		for _, w := range waves {
			walkSegs(v, w)
		}
	}
	walkSegs(v, s.cacheReg)
	visitPlain(v, &s.cacheNext)
	visitPlain(v, &s.cacheDone)
	visitBool(v, &s.tsvWait)
	s.tsv.walk(v)
	visitPlain(v, &s.slotsFree)
	visitLen(v, len(s.slotWait))
	for i := range s.slotWait {
		s.slotWait[i].walk(v)
	}
	visitLen(v, len(s.progPending))
	for i := range s.progPending {
		s.progPending[i].walk(v)
	}
	walkSegs(v, s.programming)
	visitPlain(v, &s.relayFree)
	walkSegs(v, s.relayWait)
	walkSegs(v, s.rwWait)
	visitStat(v, &s.senseBusy)
	visitStat(v, &s.progBusy)
	visitStat(v, &s.waves)
	visitStat(v, &s.programs)
}

func (g *readGroup) walk(v visitor) {
	visitOp(v, &g.op)
	visitLen(v, len(g.runs))
	for i := range g.runs {
		g.runs[i].walk(v)
	}
	visitPlain(v, &g.next)
}

func (r *readRun) walk(v visitor) {
	visitStream(v, &r.stream)
	// Whether full segments are left decides the size of the next one.
	v.plain(flag(r.full > 0))
	visitRemaining(v, &r.full)
	visitPlain(v, &r.last)
}

func (s *seg) walk(v visitor) {
	visitStream(v, &s.stream)
	visitPlain(v, &s.bytes)
}

func walkSegs(v visitor, ss []seg) {
	visitLen(v, len(ss))
	for i := range ss {
		ss[i].walk(v)
	}
}

func (r *slotReq) walk(v visitor) {
	visitPlain(v, &r.kind)
	r.seg.walk(v)
}

func (w *progWave) walk(v visitor) {
	visitPlain(v, &w.slots)
	walkSegs(v, w.parts)
}

func (st *stream) walk(v visitor) {
	r := st.route
	visitPlain(v, &st.route)
	visitPlain(v, &st.stack)
	visitOp(v, &st.consumer)
	visitStreamSize(v, &st.total)
	visitProgress(v, &st.done)
	visitProgress(v, &st.arrived)
	// HBM reads and writes issue chunk by chunk: what is left to issue
	// bounds a jump. (HBF reads keep their progress in readQ.)
	if r == RouteHBM || r >= RouteDirectWrite {
		visitRemaining(v, &st.toIssue)
	} else {
		visitProgress(v, &st.toIssue)
	}
	visitBool(v, &st.started)
	visitBool(v, &st.early)
	walkSegs(v, st.staged)
	visitLen(v, len(st.stagedRelay))
	for i := range st.stagedRelay {
		visitBool(v, &st.stagedRelay[i])
	}
	st.progBuf.walk(v)
}

// idle reports whether an operator has nothing in flight: not started,
// nothing issued or staged.
func (op *opState) idle() bool {
	return !op.started && !op.prefetched && !op.routedDone && op.pending == 0 && op.early == 0
}

func (op *opState) walk(v visitor) {
	started := op.started
	visitBool(v, &op.started)
	if started { // an operator's times are set when it starts
		visitOpInstant(v, &op.start)
		visitOpInstant(v, &op.computeDone)
	}
	visitPlain(v, &op.pending)
	visitPlain(v, &op.total)
	visitPlain(v, &op.lastBytes)
	visitBool(v, &op.prefetched)
	visitBool(v, &op.routedDone)
	visitPlain(v, &op.early)
}
