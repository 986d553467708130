package sim

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/dashlab/dashlab/dash/unit"
)

// Replayed segments: the exact shortcut across the decode steps of a long
// decode.
//
// Consecutive decode steps differ only in their attention kernels (the
// attended KV grows, and writebacks move KV to HBF); every other operator
// is the same in every step. A decode pass is cut at its attention
// kernels into segments: from the end of layer l's attention to the start
// of layer l+1's (or to the end of the pass). A segment's outcome (its
// duration, the increments of every statistic and the state it leaves) is
// a function of the state it starts from and of the operators it runs,
// including the predictable HBF reads of the next attention kernel, which
// are sensed ahead during the segment. A long attention lets the memory
// system settle (the next operator's prefetch waits in SRAM), so the state
// at its end recurs from step to step, and so do the segments: the engine
// keys each segment by its starting state (layer mode: streams by position,
// operators relative to the program counter, times relative to now, and
// progress counters in full) and its operators' signature, and a key seen
// before replays: the statistics advance by the recorded increments and
// the recorded end state is installed, shifted to now, with fresh stream
// ids. Only the attention kernels, whose context differs from step to step,
// are simulated. In this mode the layer jumps (jump.go) compare layers at
// the start of their attention kernels instead of at their first operator,
// a boundary that replays reach.
//
// A segment whose start state is new (a disturbance carried in from the
// kernel before it, such as the phase of an HBF array's sensing after a
// kernel that wrote KV back) often settles within its first operators:
// while a decode segment is recorded, the state at each operator boundary
// within it is keyed too, and when the rest of the segment ran before from
// that state (a rest of a segment: the segment's operators, the boundary's
// place among them and the state), the rest is replayed and the whole
// segment stored as ending where the rest ends; the boundaries that missed
// are stored as rests when the segment ends. Past 64,000 steps of the long
// decode of BenchmarkWritebackDecode, every step that writes KV back
// starts such a segment, and its rest is replayed after one operator.
//
// The heterogeneous passes of a serving run (Passer) replay segments too,
// prefill chunks included, and keep the memo from pass to pass: two passes
// of the same token count run the same operators between their attention
// kernels, so a new pass mostly simulates its kernels.
//
// The result is the same, bit for bit, as the event-by-event run
// (Options.NoJump), which the tests check on decodes with and without KV
// writeback and on serving traces (serve's TestServingShortcutsExact).

// maxSegments bounds each memo (segments, kernels); a memo is cleared when
// full. The kernels, a new one for every context block, fill theirs fast;
// the segments between them, few and each worth thousands of events, are
// kept apart so that the kernels do not evict them.
const maxSegments = 4096

// segMemo holds the recorded segments of a run and the one being recorded.
type segMemo struct {
	byKey   map[string]*segment // the segments between attention kernels
	kernels map[string]*segment // the attention kernels
	subs    map[string]*segment // the rests of segments, from an operator boundary within them
	rec     *segRec
	on      bool // the pass in flight replays segments
	buf     []byte
	before  []int64 // reused for the recording's counters
	hits    int64
	subHits int64 // of hits, the rests of segments
	misses  int64 // the kernels that missed, hence simulated
	chain   chain // replays not yet applied (see opEnded)
	all     bool  // every pass replays segments (heterogeneous passes), not only decode passes
}

// segment is a recorded segment: its duration, the increments of the
// global counters, and the state it ends in (nil: the end of the pass,
// where the memory system is idle).
type segment struct {
	d     Time
	delta []int64
	end   *dynState
	// endKey is the key of the end state (in layer mode), once known.
	endKey []byte
	// from and fromOps place the segment's start in the frame end is
	// relative to: zero, except for the rest of a segment (a sub-segment),
	// which shares the whole segment's end.
	from    Time
	fromOps int
}

// endPC is the operator the segment ends before, relative to its start.
func (s *segment) endPC() int { return s.end.pc - s.fromOps }

