package sim

import "github.com/dashlab/dashlab/dash/unit"

// Replayed passes, applied in bulk.
//
// A replayed pass moves the idle engine's clock by its duration and adds
// its increments to the statistics (addPass, one walk of the state). A
// million-token decode replays hundreds of thousands of passes, mostly
// runs of identical ones (the steps of one paged-KV block), so the engine
// adds them up first, m x each record, and applies the sum in one walk
// before anything else looks at the clock or the statistics: the same
// integers, added in another order.

// replaySum is the replayed passes not applied yet.
type replaySum struct {
	d     Time
	delta []int64
	n     int
}

// queueReplay adds m replays of a pass of duration d and increments delta
// to the sum (applying it first, and the m replays at once, if the sum
// would pass MaxTime, so that advanceOK reports the overflow).
func (e *engine) queueReplay(d Time, delta []int64, m int) {
	a := &e.replays
	total, ok := unit.CheckedMul(Time(m), d)
	if !ok || d < 0 || total > MaxTime-a.d {
		e.flushReplays()
		if !ok {
			total = MaxTime + 1
		}
		e.advanceBy(advance{dt: total, counters: statKinds, m: int64(m), to: delta})
		e.replayed += m
		return
	}
	if a.n == 0 {
		a.delta = append(a.delta[:0], delta...)
		for i := range a.delta {
			a.delta[i] *= int64(m)
		}
	} else {
		for i, v := range delta {
			a.delta[i] += int64(m) * v
		}
	}
	a.d += total
	a.n += m
}

// flushReplays applies the queued replays.
func (e *engine) flushReplays() {
	a := &e.replays
	if a.n == 0 {
		return
	}
	e.addPass(a.d, a.delta)
	e.replayed += a.n
	a.d, a.n = 0, 0
}
