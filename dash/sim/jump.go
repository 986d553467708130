package sim

import (
	"bytes"
	"encoding/binary"
	"github.com/dashlab/dashlab/dash/unit"
	"hash/maphash"
	"slices"
)

// Exact periodic jumps.
//
// Between structural changes (an operator starting or ending, a stream
// being issued or finishing) the engine is a deterministic max-plus system
// fed with identical chunks: once the pipeline has filled, its state seen
// from the current instant repeats. The engine encodes that relative state
// (every pending event, server horizon, register, SRAM slot, queue and
// staged chunk, with absolute times replaced by their distance from now,
// and past horizons clamped to now, which is equivalent) after each chunk
// delivery. When a key repeats, the interval between the two instants is a
// period: every later period is identical and shifted in time, so the
// engine advances m periods at once, shifting every absolute time by m
// periods and adding m times the per-period increase of every counter. The
// progress counters (chunks not yet issued) are kept out of the key; m is
// bounded so that no stream comes within one period of its end, where its
// behaviour would change. The result is the same, bit for bit, as the
// chunk-by-chunk run (Options.NoJump), which the tests check.

// snapshot is the engine state at a chunk delivery.
type snapshot struct {
	t        Time
	key      []byte
	counters []int64
}

// jumper holds the snapshots of the current epoch.
type jumper struct {
	seed   maphash.Seed
	byHash map[uint64]int
	snaps  []snapshot
	buf    []byte
	evBuf  []event
	cnt    []int64
	epoch  uint64 // structural changes seen
	at     uint64 // epoch of the stored snapshots
	seen   int    // deliveries in the current epoch
	jumps  int64
	// Backoff: after failed epochs (no repeat within maxSnapshots), only one
	// epoch in skip is searched. Whether a shortcut is taken never changes a
	// result, only how long the simulation takes.
	failed, skip, skipped int
	pos                   map[int32]int64
	// layer boundaries of the current pass
	layerByHash map[uint64][]int
	layerSnaps  []layerSnap
	layers      int64 // layers skipped
	// tails measured, by state and program
	tails    map[string]tailOutcome
	tailHits int
}

// layerSnap is the engine at the start of a layer.
type layerSnap struct {
	layer    int
	pc       int
	t        Time
	key      []byte
	counters []int64
}

const maxSnapshots = 16

// changed records a structural change: stored snapshots no longer apply.
func (e *engine) changed() { e.jmp.epoch++ }