// segRec is a segment being recorded.
type segRec struct {
	key    string
	sig    int // the length of key's operator signature (the state's key follows)
	t      Time
	pc     int
	target int // the attention kernel it ends before; -1: the pass's end
	before []int64
	// subs are the operator boundaries within the segment that were keyed
	// and missed, to be stored as the rests of the segment (sub-segments).
	subs []subStart
}

// subStart is an operator boundary within a segment being recorded: the
// memo key of the rest of the segment from there, the instant, the
// operator and the global counters there.
type subStart struct {
	key    string
	t      Time
	pc     int
	before []int64
}

// dynState is the engine's state at a segment boundary, less the
// statistics: times relative to the segment's start, operators relative to
// its first operator, streams numbered by their position among the active
// streams (-1: a finished stream an operator still lists).
type dynState struct {
	pc, maxOp     int
	writesPending int
	gpuStaged     unit.Bytes
	q             []event // in (t, seq) order
	hbf           []hbfStack
	hbmUntil      []Time
	linkUntil     []Time
	pools         []pool
	streams       []stream
	ops           []opState // pc .. max(pc, maxOp)
}

// idMap renames streams and operators and moves times between the engine
// and a stored state. Streams: with capture set, a stream is named by its
// position in active (-1: not active, a finished stream); with install
// set, position k becomes stream base+k and -1 the stand-in dummy;
// otherwise names stay. The engine keeps one (visitors.ids), with
// the relocate visitor its copies use, so that copying a state allocates
// only the copy.
type idMap struct {
	op          int32
	dt          Time
	active      []int32
	capture     bool
	install     bool
	base, dummy int32
	rel         relocate
}

// stream renames stream id.
func (m *idMap) stream(id int32) int32 {
	switch {
	case m.capture:
		for k, a := range m.active {
			if a == id {
				return int32(k)
			}
		}
		return -1
	case m.install:
		if id < 0 {
			return m.dummy
		}
		return m.base + id
	}
	return id
}

// relocator returns the idMap's visitor, reset, with stats.
func (m *idMap) relocator(stats []int64) *relocate {
	m.rel = relocate{m: m, stats: stats}
	return &m.rel
}

// stack moves a copy of an HBF stack (cloneStack, or the engine's
// stackInto) to another place and time, through the stack's walk: every
// instant moved, every operator and stream renamed and every statistic set
// to stats (in walk order; nil: zero). What the walk covers, the copy
// covers: a field the walk does not visit is copied as it is, and
// walk_test's reflection tests fail when a field is neither walked nor
// listed, or is not cloned.
func (m *idMap) stack(c *hbfStack, waveRuns bool, stats []int64) {
	r := m.relocator(stats)
	c.walk(walker{v: r, uses: r.uses(), waveRuns: waveRuns})
}

// pool copies an SRAM pool, its waiting chunks renamed (through the
// pool's walk).
func (m *idMap) pool(p *pool) pool {
	c := clonePool(p)
	r := m.relocator(nil)
	c.walk(walker{v: r, uses: r.uses()})
	return c
}

// relocate is the visitor that moves a copied state: instants by dt,
// operators by op, streams through stream, statistics set from stats.
type relocate struct {
	ignore
	m     *idMap
	stats []int64
	i     int
}

func (r *relocate) uses() kinds {
	return kindsOf(instant, opInstant, opID, streamID, stat)
}
func (r *relocate) instant(v int64) int64   { return v + int64(r.m.dt) }
func (r *relocate) opInstant(v int64) int64 { return v + int64(r.m.dt) }
func (r *relocate) streamID(v int64) int64  { return int64(r.m.stream(int32(v))) }
func (r *relocate) opID(v int64) int64 {
	if v < 0 {
		return v
	}
	return v + int64(r.m.op)
}
func (r *relocate) stat(v int64) int64 {
	if r.stats == nil {
		return 0
	}
	r.i++
	return r.stats[r.i-1]
}

