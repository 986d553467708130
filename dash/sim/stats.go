package sim

import "github.com/dashlab/dashlab/dash/unit"

// classStats accumulates the GPU time of one operator class.
type classStats struct {
	ops      int64
	time     Time // operator durations (start to end)
	compute  Time // compute part
	overhead Time
}

// stats accumulates what a simulation measured.
type stats struct {
	requested [numRoutes]unit.Bytes
	delivered [numRoutes]unit.Bytes
	classTime []classStats
	events    int64
	// early expert delivery: bytes staged in the GPU buffer, and its peak
	earlyBytes, earlyPeak unit.Bytes
}

// account adds a finished operator to the breakdown.
func (s *stats) account(spec *opSpec, op *opState, end Time) {
	c := &s.classTime[spec.class]
	c.ops++
	c.time += end - op.start
	c.compute += spec.compute
	c.overhead += spec.overhead
}

// statList reads or adds to the statistics that outlive a pass directly,
// in the order the state walk visits them (the stat kind): what
// globalCounters collects and the advance visitor adds to, without
// walking the rest of the state. TestStatListIsTheWalk checks the order.
type statList struct {
	dst   []int64 // read: the values appended here
	delta []int64 // add: m x delta[i] to the i-th
	m     int64
	i     int
}

func statField[T ~int64](l *statList, p *T) {
	if l.delta == nil {
		l.dst = append(l.dst, int64(*p))
		return
	}
	*p += T(l.m * l.delta[l.i])
	l.i++
}

func (e *engine) statFields(l *statList) {
	s := &e.st
	for i := range s.requested {
		statField(l, &s.requested[i])
		statField(l, &s.delivered[i])
	}
	statField(l, &s.events)
	statField(l, &s.earlyBytes)
	for i := range s.classTime {
		c := &s.classTime[i]
		statField(l, &c.ops)
		statField(l, &c.time)
		statField(l, &c.compute)
		statField(l, &c.overhead)
	}
	for i := range e.hbf {
		h := &e.hbf[i]
		statField(l, &h.tsv.busy)
		statField(l, &h.tsv.bytes)
		statField(l, &h.senseBusy)
		statField(l, &h.progBusy)
		statField(l, &h.waves)
		statField(l, &h.programs)
		statField(l, &h.suspends)
		statField(l, &h.flushes)
		statField(l, &h.resensed)
	}
	for i := range e.hbm {
		statField(l, &e.hbm[i].array.busy)
		statField(l, &e.hbm[i].array.bytes)
	}
	for i := range e.links {
		statField(l, &e.links[i].busy)
		statField(l, &e.links[i].bytes)
	}
}

// addStats adds m x delta to the statistics (delta in walk order).
func (e *engine) addStats(delta []int64, m int64) {
	l := statList{delta: delta, m: m}
	e.statFields(&l)
}

// skipTo moves the clock by dt and the statistics by delta, the dynamic
// state being replaced next (install): the instants the walk would shift
// are all overwritten.
func (e *engine) skipTo(dt Time, delta []int64) {
	if e.advanceOK(e.now, dt) {
		e.now += dt
		e.addStats(delta, 1)
	}
}
