package sim

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
)

// Exact shortcuts.
//
// Periodic jumps. Between structural changes (an operator starting or
// ending, a stream being issued or finishing) the engine is a deterministic
// max-plus system fed with identical chunks: once the pipeline has filled,
// its state seen from the current instant repeats. The jumper keys that
// relative state (key.go: every field the state walk visits, absolute times
// replaced by their distance from now, past horizons clamped to now, which
// is equivalent) after chunk deliveries. A key costs about as much as
// twenty events, and most deliveries do not repeat an earlier state, so a
// delivery is first fingerprinted by its event queue seen from now (equal
// states have equal queues) and keyed only when that fingerprint was seen
// before in the epoch: a period is found at the state's third occurrence
// instead of its second, for fewer keys (about half in the serving group's
// runs). When a key repeats, the interval
// between the two instants is a period: every later period is identical and
// shifted in time, so the engine advances m periods at once, shifting every
// instant by m periods and adding m times the per-period increase of every
// counter. The progress counters (work not yet issued) are kept out of the
// key; m is bounded so that no stream comes within one period of its end,
// where its behaviour would change.
//
// Layer skips. At a layer boundary, a state equal to an earlier layer's,
// with the layers ahead repeating the layers since then, lets whole periods
// of layers be advanced at once. Tails: the operators after the last layer
// run from a keyed state to the end of the pass; a tail measured before is
// replayed.
//
// The result is the same, bit for bit, as the event-by-event run
// (Options.NoJump), which the tests check.

// shortcuts is the exact-shortcut machinery as the engine sees it: the
// engine reports the moments at which a shortcut may be taken, and a
// shortcut advances the engine's state through its walk (walk.go). Whether
// one is taken never changes a result, only how long the simulation takes.
type shortcuts interface {
	// delivered follows the delivery of a chunk of stream id to the GPU.
	delivered(id int32)
	// opStarted follows the start of operator i of the pass (0: a new pass).
	opStarted(i int)
	// hbmRead follows the read of an HBM chunk from DRAM (the stream's
	// next chunk issued).
	hbmRead()
	// opEnded follows the end of operator i, the program counter having
	// moved to the next operator, which has not started; it reports whether
	// a shortcut took the engine to the end of the pass.
	opEnded(i int) bool
	// passEnded follows the end of a pass.
	passEnded()
	// report adds what the shortcuts did to p.
	report(p *Perf)
}

// noShortcuts simulates event by event (Options.NoJump).
type noShortcuts struct{}

func (noShortcuts) delivered(int32)  {}
func (noShortcuts) opStarted(int)    {}
func (noShortcuts) hbmRead()         {}
func (noShortcuts) opEnded(int) bool { return false }
func (noShortcuts) passEnded()       {}
func (noShortcuts) report(p *Perf)   {}
func (e *engine) useShortcuts(on bool) {
	if on {
		e.cut = newJumper(e)
	} else {
		e.cut = noShortcuts{}
	}
}

// snapshot is the engine state at a chunk delivery.
type snapshot struct {
	t        Time
	key      []byte
	counters []int64
}

// jumper takes the exact shortcuts of one engine. It keeps the snapshots of
// the current epoch (the deliveries since the last structural change), the
// layer boundaries of the current pass and the tails measured.
type jumper struct {
	e      *engine
	seed   maphash.Seed
	k      keyer
	byHash map[uint64]int
	snaps  []snapshot
	// prints are the fingerprints of the epoch's deliveries looked at
	// (queuePrint)
	prints map[uint64]struct{}
	at     uint64 // the engine's epoch (structural changes) of the stored snapshots
	seen   int    // deliveries in the current epoch
	jumps  int64
	// An epoch begun by a finishing stream (finish: none issued since)
	// searches from its finishWarm-th delivery, finishTries times.
	finish bool
	// Backoff: after failed epochs (no repeat within tryLimit), only one
	// epoch in skip is searched.
	failed, skip, skipped int
	// layer boundaries of the current pass
	layerByHash map[uint64][]int
	layerSnaps  []layerSnap
	layers      int64 // layers skipped
	// tails measured, by state and program
	tails map[string]tailOutcome
	tail  *tailRec // the tail being measured
	tkey  []byte
	// replayed segments of decode passes (segment.go; nil: off)
	segs *segMemo
	// checkpoints of the attention kernels of decode passes (fork.go)
	forks forkMemo
}