// cloneStack copies an HBF stack, its lists included (nothing shared).
func cloneStack(s *hbfStack) hbfStack {
	c := cloneQueues(s)
	c.sensing, c.dataReg = cloneWaves(s.sensing), cloneWaves(s.dataReg)
	c.cacheReg = slices.Clone(s.cacheReg)
	return c
}

// cloneQueues copies an HBF stack with its read queue and its programs'
// lists; its page waves (sensing, dataReg, cacheReg) are still s's.
func cloneQueues(s *hbfStack) hbfStack {
	c := *s
	c.readQ = slices.Clone(s.readQ)
	for i := range c.readQ {
		c.readQ[i].runs = slices.Clone(c.readQ[i].runs)
	}
	c.programming = slices.Clone(s.programming)
	c.progPending = slices.Clone(s.progPending)
	for i := range c.progPending {
		c.progPending[i].parts = slices.Clone(c.progPending[i].parts)
	}
	return c
}

// cloneWaves copies a list of page waves into one allocation (each wave's
// capacity its length, so that growing one never overwrites the next).
func cloneWaves(ws [][]seg) [][]seg {
	if ws == nil {
		return nil
	}
	n := 0
	for _, w := range ws {
		n += len(w)
	}
	buf := make([]seg, n)
	out := make([][]seg, len(ws))
	for i, w := range ws {
		if w == nil {
			continue
		}
		k := copy(buf, w)
		out[i], buf = buf[:k:k], buf[k:]
	}
	return out
}

// clonePool copies an SRAM pool, its waiting lists included.
func clonePool(p *pool) pool {
	c := *p
	for k := range c.wait {
		c.wait[k] = slices.Clone(p.wait[k])
	}
	return c
}

// stream1 copies a stream, relocated through its walk; its operator for
// traces (not walked) moves with the operators.
func (m *idMap) stream1(st *stream) stream {
	c := *st
	c.staged, c.progBuf.parts = slices.Clone(st.staged), slices.Clone(st.progBuf.parts)
	r := m.relocator(nil)
	c.walk(walker{v: r, uses: r.uses()})
	c.op = st.op + m.op
	return c
}

// op1 copies an operator's progress, relocated through its walk; the
// streams it consumes (not walked) are renamed.
func (m *idMap) op1(o *opState) opState {
	c := *o
	r := m.relocator(nil)
	c.walk(walker{v: r, uses: r.uses()})
	c.streams = make([]int32, len(o.streams))
	for i, id := range o.streams {
		c.streams[i] = m.stream(id)
	}
	return c
}

func (m *idMap) event1(ev event) event {
	ev.t += m.dt
	switch ev.kind {
	case evOpEnd:
		ev.stream += m.op
	case evArrayDone:
	default:
		if ev.stream >= 0 {
			ev.stream = m.stream(ev.stream)
		}
	}
	return ev
}

// capture returns the engine's state relative to a segment that started
// at t0 with operator pc0.
func (e *engine) capture(t0 Time, pc0 int) *dynState {
	m := &e.visitors.ids
	*m = idMap{op: int32(-pc0), dt: -t0, capture: true, active: e.active}
	d := &dynState{pc: e.pc - pc0, maxOp: e.maxOp - pc0, writesPending: e.writesPending, gpuStaged: e.gpuStaged,
		hbf: make([]hbfStack, 0, len(e.hbf)), hbmUntil: make([]Time, 0, len(e.hbm)),
		linkUntil: make([]Time, 0, len(e.links)), pools: make([]pool, 0, len(e.pools)), streams: make([]stream, 0, len(e.active))}
	d.q = slices.Clone(e.q)
	sortEvents(d.q)
	for i := range d.q {
		d.q[i] = m.event1(d.q[i])
	}
	runs := e.cfg.readWaves == 0
	for i := range e.hbf {
		d.hbf = append(d.hbf, cloneStack(&e.hbf[i]))
		m.stack(&d.hbf[i], runs, nil)
	}
	for i := range e.hbm {
		d.hbmUntil = append(d.hbmUntil, e.hbm[i].array.until-t0)
	}
	for i := range e.links {
		d.linkUntil = append(d.linkUntil, e.links[i].until-t0)
	}
	for i := range e.pools {
		d.pools = append(d.pools, m.pool(&e.pools[i]))
	}
	for _, id := range e.active {
		d.streams = append(d.streams, m.stream1(&e.streams[id]))
	}
	for i := e.pc; i <= max(e.pc, e.maxOp) && i < len(e.ops); i++ {
		d.ops = append(d.ops, m.op1(&e.ops[i]))
	}
	return d
}