// maybeJump is called after a chunk of stream id was delivered. Snapshots
// are taken at the deliveries of one stream, the running operator's first
// unfinished one: a periodic state recurs at any fixed phase of the period,
// and fewer snapshots cost less.
func (e *engine) maybeJump(id int32) {
	if e.noJump || e.trace != nil || e.pc >= len(e.ops) {
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
	j := &e.jmp
	if j.at != j.epoch {
		if len(j.snaps) >= maxSnapshots { // the previous epoch searched in vain
			j.failed++
			j.skip = min(64, 1<<min(j.failed, 6))
		}
		clear(j.byHash)
		j.snaps = j.snaps[:0]
		j.at, j.seen = j.epoch, 0
		j.skipped++
	}
	if j.skip > 0 && j.skipped%j.skip != 0 {
		return
	}
	// The pipeline needs a few chunks to fill; a repeat is not looked for
	// before, nor after the epoch has produced none in maxSnapshots tries.
	if j.seen++; j.seen < 8 || len(j.snaps) >= maxSnapshots {
		return
	}
	j.buf = e.encode(j.buf[:0])
	h := maphash.Bytes(j.seed, j.buf)
	if i, ok := j.byHash[h]; ok && bytes.Equal(j.snaps[i].key, j.buf) {
		prev := &j.snaps[i]
		j.cnt = e.counters(j.cnt[:0])
		if m := e.jumpCount(prev.counters, j.cnt); m > 0 {
			j.failed, j.skip = 0, 0
			e.applyJump(m, e.now-prev.t, prev.counters, j.cnt)
			e.changed()
			return
		}
	}
	var s snapshot
	if len(j.snaps) < cap(j.snaps) {
		s = j.snaps[:len(j.snaps)+1][len(j.snaps)]
	}
	s.t = e.now
	s.key = append(s.key[:0], j.buf...)
	s.counters = e.counters(s.counters[:0])
	j.byHash[h] = len(j.snaps)
	j.snaps = append(j.snaps, s)
}

// counterVisitor sees every accumulating or decreasing integer of the
// state and returns its new value (the value itself to leave it). remaining
// marks the decreasing progress counters (work not yet issued), which bound
// a jump.
type counterVisitor func(v int64, remaining bool) int64

// visit passes an integer field of any int64-based type (unit.Bytes,
// unit.Duration, int64) to f by value and stores what f returns: no
// pointer conversion, no allocation.
func visit[T ~int64](f counterVisitor, p *T, remaining bool) {
	*p = T(f(int64(*p), remaining))
}

// visitCounters enumerates, in a fixed order, every counter of the state.
func (e *engine) visitCounters(f counterVisitor) {
	e.visitGlobalCounters(f)
	for i := range e.hbf {
		s := &e.hbf[i]
		for g := range s.readQ {
			for r := range s.readQ[g].runs {
				visit(f, &s.readQ[g].runs[r].full, true)
			}
		}
	}
	for _, id := range e.active {
		st := &e.streams[id]
		visit(f, &st.done, false)
		visit(f, &st.arrived, false)
		// HBM reads and writes issue chunk by chunk: what is left to issue
		// bounds a jump. (HBF reads keep their progress in readQ.)
		visit(f, &st.toIssue, st.route == routeHBM || st.route >= routeDirectWrite)
	}
}

// visitGlobalCounters enumerates the statistics that outlive a pass.
func (e *engine) visitGlobalCounters(f counterVisitor) {
	for i := range e.st.requested {
		visit(f, &e.st.requested[i], false)
		visit(f, &e.st.delivered[i], false)
	}
	visit(f, &e.st.events, false)
	visit(f, &e.st.earlyBytes, false)
	for i := range e.hbf {
		s := &e.hbf[i]
		visit(f, &s.tsv.busy, false)
		visit(f, &s.tsv.bytes, false)
		visit(f, &s.senseBusy, false)
		visit(f, &s.progBusy, false)
		visit(f, &s.waves, false)
		visit(f, &s.programs, false)
	}
	for i := range e.hbm {
		visit(f, &e.hbm[i].array.busy, false)
		visit(f, &e.hbm[i].array.bytes, false)
	}
	for i := range e.links {
		for d := range e.links[i] {
			visit(f, &e.links[i][d].busy, false)
			visit(f, &e.links[i][d].bytes, false)
		}
	}
	for c := range e.st.classTime {
		ct := &e.st.classTime[c]
		visit(f, &ct.ops, false)
		visit(f, &ct.time, false)
		visit(f, &ct.compute, false)
		visit(f, &ct.overhead, false)
	}
}

func (e *engine) counters(dst []int64) []int64 {
	e.visitCounters(func(v int64, _ bool) int64 { dst = append(dst, v); return v })
	return dst
}

// jumpCount is the number of whole periods that can be skipped: every
// remaining counter must still have more than one period's worth left.
func (e *engine) jumpCount(before, after []int64) int64 {
	m := int64(1 << 62)
	i := 0
	progress := false
	e.visitCounters(func(v int64, remaining bool) int64 {
		if remaining {
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
		i++
		return v
	})
	if !progress || m < 1 {
		return 0
	}
	return m
}

// applyJump advances the state by m periods of length period.
func (e *engine) applyJump(m int64, period Time, before, after []int64) {
	i := 0
	e.visitCounters(func(v int64, _ bool) int64 {
		v += m * (after[i] - before[i])
		i++
		return v
	})
	dt, ok := unit.CheckedMul(Time(m), period)
	if !ok {
		dt = MaxTime + 1 // shiftTimes reports it as out of range
	}
	e.shiftTimes(dt)
	e.jmp.jumps++
}

// shiftTimes adds dt to every absolute time of the state.
// Time that would pass MaxTime ends the run (e.err) and is not shifted.
func (e *engine) shiftTimes(dt Time) {
	if !e.advanceOK(e.now, dt) {
		return
	}
	e.now += dt
	for i := range e.q {
		e.q[i].t += dt
	}
	for i := range e.hbf {
		s := &e.hbf[i]
		s.arrayUntil += dt
		s.tsv.until += dt
	}
	for i := range e.hbm {
		e.hbm[i].array.until += dt
	}
	for i := range e.links {
		for d := range e.links[i] {
			e.links[i][d].until += dt
		}
	}
	// Operators keep their times: a running operator started before the
	// shift, and its compute deadline, if it still mattered, would have kept
	// the state from repeating. (skipLayers moves operators explicitly.)
}

// encode appends the state relative to now: everything that determines
// the future except the progress counters.
func (e *engine) encode(b []byte) []byte { return e.encodeMode(b, false) }

// encodeMode is encode; in layer mode (at a layer boundary) streams are
// named by their position among the active streams and operators relative
// to the program counter, and progress counters are part of the key, so
// that the states at two layer boundaries compare equal when the layers
// left the memory system in the same condition.
func (e *engine) encodeMode(b []byte, layer bool) []byte {
	now := e.now
	j := &e.jmp
	sid := func(id int32) int64 { return int64(id) }
	oid := func(i int) int64 { return int64(i) }
	if layer {
		clear(j.pos)
		if j.pos == nil {
			j.pos = map[int32]int64{}
		}
		for k, id := range e.active {
			j.pos[id] = int64(k)
		}
		sid = func(id int32) int64 {
			if id < 0 {
				return int64(id)
			}
			if p, ok := j.pos[id]; ok {
				return p
			}
			return -1000 - int64(id) // a finished stream: cannot match
		}
		oid = func(i int) int64 { return int64(i - e.pc) }
	}
	rel := func(t Time) int64 { return int64(max(0, t-now)) }
	put := func(v int64) { b = binary.AppendVarint(b, v) }
	bit := func(v bool) {
		if v {
			put(1)
		} else {
			put(0)
		}
	}
	segs := func(ss []seg) {
		put(int64(len(ss)))
		for _, s := range ss {
			put(sid(s.stream))
			put(int64(s.bytes))
		}
	}
	put(oid(e.pc))
	put(oid(e.maxOp))
	put(int64(e.writesPending))
	bit(e.passEnded)
	put(int64(e.gpuStaged))
	// events in (t, seq) order, without seq
	j.evBuf = append(j.evBuf[:0], e.q...)
	slices.SortFunc(j.evBuf, func(a, c event) int {
		if a.before(&c) {
			return -1
		}
		return 1
	})
	put(int64(len(j.evBuf)))
	for _, ev := range j.evBuf {
		put(int64(ev.t - now))
		put(int64(ev.kind))
		put(int64(ev.stack))
		switch ev.kind {
		case evOpEnd:
			put(oid(int(ev.stream)))
		case evArrayDone:
			put(int64(ev.stream))
		default:
			put(sid(ev.stream))
		}
		put(int64(ev.bytes))
	}
	for i := range e.hbf {
		s := &e.hbf[i]
		put(int64(len(s.readQ)))
		for _, g := range s.readQ {
			put(oid(int(g.op)))
			put(int64(len(g.runs)))
			put(int64(g.next))
			for _, r := range g.runs {
				put(sid(r.stream))
				put(int64(r.last))
				if layer {
					put(int64(r.full))
				} else {
					bit(r.full > 0)
				}
			}
		}
		bit(s.programActive)
		put(rel(s.arrayUntil))
		for _, waves := range [][][]seg{s.sensing, s.dataReg} {
			put(int64(len(waves)))
			for _, w := range waves {
				segs(w)
			}
		}
		segs(s.cacheReg)
		put(int64(s.cacheNext))
		put(int64(s.cacheDone))
		bit(s.tsvWait)
		put(rel(s.tsv.until))
		put(int64(s.slotsFree))
		put(int64(len(s.slotWait)))
		for _, r := range s.slotWait {
			put(int64(r.kind))
			put(sid(r.seg.stream))
			put(int64(r.seg.bytes))
		}
		put(int64(len(s.progPending)))
		for _, w := range s.progPending {
			put(int64(w.slots))
			segs(w.parts)
		}
		segs(s.programming)
		put(int64(s.relayFree))
		segs(s.relayWait)
		segs(s.rwWait)
	}
	for i := range e.hbm {
		put(rel(e.hbm[i].array.until))
	}
	for i := range e.links {
		for d := range e.links[i] {
			put(rel(e.links[i][d].until))
		}
	}
	put(int64(len(e.active)))
	for _, id := range e.active {
		st := &e.streams[id]
		put(sid(id))
		put(int64(st.route))
		put(int64(st.stack))
		if st.consumer >= 0 {
			put(oid(int(st.consumer)))
		} else {
			put(-1)
		}
		if layer {
			put(int64(st.total))
			put(int64(st.done))
			put(int64(st.toIssue))
			put(int64(st.arrived))
		}
		bit(st.started)
		bit(st.early)
		put(int64(len(st.staged)))
		for k, sg := range st.staged {
			put(int64(sg.bytes))
			bit(st.stagedRelay[k])
		}
		put(int64(st.progBuf.slots))
		segs(st.progBuf.parts)
		// A write's partial wave closes when the last segment arrives; the
		// distance to the end matters only near it, which the horizon keeps
		// out of jumps.
	}
	for i := e.pc; i <= e.maxOp && i < len(e.ops); i++ {
		op := &e.ops[i]
		if !op.started && !op.prefetched && !op.routedDone && op.pending == 0 && op.early == 0 {
			continue
		}
		put(oid(i))
		bit(op.started)
		put(rel(op.computeDone))
		put(int64(op.pending))
		put(int64(op.total))
		put(int64(op.lastBytes))
		bit(op.prefetched)
		bit(op.routedDone)
		put(int64(op.early))
	}
	return b
}

// resetLayers forgets the layer boundaries of the previous pass.
func (e *engine) resetLayers() {
	j := &e.jmp
	if j.layerByHash == nil {
		j.layerByHash = map[uint64][]int{}
	}
	clear(j.layerByHash)
	j.layerSnaps = j.layerSnaps[:0]
}

// atLayerStart is called when the first operator of layer l has started.
// If the memory system is in the state it was in at the start of an earlier
// layer, and the layers ahead repeat the layers since then, whole periods
// of layers are skipped.
func (e *engine) atLayerStart(l int) {
	if e.noJump || e.trace != nil {
		return
	}
	j := &e.jmp
	j.buf = e.encodeMode(j.buf[:0], true)
	h := maphash.Bytes(j.seed, j.buf)
	// Several earlier layers may have left the same state (the start of a
	// dense and of an MoE layer look alike); the most recent one whose
	// program repeats ahead gives the period.
	cands := j.layerByHash[h]
	for c := len(cands) - 1; c >= 0; c-- {
		prev := &j.layerSnaps[cands[c]]
		if !bytes.Equal(prev.key, j.buf) {
			continue
		}
		if m := layersAhead(e.pass.layerSig, l, l-prev.layer); m > 0 {
			j.cnt = e.globalCounters(j.cnt[:0])
			e.skipLayers(m, l-prev.layer, e.pc-prev.pc, e.now-prev.t, prev.counters, j.cnt)
			return
		}
	}
	var s layerSnap
	if len(j.layerSnaps) < cap(j.layerSnaps) {
		s = j.layerSnaps[:len(j.layerSnaps)+1][len(j.layerSnaps)]
	}
	s.layer, s.pc, s.t = l, e.pc, e.now
	s.key = append(s.key[:0], j.buf...)
	s.counters = e.globalCounters(s.counters[:0])
	j.layerByHash[h] = append(cands, len(j.layerSnaps))
	j.layerSnaps = append(j.layerSnaps, s)
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
// time each, the global counters growing as between before and after.
func (e *engine) skipLayers(m, period, opsPer int, d Time, before, after []int64) {
	i := 0
	e.visitGlobalCounters(func(v int64, _ bool) int64 {
		v += int64(m) * (after[i] - before[i])
		i++
		return v
	})
	dt, ok := unit.CheckedMul(Time(m), d)
	if !ok {
		dt = MaxTime + 1 // shiftTimes reports it as out of range
	}
	e.shiftTimes(dt)
	shift := m * opsPer
	// Move the in-flight operators and everything that names them.
	for k := e.maxOp; k >= e.pc; k-- {
		op := e.ops[k]
		if op.started {
			op.start += dt
			op.computeDone += dt
		}
		e.ops[k+shift] = op
		e.ops[k] = opState{}
	}
	for _, id := range e.active {
		if st := &e.streams[id]; st.consumer >= 0 {
			st.consumer += int32(shift)
		}
	}
	for k := range e.q {
		if e.q[k].kind == evOpEnd {
			e.q[k].stream += int32(shift)
		}
	}
	for i := range e.hbf {
		for g := range e.hbf[i].readQ {
			e.hbf[i].readQ[g].op += int32(shift)
		}
	}
	e.pc += shift
	e.maxOp += shift
	e.jmp.layers += int64(m * period)
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

// atTail is called when the first operator after the last layer has
// started. A tail that ran before from the same state is replayed.
func (e *engine) atTail() {
	if e.noJump || e.trace != nil {
		return
	}
	j := &e.jmp
	if j.tails == nil {
		j.tails = map[string]tailOutcome{}
	}
	j.buf = binary.AppendUvarint(j.buf[:0], e.pass.tailSig)
	j.buf = e.encodeMode(j.buf, true)
	if o, ok := j.tails[string(j.buf)]; ok {
		i := 0
		e.visitGlobalCounters(func(v int64, _ bool) int64 {
			v += o.delta[i]
			i++
			return v
		})
		e.shiftTimes(o.d)
		e.idle()
		e.pc = len(e.ops)
		e.passEnded = true
		j.tailHits++
		return
	}
	e.tail = &tailRec{key: string(j.buf), t: e.now, before: e.globalCounters(nil)}
}

// endTail records the tail measured in this pass.
func (e *engine) endTail() {
	if e.tail == nil {
		return
	}
	after := e.globalCounters(nil)
	for i := range after {
		after[i] -= e.tail.before[i]
	}
	e.jmp.tails[e.tail.key] = tailOutcome{d: e.now - e.tail.t, delta: after}
	e.tail = nil
}

// idle drops everything in flight: used when a replayed tail has taken the
// engine to the end of its pass, where the memory system is idle. Resource
// horizons stay as they are: they are in the past, which is all that
// matters to what follows.
func (e *engine) idle() {
	e.q = e.q[:0]
	for i := range e.hbf {
		s := &e.hbf[i]
		*s = hbfStack{tsv: s.tsv, senseBusy: s.senseBusy, progBusy: s.progBusy, waves: s.waves, programs: s.programs,
			arrayUntil: min(s.arrayUntil, e.now), slotsFree: e.cfg.hbfSlots, relayFree: e.cfg.relaySlots}
		s.tsv.until = min(s.tsv.until, e.now)
	}
	for i := range e.hbm {
		e.hbm[i].array.until = min(e.hbm[i].array.until, e.now)
	}
	for i := range e.links {
		for d := range e.links[i] {
			e.links[i][d].until = min(e.links[i][d].until, e.now)
		}
	}
	for _, id := range e.active {
		e.streams[id].finished = true
	}
	e.active = e.active[:0]
	e.writesPending = 0
	e.gpuStaged = 0
}
