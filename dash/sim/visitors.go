package sim

import "github.com/dashlab/dashlab/dash/unit"

// Visitors of the state walk (walk.go) that the shortcuts share: collect
// counters, advance them and the clock, drain the memory system.

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

func (c *statCollector) stat(v int64) int64 { c.dst = append(c.dst, v); return v }

// collect returns the values of the fields of the kinds in of, in walk
// order.
func collect(walk func(visitor), of kinds) []int64 {
	var dst []int64
	walk(kindFunc(func(k kind, v int64) int64 {
		if of.has(k) {
			dst = append(dst, v)
		}
		return v
	}))
	return dst
}

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
		e.walk(&a)
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
	c := statCollector{dst: dst}
	e.walk(&c)
	return c.dst
}

// replay advances an idle engine by a pass measured earlier: its duration
// and the increments of every statistic.
func (e *engine) replay(d Time, delta []int64) {
	e.advanceBy(advance{dt: d, counters: statKinds, m: 1, to: delta})
	e.replayed++
}

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
	keep := kindsOf(stat, instant)
	for i := range e.hbf {
		vals := collect(e.hbf[i].walk, keep)
		e.hbf[i] = newHBFStack(&e.cfg)
		e.hbf[i].walk(kindFunc(func(k kind, v int64) int64 {
			if !keep.has(k) {
				return v
			}
			if len(vals) == 0 {
				panic("sim: idle: an HBF stack's in-flight lists hold statistics or times")
			}
			v, vals = vals[0], vals[1:]
			return v
		}))
		if len(vals) != 0 {
			panic("sim: idle: an HBF stack's in-flight lists hold statistics or times")
		}
	}
	now := int64(e.now)
	e.walk(kindFunc(func(k kind, v int64) int64 {
		if k == instant {
			return min(v, now)
		}
		return v
	}))
}