// install replaces the engine's dynamic state by d, the segment having
// started with operator pc0 and ending now.
func (e *engine) install(d *dynState, t0 Time, pc0 int) {
	base := int32(len(e.streams))
	dummy := base + int32(len(d.streams)) // stands for the finished streams operators still list
	m := &e.visitors.ids
	*m = idMap{op: int32(pc0), dt: t0, install: true, base: base, dummy: dummy}
	e.active = e.active[:0]
	for k := range d.streams {
		e.streams = append(e.streams, m.stream1(&d.streams[k]))
		e.active = append(e.active, base+int32(k))
	}
	e.streams = append(e.streams, stream{consumer: -1, op: -1, started: true, finished: true})
	e.q = e.q[:0]
	for _, ev := range d.q {
		ev = m.event1(ev)
		e.seq++
		ev.seq = e.seq
		e.q = append(e.q, ev) // in (t, seq) order: a valid heap
	}
	stats := &e.visitors.stats
	for i := range e.hbf {
		s := &e.hbf[i]
		stats.dst = stats.dst[:0] // the stack's own statistics stay
		s.walk(walkerOf(stats))
		e.stackInto(s, &d.hbf[i])
		m.stack(s, e.cfg.readWaves == 0, stats.dst)
	}
	for i := range e.hbm {
		e.hbm[i].array.until = d.hbmUntil[i] + t0
	}
	for i := range e.links {
		e.links[i].until = d.linkUntil[i] + t0
	}
	for i := range e.pools {
		e.pools[i] = m.pool(&d.pools[i])
	}
	clear(e.ops[e.pc:min(len(e.ops), max(e.maxOp, pc0+d.maxOp, pc0+d.pc+len(d.ops)-1)+1)])
	for k := range d.ops {
		e.ops[pc0+d.pc+k] = m.op1(&d.ops[k])
	}
	e.pc, e.maxOp = pc0+d.pc, pc0+d.maxOp
	e.writesPending, e.gpuStaged = d.writesPending, d.gpuStaged
	e.changed()
}

// replaySegments turns replayed segments on for the decode passes of a
// fixed-batch run (one attention kernel per layer), when shortcuts are.
func (e *engine) replaySegments() {
	if j, ok := e.cut.(*jumper); ok {
		j.segs = &segMemo{byKey: map[string]*segment{}, kernels: map[string]*segment{}, subs: map[string]*segment{}}
	}
}

// replayAllSegments turns replayed segments on for every pass, prefill
// chunks included: the heterogeneous passes of a serving run (Passer),
// whose segments recur from pass to pass (the operators between two
// attention kernels depend on the pass's token count only).
func (e *engine) replayAllSegments() {
	e.replaySegments()
	if j, ok := e.cut.(*jumper); ok {
		j.segs.all = true
	}
}

// segmentsFor starts a pass: segments apply to the decode passes (to
// every pass with replayAllSegments).
func (j *jumper) segmentsFor(p *pass) {
	if j.segs != nil {
		j.segs.on = (p.decode || j.segs.all) && !j.off()
		j.segs.rec = nil
	}
}