func newJumper(e *engine) *jumper {
	return &jumper{e: e, seed: maphash.MakeSeed(), byHash: map[uint64]int{}, prints: map[uint64]struct{}{},
		layerByHash: map[uint64][]int{}, tails: map[string]tailOutcome{}}
}

// layerSnap is the engine at the start of a layer.
type layerSnap struct {
	layer    int
	pc       int
	t        Time
	key      []byte
	counters []int64
}

// maxTries is the deliveries an epoch looks at (fingerprints) before it
// gives up: a state that recurs every 16 deliveries is found at its third
// occurrence. Fewer tries search the long HBF tails of Fig. 12's kernels
// too briefly: the fig12 group simulated 188 million events with 32 tries
// (740 thousand keys), 173 million with 48 (816 thousand keys); before
// fingerprints, keying 16 deliveries, 226 million events and 1.16 million
// keys.
const maxTries = 48

// In a fixed-batch decode pass, once a stream has finished, the streams
// left keep their pipelines full: a period shows within a few deliveries
// if their state is periodic at all, and when it does not, they are
// draining a transient (an HBM backlog on a link, a route's last chunks),
// which a longer search only pays for. Measured on BenchmarkWritebackDecode,
// whose attention kernels end with such drains: 4 to 8% less CPU than
// searching these epochs as the others (from the 8th delivery, then with
// 16 keys). Elsewhere the longer search pays: the cluster group's runs took
// 25% more CPU with it.
const (
	finishWarm  = 3
	finishTries = 12
)

func (j *jumper) report(p *Perf) {
	p.Jumps += j.jumps
	p.SkippedLayers += j.layers
	if j.segs != nil {
		p.ReplayedSegments += j.segs.hits
		p.ReplayedRests += j.segs.subHits
		p.SimulatedKernels += j.segs.misses
	}
	p.ResumedKernels += j.forks.hits
}

// off reports whether shortcuts are off for now: a traced pass runs event
// by event.
func (j *jumper) off() bool { return j.e.trace != nil }

// delivered looks for a period. Snapshots are taken at the deliveries of
// one stream, the running operator's first unfinished one: a periodic state
// recurs at any fixed phase of the period, and fewer snapshots cost less.
func (j *jumper) delivered(id int32) {
	e := j.e
	if j.off() || e.pc >= len(e.ops) {
		return
	}
	ref := int32(-1)
	for _, k := range e.ops[e.pc].streams {
		if !e.streams[k].finished {
			ref = k
			break
		}
	}
	if ref != id {
		return
	}
	if j.at != e.epoch {
		if j.seen >= j.warm()+j.tryLimit()-1 { // the previous epoch searched in vain
			j.failed++
			j.skip = min(64, 1<<min(j.failed, 6))
		}
		j.finish = e.finishEpoch == e.epoch && (j.segs == nil || !j.segs.all)
		clear(j.byHash)
		clear(j.prints)
		j.snaps = j.snaps[:0]
		j.at, j.seen = e.epoch, 0
		j.skipped++
	}
	if j.skip > 0 && j.skipped%j.skip != 0 {
		return
	}
	// The pipeline needs a few chunks to fill; a repeat is not looked for
	// before, nor after the epoch has produced none in tryLimit tries.
	if j.seen++; j.seen < j.warm() || j.seen >= j.warm()+j.tryLimit() {
		return
	}
	// A state is keyed only when its fingerprint was seen before in the
	// epoch (equal states have equal queues); two states whose queues only
	// look alike cost a key, and the keys decide.
	fp := e.queuePrint()
	if _, ok := j.prints[fp]; !ok {
		j.prints[fp] = struct{}{}
		return
	}
	j.k.key(e, false)
	h := maphash.Bytes(j.seed, j.k.b)
	if i, ok := j.byHash[h]; ok && bytes.Equal(j.snaps[i].key, j.k.b) {
		prev := &j.snaps[i]
		if m := jumpCount(j.k.rem, prev.counters, j.k.cnt); m > 0 {
			j.failed, j.skip = 0, 0
			e.advanceBy(advance{dt: periods(m, e.now-prev.t), counters: counterKinds, m: m, from: prev.counters, to: j.k.cnt})
			j.jumps++
			e.changed()
			return
		}
	}
	var s snapshot
	if len(j.snaps) < cap(j.snaps) {
		s = j.snaps[:len(j.snaps)+1][len(j.snaps)]
	}
	s.t = e.now
	s.key = append(s.key[:0], j.k.b...)
	s.counters = append(s.counters[:0], j.k.cnt...)
	j.byHash[h] = len(j.snaps)
	j.snaps = append(j.snaps, s)
}

