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