// segPass reports whether the pass in flight replays segments.
func (j *jumper) segPass() bool { return j.segs != nil && j.segs.on }

// segmentSig identifies the operators of the segment of ops operators that
// starts after layer l's attention kernel: the rest of layer l, layer l+1
// up to its attention kernel, the kernel's predictable reads, and (for the
// last layer) the operators after the layers.
func (j *jumper) segmentSig(l, ops int) []byte {
	p := j.e.pass
	b := binary.AppendVarint(j.segs.buf[:0], int64(ops))
	b = binary.AppendUvarint(b, p.staticSig[l])
	if l+1 >= len(p.attnIdx) {
		return binary.AppendUvarint(b, p.tailSig)
	}
	b = binary.AppendUvarint(b, p.staticSig[l+1])
	return j.appendKernelReads(b, l+1)
}

// appendKernelReads appends what of layer l's attention kernel is read
// ahead, during the segment before it: its predictable HBF reads.
func (j *jumper) appendKernelReads(b []byte, l int) []byte {
	p := j.e.pass
	k := &p.ops[p.attnIdx[l]]
	for _, v := range []int64{int64(k.weights), b2i(k.replicated), int64(k.kvHBF), int64(k.gather),
		int64(k.sharedN), int64(k.sharedBytes), int64(k.routedN), int64(k.expertSize), b2i(k.readsHBF())} {
		b = binary.AppendVarint(b, v)
	}
	return j.e.appendKVSplit(b, k) // the HBM KV moves the HBF KV's split
}

// prefixSig identifies the segment of ops operators from the end of the
// embedding to the first attention kernel: layer 0's other operators and
// the kernel's reads ahead.
func (j *jumper) prefixSig(ops int) []byte {
	b := binary.AppendVarint(j.segs.buf[:0], -3)
	b = binary.AppendVarint(b, int64(ops))
	b = binary.AppendUvarint(b, j.e.pass.staticSig[0])
	return j.appendKernelReads(b, 0)
}

// kernelSig identifies the segment that is layer l's attention kernel: the
// kernel and the layer's other operators (the kernel's start prefetches
// the next one that reads HBF).
func (j *jumper) kernelSig(l int) []byte {
	b := binary.AppendVarint(j.segs.buf[:0], -1)
	return binary.AppendUvarint(b, j.e.pass.layerSig[l])
}