// warm is the delivery of the epoch from which a repeat is looked for.
func (j *jumper) warm() int {
	if j.finish {
		return finishWarm
	}
	return 8
}

// tryLimit is the number of deliveries an epoch looks at before it gives up.
func (j *jumper) tryLimit() int {
	if j.finish {
		return finishTries
	}
	return maxTries
}

// jumpCount is the number of whole periods that can be skipped: every
// remaining counter (rem holds their indices; equal keys walk the same
// fields) must still have more than one period's worth left.
func jumpCount(rem []int, before, after []int64) int64 {
	m := int64(1 << 62)
	progress := false
	for _, i := range rem {
		d := before[i] - after[i] // consumed per period
		switch {
		case d < 0:
			m = 0
		case d > 0:
			progress = true
			// keep at least one period (plus one unit) unskipped
			m = min(m, (after[i]-d-1)/d)
		}
	}
	if !progress || m < 1 {
		return 0
	}
	return m
}

// opStarted looks for a layer period at the start of a layer and for a
// measured tail at the start of the tail.
func (j *jumper) opStarted(i int) {
	if i == 0 { // a new pass
		clear(j.layerByHash)
		j.layerSnaps = j.layerSnaps[:0]
		j.segmentsFor(j.e.pass)
		return
	}
	if j.forks.key != nil {
		j.kernelStarted(i)
		return
	}
	ops := j.e.pass.ops
	switch l := ops[i].layer; {
	case l >= 0 && ops[i-1].layer != l && !j.segPass():
		j.atLayerStart(l)
	case l < 0 && ops[i-1].layer >= 0:
		j.atTail()
	}
}

// atLayerStart is called when the first operator of layer l has started.
// If the memory system is in the state it was in at the start of an earlier
// layer, and the layers ahead repeat the layers since then, whole periods
// of layers are skipped; it reports whether they were. When they were not,
// j.k holds the state's key (layer mode) and counters.
func (j *jumper) atLayerStart(l int) (jumped bool) {
	if j.off() {
		return false
	}
	e := j.e
	j.k.key(e, true)
	h := maphash.Bytes(j.seed, j.k.b)
	// Several earlier layers may have left the same state (the start of a
	// dense and of an MoE layer look alike); the most recent one whose
	// program repeats ahead gives the period.
	cands := j.layerByHash[h]
	for c := len(cands) - 1; c >= 0; c-- {
		prev := &j.layerSnaps[cands[c]]
		if !bytes.Equal(prev.key, j.k.b) {
			continue
		}
		if m := layersAhead(e.pass.layerSig, l, l-prev.layer); m > 0 {
			j.skipLayers(m, l-prev.layer, e.pc-prev.pc, e.now-prev.t, prev.counters, j.k.cnt)
			return true
		}
	}
	var s layerSnap
	if len(j.layerSnaps) < cap(j.layerSnaps) {
		s = j.layerSnaps[:len(j.layerSnaps)+1][len(j.layerSnaps)]
	}
	s.layer, s.pc, s.t = l, e.pc, e.now
	s.key = append(s.key[:0], j.k.b...)
	s.counters = append(s.counters[:0], j.k.cnt...)
	j.layerByHash[h] = append(cands, len(j.layerSnaps))
	j.layerSnaps = append(j.layerSnaps, s)
	return false
}

