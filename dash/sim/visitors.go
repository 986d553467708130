package sim

import "github.com/dashlab/dashlab/dash/unit"

// Visitors of the state walk (walk.go) that the shortcuts share: collect
// counters, advance them and the clock, drain the memory system.

// visitors are the engine's own, reused so that a walk allocates nothing.
type visitors struct {
	advance advance
	pass    passAdder
	stats   statCollector
	carry   carry
	clamp   clamp
	ids     idMap // renames a state copied to or from a segment (segment.go)
}

// kinds is a set of kinds.
type kinds uint16

func kindsOf(ks ...kind) kinds {
	var s kinds
	for _, k := range ks {
		s |= 1 << k
	}
	return s
}

func (s kinds) has(k kind) bool { return s&(1<<k) != 0 }

var (
	// allKinds are every kind.
	allKinds = kindsOf(plain, instant, opInstant, streamID, opID, streamSize, progress, remaining, stat)
	// counterKinds are every counter a periodic jump advances.
	counterKinds = kindsOf(stat, progress, remaining)
	// statKinds are the statistics that outlive a pass.
	statKinds = kindsOf(stat)
)

// statCollector appends the statistics.
type statCollector struct {
	ignore
	dst []int64
}

func (c *statCollector) uses() kinds        { return statKinds }
func (c *statCollector) stat(v int64) int64 { c.dst = append(c.dst, v); return v }

// advance moves the state forward: dt onto every instant and, to each
// counter of the kinds in counters (the i-th in walk order), m times its
// increase to[i] - from[i] (to[i] if from is nil). For skipped layers it
// also renumbers operators by ops and moves their own times by opDT.
type advance struct {
	ignore
	dt       Time
	counters kinds
	m        int64
	from, to []int64
	ops      int64
	opDT     Time
	i        int
}

func (a *advance) uses() kinds             { return kindsOf(instant, opInstant, opID) | a.counters }
func (a *advance) instant(v int64) int64   { return v + int64(a.dt) }
func (a *advance) opInstant(v int64) int64 { return v + int64(a.opDT) }
func (a *advance) progress(v int64) int64  { return a.count(progress, v) }
func (a *advance) remaining(v int64) int64 { return a.count(remaining, v) }
func (a *advance) stat(v int64) int64      { return a.count(stat, v) }

func (a *advance) opID(v int64) int64 {
	if v < 0 {
		return v
	}
	return v + a.ops
}

func (a *advance) count(k kind, v int64) int64 {
	if !a.counters.has(k) {
		return v
	}
	d := a.to[a.i]
	if a.from != nil {
		d -= a.from[a.i]
	}
	a.i++
	return v + a.m*d
}

// advanceBy applies a to the engine if its clock can move by a.dt (else
// the run ends with a TimeRangeError).
func (e *engine) advanceBy(a advance) {
	if e.advanceOK(e.now, a.dt) {
		v := &e.visitors.advance
		*v = a
		w := walkerOf(v)
		w.spare = &e.freeWaves
		e.walk(w)
		*v = advance{}
	}
}

// periods is m x d, or a time past MaxTime (which advanceOK refuses) when
// the product overflows.
func periods(m int64, d Time) Time {
	dt, ok := unit.CheckedMul(Time(m), d)
	if !ok {
		return MaxTime + 1
	}
	return dt
}

// shiftTimes adds dt to every absolute time of the state.
// Time that would pass MaxTime ends the run (e.err) and is not shifted.
func (e *engine) shiftTimes(dt Time) { e.advanceBy(advance{dt: dt}) }

// globalCounters appends the statistics that outlive a pass.
func (e *engine) globalCounters(dst []int64) []int64 {
	l := statList{dst: dst}
	e.statFields(&l)
	return l.dst
}

// walkedCounters is globalCounters through the state walk (the reference
// for statFields' order).
func (e *engine) walkedCounters(dst []int64) []int64 {
	c := &e.visitors.stats
	c.dst = dst
	e.walk(walkerOf(c))
	dst, c.dst = c.dst, nil
	return dst
}

// replay advances an idle engine by a pass measured earlier: its duration
// and the increments of every statistic.
func (e *engine) replay(d Time, delta []int64) {
	e.addPass(d, delta)
	e.replayed++
}

// addPass moves every instant by d and adds delta to the statistics (the
// outcome of a pass, or of a pass's tail, measured earlier).
func (e *engine) addPass(d Time, delta []int64) {
	if e.advanceOK(e.now, d) {
		v := &e.visitors.pass
		*v = passAdder{d: int64(d), delta: delta}
		e.walk(walkerOf(v))
		*v = passAdder{}
	}
}

// passAdder is addPass's visitor.
type passAdder struct {
	ignore
	d     int64
	delta []int64
	i     int
}

func (p *passAdder) uses() kinds           { return kindsOf(instant, stat) }
func (p *passAdder) instant(v int64) int64 { return v + p.d }
func (p *passAdder) stat(v int64) int64 {
	v += p.delta[p.i]
	p.i++
	return v
}

// carry collects an HBF stack's statistics and instants, and hands them
// back to a fresh stack (walked in the same order: the in-flight lists it
// drops hold neither).
type carry struct {
	ignore
	vals []int64
	back bool
	i    int
}

func (c *carry) uses() kinds           { return kindsOf(stat, instant) }
func (c *carry) instant(v int64) int64 { return c.next(v) }
func (c *carry) stat(v int64) int64    { return c.next(v) }

func (c *carry) next(v int64) int64 {
	if !c.back {
		c.vals = append(c.vals, v)
		return v
	}
	if c.i == len(c.vals) {
		panic("sim: idle: an HBF stack's in-flight lists hold statistics or times")
	}
	c.i++
	return c.vals[c.i-1]
}

// clamp brings every instant later than it back to it.
type clamp struct {
	ignore
	now int64
}

func (c clamp) uses() kinds           { return kindsOf(instant) }
func (c clamp) instant(v int64) int64 { return min(v, c.now) }

// idle drops everything in flight: used when a replayed tail has taken the
// engine to the end of its pass, where the memory system is idle. Each HBF
// stack starts afresh with its statistics; resource horizons stay as they
// are, or now if later: in the past, which is all that matters to what
// follows.
func (e *engine) idle() {
	e.q = e.q[:0]
	for _, id := range e.active {
		e.streams[id].finished = true
	}
	e.active = e.active[:0]
	e.writesPending = 0
	e.gpuStaged = 0
	c := &e.visitors.carry
	for i := range e.pools {
		p := &e.pools[i]
		p.free = e.cfg.rt.poolSlots[i]
		p.wait[0], p.wait[1] = p.wait[0][:0], p.wait[1][:0]
	}
	for i := range e.hbf {
		c.vals, c.back, c.i = c.vals[:0], false, 0
		e.hbf[i].walk(walkerOf(c))
		sensing, dataReg := e.recycleWaves(&e.hbf[i])
		e.hbf[i] = hbfStack{sensing: sensing, dataReg: dataReg}
		c.back = true
		e.hbf[i].walk(walkerOf(c))
		if c.i != len(c.vals) {
			panic("sim: idle: an HBF stack's in-flight lists hold statistics or times")
		}
	}
	e.visitors.clamp = clamp{now: int64(e.now)}
	e.walk(walkerOf(&e.visitors.clamp))
}