// opEnded is called when operator i has ended and the program counter has
// moved to the next operator, before it starts. In a decode pass it ends a
// recording whose segment ends here; then, after an attention kernel or
// before one (where it first looks for a layer jump), it replays the
// segment that starts here if it ran before, and again from where that
// leaves, or starts recording it. It reports whether the pass has ended.
//
// Consecutive replays form a chain: the state a replayed segment ends in
// is keyed once (segment.endKey), so the next segment is looked up without
// installing that state; the chain's time and statistics are added, and
// the last segment's end state installed, once, where the chain ends.
func (j *jumper) opEnded(int) bool {
	if !j.segPass() {
		return false
	}
	j.forks.rec = nil
	e, sm, p := j.e, j.segs, j.e.pass
	var last *segment // the segment that ended at the state now keyed, if any
	if r := sm.rec; r != nil && e.pc == r.target {
		last = j.storeSegment(e.capture(r.t, r.pc))
	}
	ch := &sm.chain
	pc := e.pc
	if r := sm.rec; r != nil && !sm.all && e.pc != r.target && r.target != r.pc+1 && e.pc < len(p.ops) {
		// Within a segment being recorded: the rest of it may have run
		// before from the state here (a disturbance the segment's start
		// state carried, such as an HBF array's phase, has died out).
		// Decode passes only: the heterogeneous passes of serving rarely
		// meet such a state, and keying every boundary cost them more
		// than it saved.
		if s := j.subSegment(r); s != nil {
			j.storeThrough(r, s)
			sm.hits++
			sm.subHits++
			ch.add(s, e.now, pc)
			if s.end == nil {
				j.flushChain()
				if e.err != nil {
					return false
				}
				e.idle()
				e.pc = len(p.ops)
				e.passEnded = true
				return true
			}
			pc += s.endPC()
			if s.endKey == nil {
				j.flushChain()
				if e.err != nil {
					return false
				}
				last = s
			}
		}
	}
	for sm.rec == nil && pc < len(p.ops) {
		prev, cur := &p.ops[pc-1], &p.ops[pc]
		var target int
		keyed := false // j.k.b holds the state's key
		switch {
		case prev.class == ClassAttention && prev.layer >= 0:
			l := prev.layer
			target = -1
			if l+1 < len(p.attnIdx) {
				target = p.attnIdx[l+1]
			}
			sm.buf = j.segmentSig(l, target-pc)
		case cur.class == ClassAttention && cur.layer >= 0:
			if ch.n == 0 { // the state is installed: look for a layer jump
				jumped := j.atLayerStart(cur.layer) // may skip layers: to the same point of a later one
				keyed = !jumped && e.err == nil
				if jumped {
					last = nil
				}
				pc = e.pc
			}
			target = pc + 1
			sm.buf = j.kernelSig(p.ops[pc].layer)
		case pc == 1 && prev.class == ClassEmbed && len(p.attnIdx) > 0 && p.attnIdx[0] > pc:
			// The pass's start, from the embedding to the first kernel:
			// the same in every pass of a token count.
			target = p.attnIdx[0]
			sm.buf = j.prefixSig(target - pc)
		default:
			j.flushChain()
			return false
		}
		var key []byte
		switch {
		case ch.n > 0 && ch.last.endKey != nil:
			key = ch.last.endKey
		default:
			j.flushChain()
			if e.err != nil {
				return false
			}
			if !keyed {
				j.k.key(e, true)
			}
			key = j.k.b
			if last != nil {
				last.endKey = slices.Clone(key)
			}
		}
		last = nil
		sm.buf = append(sm.buf, key...)
		memo := sm.byKey
		if target == pc+1 {
			memo = sm.kernels
		}
		s, ok := memo[string(sm.buf)]
		if !ok {
			if ch.n > 0 {
				j.flushChain()
				if e.err != nil {
					return false
				}
				sm.before = e.globalCounters(sm.before[:0])
			} else {
				sm.before = append(sm.before[:0], j.k.cnt...)
			}
			if target == pc+1 {
				sm.misses++
				j.kernelMissed(p.ops[pc].layer, key)
			}
			sm.rec = &segRec{key: string(sm.buf), sig: len(sm.buf) - len(key), t: e.now, pc: pc, target: target, before: sm.before}
			return false
		}
		if target == pc+1 && ch.n > 0 { // a kernel within a chain: does the chain repeat?
			if npc, ok := j.repeatLayers(pc); ok {
				pc = npc
				continue
			}
		}
		sm.hits++
		ch.add(s, e.now, pc)
		if s.end == nil {
			j.flushChain()
			if e.err != nil {
				return false
			}
			e.idle()
			e.pc = len(p.ops)
			e.passEnded = true
			return true
		}
		pc += s.endPC()
		if s.endKey == nil { // key the end state once it is installed
			j.flushChain()
			if e.err != nil {
				return false
			}
			last = s
		}
	}
	j.flushChain()
	return false
}

// chain is a run of replayed segments whose end state is not installed
// yet: their number, total duration, the distinct segments with how often
// each ran (a pass repeats a few), and the last one, which started at t0
// with operator pc0.
type chain struct {
	n     int
	d     Time
	runs  []segRuns
	last  *segment
	t0    Time
	pc0   int
	delta []int64 // reused to sum the increments when the pass ends
	// seq is the chain's segments in order, marks the kernels it reached
	// (the last few), for repeatLayers.
	seq   []*segment
	marks []chainMark
}

