package sim

import (
	"github.com/dashlab/dashlab/dash/unit"
)

// Time is an instant of simulated time in nanoseconds since the start.
type Time = unit.Duration

// server is a FIFO resource with a rate: a job that arrives at t starts at
// max(t, until) and holds the resource for bytes/rate. Arrivals are handled
// in simulated-time order, so reservation order is arrival order.
type server struct {
	until Time
	busy  Time       // total busy time
	bytes unit.Bytes // total bytes served
}

// reserve books the server for a job of d arriving now and returns its end.
func (s *server) reserve(now, d Time, b unit.Bytes) Time {
	start := max(now, s.until)
	s.until = start + d
	s.busy += d
	s.bytes += b
	return s.until
}

// reserveAfter books the server for a job that holds it for lead, then
// transfers for d (busy for d only: the lead moves no data), and returns
// its end.
func (s *server) reserveAfter(now, lead, d Time, b unit.Bytes) Time {
	if lead == 0 {
		return s.reserve(now, d, b)
	}
	start := max(now, s.until)
	s.until = start + lead + d
	s.busy += d
	s.bytes += b
	return s.until
}

// seg is a chunk of one stream in flight.
type seg struct {
	stream int32
	bytes  unit.Bytes
}

// readRun is the not-yet-sensed part of one stream on one stack.
type readRun struct {
	stream int32
	full   int64      // full segments left
	last   unit.Bytes // a final short segment, 0 if none
	weight int32      // its share of the array in the interleave (see weigh)
	credit int64      // its credit in a weighted interleave (see pick)
	lead   int32      // > 0: it leads the interleave with a chunk, the highest first (see weigh)
	began  bool       // a chunk of it has been sensed
}

func (r readRun) empty() bool { return r.full == 0 && r.last == 0 }

// left is the segments not yet sensed.
func (r readRun) left() int64 {
	if r.last > 0 {
		return r.full + 1
	}
	return r.full
}

// readGroup is a set of runs issued together; the array takes their
// segments round-robin so that concurrent routes fill together.
type readGroup struct {
	op   int32 // the operator that consumes the group's data
	runs []readRun
	next int // round-robin position
	// equal: every run weighs interleaveScale and none leads (weigh), so
	// that the runs take turns and their credits are never read
	equal bool
}

// progWave is data in HBF SRAM waiting to be programmed.
type progWave struct {
	bytes unit.Bytes
	slots int
	parts []seg
}

// hbfStack is one HBF stack with its base die.
type hbfStack struct {
	readQ []readGroup
	// The NAND array: sensing (t_R) and programming (t_PROG). A program
	// holds progPages of the page wave's pages (every page unless
	// program_scope is planes) from progFrom (its array phase, after the
	// TSV) to progUntil; with program suspend it may be suspending (reads
	// waiting, t_SUS not over) or suspended (progLeft of it to run), and
	// progStale counts its end events made stale by suspensions.
	programActive bool
	progPages     int
	progFrom      Time
	progUntil     Time
	suspending    bool
	suspended     bool
	progLeft      Time
	progStale     int
	arrayUntil    Time // end of the latest sense
	// sensing are the waves in the array, oldest first (each finishes t_R
	// after it started, so in order); dataReg sensed waves that could not
	// yet move on; cacheReg the wave crossing the TSV segment by segment.
	sensing   [][]seg
	dataReg   [][]seg
	cacheReg  []seg
	cacheNext int  // next cache-register segment to cross the TSV
	cacheDone int  // cache-register segments that have crossed
	tsvWait   bool // the TSV waits for a transfer-SRAM region for cacheReg[cacheNext]
	tsv       server
	// Waves ready to program (data in SRAM) and the wave being programmed.
	progPending []progWave
	programming []seg
	senseBusy   Time
	progBusy    Time
	waves       int64
	programs    int64
	suspends    int64
	flushes     int64 // partly gathered write waves programmed to free a full SRAM (flushIfStuck)
	resensed    int64 // sensed chunks dropped for a program and sensed again (engine.resense)
}

// hbmStack is one HBM stack's DRAM array.
type hbmStack struct {
	array server
}

// stream is one transfer of bytes along one route.
type stream struct {
	route    int32 // its route (config.rt.routes)
	consumer int32 // GPU operator that consumes it; -1 for writes
	op       int32 // operator that consumes or issued it (traces; writeFirst)
	total    unit.Bytes
	done     unit.Bytes // delivered (reads) or completed (writes)
	// Routes that do not start with a sense (HBM reads, writes) issue one
	// chunk at a time.
	toIssue unit.Bytes
	started bool // the consumer has started: data may enter the GPU
	early   bool // selected experts: may enter the GPU staging buffer before
	// staged are chunks waiting, in a base-die SRAM, for their consumer to
	// start (the route's gated hop).
	staged   []seg
	finished bool
	// A write stream gathers segments in HBF SRAM until a wave is full.
	progBuf progWave
	arrived unit.Bytes // bytes of a write that reached HBF SRAM
}