// layersAhead is the number of whole periods of period layers that can be
// skipped from the start of layer l: layers l .. l+m*period must repeat the
// layers period earlier, so that the skipped layers l .. l+m*period-1 run
// as the period just simulated did, and the engine lands at the start of
// layer l+m*period, with its prefetches issued, as it stands now at l.
func layersAhead(sig []uint64, l, period int) int {
	m := 0
	for {
		next := l + (m+1)*period
		if next >= len(sig) {
			return m
		}
		for k := l + m*period; k <= next; k++ {
			if sig[k] != sig[k-period] {
				return m
			}
		}
		m++
	}
}

// skipLayers advances m periods of period layers: opsPer operators and d of
// time each, the statistics growing as between before and after. The walk
// shifts every instant, renumbers every operator and moves the operators'
// own times; the operators in flight then move to their new numbers.
func (j *jumper) skipLayers(m, period, opsPer int, d Time, before, after []int64) {
	e := j.e
	dt := periods(int64(m), d)
	shift := m * opsPer
	lo, hi := e.pc, e.maxOp
	e.advanceBy(advance{dt: dt, counters: statKinds, m: int64(m), from: before, to: after, ops: int64(shift), opDT: dt})
	if e.err != nil {
		return
	}
	for k := hi; k >= lo; k-- {
		e.ops[k+shift] = e.ops[k]
		e.ops[k] = opState{}
	}
	j.layers += int64(m * period)
	e.changed()
}

// tailOutcome is how a pass ended after its last layer: the operators after
// the last layer run to the end of the pass, where the memory system is
// idle, so the outcome is a duration and the increments of the statistics.
type tailOutcome struct {
	d     Time
	delta []int64
}

// tailRec is a tail being measured.
type tailRec struct {
	key    string
	t      Time
	before []int64
}

// Memory bound: the measured tails are dropped when they reach this many.
const maxTails = 1 << 12

// atTail is called when the first operator after the last layer has
// started. A tail that ran before from the same state is replayed.
func (j *jumper) atTail() {
	if j.off() {
		return
	}
	e := j.e
	j.k.key(e, true)
	j.tkey = binary.AppendUvarint(j.tkey[:0], e.pass.tailSig)
	j.tkey = append(j.tkey, j.k.b...)
	if o, ok := j.tails[string(j.tkey)]; ok {
		e.addPass(o.d, o.delta)
		e.idle()
		e.pc = len(e.ops)
		e.passEnded = true
		return
	}
	j.tail = &tailRec{key: string(j.tkey), t: e.now, before: append([]int64(nil), j.k.cnt...)}
}

// passEnded records the tail and the segment measured in this pass.
func (j *jumper) passEnded() {
	if j.segPass() && j.segs.rec != nil && j.segs.rec.target < 0 {
		j.storeSegment(nil)
	}
	if j.tail == nil {
		return
	}
	after := j.e.globalCounters(nil)
	for i := range after {
		after[i] -= j.tail.before[i]
	}
	if len(j.tails) >= maxTails {
		clear(j.tails)
	}
	j.tails[j.tail.key] = tailOutcome{d: j.e.now - j.tail.t, delta: after}
	j.tail = nil
}

// queuePrint is a fingerprint of the event queue seen from now (every
// event's time from now, kind, place, stream and bytes, which the state's
// key holds too): a sum of each event's hash, so that it needs no sorting.
func (e *engine) queuePrint() uint64 {
	h := uint64(len(e.q))*0x9e3779b97f4a7c15 + uint64(e.pc)
	for i := range e.q {
		ev := &e.q[i]
		x := uint64(ev.t-e.now)*0xbf58476d1ce4e5b9 ^ uint64(ev.bytes)*0x94d049bb133111eb ^
			uint64(uint32(ev.stream))<<20 ^ uint64(uint16(ev.at))<<8 ^ uint64(ev.kind)
		x ^= x >> 31
		x *= 0xd6e8feb86659fd39
		x ^= x >> 29
		h += x
	}
	return h
}