// chainMark is a kernel a chain reached: the memo key it was looked up by,
// its layer and operator, and the chain's segments and duration before it.
type chainMark struct {
	key       []byte
	layer, pc int
	seq       int
	d         Time
}

// maxChainMarks bounds the kernels remembered: a period of up to as many
// layers is found.
const maxChainMarks = 8

// repeatLayers is the layer jump of a chain of replays. The kernel at
// operator pc is about to be looked up by the key in the memo's buffer,
// the chain not installed; if the chain reached a kernel of an earlier
// layer by the same key (same state, same operators), the segments since
// then are one period, and while the layers ahead repeat the period's
// layers (layersAhead) the same lookups would replay the same segments:
// whole periods are added to the chain at once, m x each segment, and the
// kernel the chain stands before moves on by m periods. It reports the
// operator the chain stands before, and whether it moved; otherwise it
// remembers this kernel.
func (j *jumper) repeatLayers(pc int) (int, bool) {
	sm, p := j.segs, j.e.pass
	c := &sm.chain
	l := p.ops[pc].layer
	for k := len(c.marks) - 1; k >= 0; k-- {
		mk := c.marks[k]
		if mk.layer >= l || !bytes.Equal(mk.key, sm.buf) {
			continue
		}
		per, ops := l-mk.layer, pc-mk.pc
		m := layersAhead(p.layerSig, l, per)
		if m == 0 {
			break
		}
		d, ok := unit.CheckedMul(Time(m), c.d-mk.d)
		if !ok || d > MaxTime-c.d {
			break
		}
		period := c.seq[mk.seq:]
		for _, s := range period {
			r := len(c.runs) - 1
			for ; c.runs[r].s != s; r-- {
			}
			c.runs[r].m += int64(m)
		}
		c.n += m * len(period)
		c.t0 += d
		c.pc0 += m * ops
		c.d += d
		sm.hits += int64(m * len(period))
		j.layers += int64(m * per)
		c.marks = c.marks[:0]
		return pc + m*ops, true
	}
	if len(c.marks) == maxChainMarks {
		old := c.marks[0]
		copy(c.marks, c.marks[1:])
		c.marks[len(c.marks)-1] = old
		c.marks = c.marks[:len(c.marks)-1]
	}
	n := len(c.marks)
	if n < cap(c.marks) {
		c.marks = c.marks[:n+1]
	} else {
		c.marks = append(c.marks, chainMark{})
	}
	mk := &c.marks[n]
	mk.key = append(mk.key[:0], sm.buf...)
	mk.layer, mk.pc, mk.seq, mk.d = l, pc, len(c.seq), c.d
	return pc, false
}

// segRuns is a segment of a chain and how often it ran.
type segRuns struct {
	s *segment
	m int64
}

// add appends segment s, which starts at the chain's end (now is the
// engine's clock, where the chain starts) with operator pc.
func (c *chain) add(s *segment, now Time, pc int) {
	k := len(c.runs) - 1
	for ; k >= 0 && c.runs[k].s != s; k-- {
	}
	if k >= 0 {
		c.runs[k].m++
	} else {
		c.runs = append(c.runs, segRuns{s, 1})
	}
	c.t0, c.pc0 = now+c.d, pc
	c.d += s.d
	c.last = s
	c.n++
	c.seq = append(c.seq, s)
}

// flushChain advances the engine over the chain of replays: the clock and
// the statistics, and (unless the last segment ends the pass) the last
// segment's end state installed.
func (j *jumper) flushChain() {
	c := &j.segs.chain
	if c.n == 0 {
		return
	}
	e := j.e
	if c.last.end != nil {
		if e.advanceOK(e.now, c.d) {
			e.now += c.d
			for _, r := range c.runs {
				e.addStats(r.s.delta, r.m)
			}
			e.install(c.last.end, c.t0-c.last.from, c.pc0-c.last.fromOps)
		}
	} else {
		c.delta = append(c.delta[:0], c.runs[0].s.delta...)
		for i := range c.delta {
			c.delta[i] *= c.runs[0].m
		}
		for _, r := range c.runs[1:] {
			for i, v := range r.s.delta {
				c.delta[i] += r.m * v
			}
		}
		e.advanceBy(advance{dt: c.d, counters: statKinds, m: 1, to: c.delta})
	}
	clear(c.runs)
	clear(c.seq)
	c.n, c.d, c.last, c.runs, c.seq, c.marks = 0, 0, nil, c.runs[:0], c.seq[:0], c.marks[:0]
}

// storeSegment ends the recording with the state it ends in (nil: the end
// of the pass).
func (j *jumper) storeSegment(end *dynState) *segment {
	sm := j.segs
	r := sm.rec
	sm.rec = nil
	after := j.e.globalCounters(make([]int64, 0, len(r.before)))
	for i := range after {
		after[i] -= r.before[i]
	}
	memo := sm.byKey
	if r.target == r.pc+1 {
		memo = sm.kernels
	}
	if len(memo) >= maxSegments {
		clear(memo)
	}
	s := &segment{d: j.e.now - r.t, delta: after, end: end}
	memo[r.key] = s
	if len(r.subs) > 0 && len(sm.subs)+len(r.subs) > maxSegments {
		clear(sm.subs)
	}
	for _, st := range r.subs {
		sub := &segment{d: j.e.now - st.t, delta: st.before, end: end, from: st.t - r.t, fromOps: st.pc - r.pc}
		for i, v := range after { // from the counters at the boundary to those now
			sub.delta[i] = v + r.before[i] - st.before[i]
		}
		sm.subs[st.key] = sub
	}
	return s
}

// storeThrough ends the recording r at the current operator boundary,
// whose rest of the segment, s, is about to be replayed: the segment and
// the rests noted within it are stored as ending where s ends.
func (j *jumper) storeThrough(r *segRec, s *segment) {
	sm, e := j.segs, j.e
	sm.rec = nil
	now := j.k.cnt // the counters here (subSegment keyed the state)
	put := func(memo map[string]*segment, key string, t Time, pc int, before []int64) {
		x := &segment{d: e.now - t + s.d, delta: make([]int64, len(now)), end: s.end, endKey: s.endKey,
			from: s.from - (e.now - t), fromOps: s.fromOps - (e.pc - pc)}
		for i := range now {
			x.delta[i] = now[i] - before[i] + s.delta[i]
		}
		memo[key] = x
	}
	if len(sm.byKey) >= maxSegments {
		clear(sm.byKey)
	}
	put(sm.byKey, r.key, r.t, r.pc, r.before)
	if len(r.subs) > 0 && len(sm.subs)+len(r.subs) > maxSegments {
		clear(sm.subs)
	}
	for _, st := range r.subs {
		put(sm.subs, st.key, st.t, st.pc, st.before)
	}
}

// subSegment is called at an operator boundary within the non-kernel
// segment being recorded (r): it returns the rest of that segment if it
// ran before from the same state (the key of the segment's operators, the
// boundary's place in them and the state here), else notes the boundary
// for the rest to be stored when the segment ends, and returns nil.
func (j *jumper) subSegment(r *segRec) *segment {
	e, sm := j.e, j.segs
	j.k.key(e, true)
	b := binary.AppendVarint(sm.buf[:0], -4)
	b = binary.AppendVarint(b, int64(e.pc-r.pc))
	b = append(b, r.key[:r.sig]...)
	b = append(b, j.k.b...)
	sm.buf = b
	if s, ok := sm.subs[string(b)]; ok {
		return s
	}
	r.subs = append(r.subs, subStart{key: string(b), t: e.now, pc: e.pc, before: slices.Clone(j.k.cnt)})
	return nil
}
