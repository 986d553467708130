package sim

import (
	"encoding/binary"
	"math"

	"github.com/dashlab/dashlab/dash/unit"
)

// The reads of an operator, route by route (see split.go for the rule).
// In each stack pair, the weights and the HBF-resident KV are divided over
// the routes that can carry them: replicated weights over the pair's HBM
// read routes and its HBF stack's, weights that live in HBF only and the
// HBF KV over the HBF stack's routes, the KV with the pair's HBM KV already
// on the GPU-HBM links. Experts are assigned whole to a route set (one
// route of every HBF stack, §VI-E).

// readParts returns the bytes of operator spec's weights and HBF KV that
// each route carries (indexed by route). The parts are a function of the
// operator's sizes alone and are kept in a small cache (an operator asks
// at its prefetch, at its start and for the keys of the shortcuts); the
// slice is valid until the next call. fromHBM reads replicated weights
// from HBM alone (a stack is programming, §V-B).
func (e *engine) readParts(spec *opSpec, fromHBM bool, wait Time) []unit.Bytes {
	key := partsKey{spec.weights, spec.kvHBM, spec.kvHBF, wait, spec.replicated, fromHBM}
	c := &e.partsCache
	slot := key.slot()
	if c.full[slot] && c.keys[slot] == key {
		return c.vals[slot]
	}
	rt := &e.cfg.rt
	parts := c.vals[slot]
	if parts == nil {
		parts = make([]unit.Bytes, len(rt.routes))
		c.vals[slot] = parts
	}
	clear(parts)
	c.keys[slot], c.full[slot] = key, false
	if spec.weights > 0 {
		for c := range rt.pairs {
			e.weightPart(spec, c, fromHBM, wait, parts)
		}
	}
	if spec.kvHBF > 0 {
		for c := range rt.pairs {
			e.kvPart(spec, c, parts)
		}
	}
	c.full[slot] = true
	return parts
}

// partsKey is what an operator's read parts depend on.
type partsKey struct {
	weights, kvHBM, kvHBF unit.Bytes
	wait                  Time
	replicated, fromHBM   bool
}

// partsCache keeps the read parts of recent operator sizes, one a slot.
type partsCache struct {
	keys [partsSlots]partsKey
	full [partsSlots]bool
	vals [partsSlots][]unit.Bytes
}

const partsSlots = 64

func (k partsKey) slot() int {
	h := uint64(k.weights)*0x9e3779b97f4a7c15 ^ uint64(k.kvHBM)*0xc2b2ae3d27d4eb4f ^ uint64(k.kvHBF)*0x165667b19e3779f9 ^
		uint64(k.wait)*0xd6e8feb86659fd93
	if k.replicated {
		h ^= 0x27d4eb2f165667c5
	}
	if k.fromHBM {
		h ^= 0x85ebca77c2b2ae63
	}
	return int(h>>58) & (partsSlots - 1)
}

// pairRoutes lists pair c's HBM read routes then, when withHBF, its HBF
// stack's read routes, in e.rs.
func (e *engine) pairRoutes(c int, withHBM, withHBF bool) []int32 {
	rt := &e.cfg.rt
	rs := e.rs[:0]
	if withHBM {
		for _, i := range rt.cellHBM[c] {
			if r := rt.hbmRead[i]; r >= 0 {
				rs = append(rs, r)
			}
		}
	}
	if f := rt.cellHBF[c]; withHBF && f >= 0 {
		rs = append(rs, rt.hbfRead[f]...)
	}
	e.rs = rs
	return rs
}

// weightPart adds pair c's part of the operator's weights, split over the
// routes that can carry them, to parts. Replicated weights are read from
// HBM alone when parallel reads are off, while a stack programs (fromHBM:
// execution.hbm_while_programming, §V-B), or when HBM delivers a stack's
// part within the HBF start-up latency (see hbmOnly). Otherwise the split
// counts wait, the time the HBF reads would wait for the programs ahead of
// them (programWait), as work already on the stack's TSV, which every HBF
// read crosses: the HBF routes then carry only what they can deliver after
// it.
func (e *engine) weightPart(spec *opSpec, c int, fromHBM bool, wait Time, parts []unit.Bytes) {
	rt := &e.cfg.rt
	b := perStack(spec.weights, rt.pairs, c)
	withHBF := e.weightsWithHBF(spec, c, fromHBM)
	rs := e.pairRoutes(c, spec.replicated, withHBF)
	out := e.out[:len(rs)]
	var committed []load
	if f := rt.cellHBF[c]; wait > 0 && spec.replicated && withHBF && f >= 0 {
		e.loads = append(e.loads[:0], load{res: rt.tsvRes[f], secs: wait.Seconds()})
		committed = e.loads
	}
	e.split.divide(b, rs, committed, 1, out)
	for k, r := range rs {
		parts[r] += out[k]
	}
}

// weightsWithHBF reports whether pair c's part of the operator's weights
// is read from HBF as well as HBM (see weightPart): always for weights that
// live in HBF only; for replicated weights when parallel reads are on, no
// stack's program sends them to HBM alone (fromHBM) and the part is too
// large for HBM to deliver within the HBF start-up (hbmOnly).
func (e *engine) weightsWithHBF(spec *opSpec, c int, fromHBM bool) bool {
	if !spec.replicated {
		return true
	}
	if !e.cfg.parallel || fromHBM {
		return false
	}
	rt := &e.cfg.rt
	n := unit.Bytes(len(rt.cellHBM[c]))
	return !e.hbmOnly((perStack(spec.weights, rt.pairs, c)+n-1)/n, c)
}

// kvPart adds pair c's part of the operator's HBF KV, split over its HBF
// stack's routes with the pair's HBM reads (the HBM KV, and HBM's part of
// the weights) already on the HBM routes' resources, to parts.
func (e *engine) kvPart(spec *opSpec, c int, parts []unit.Bytes) {
	rt := &e.cfg.rt
	f := rt.cellHBF[c]
	if f < 0 {
		return
	}
	e.loads = e.loads[:0]
	for _, i := range rt.cellHBM[c] {
		r := rt.hbmRead[i]
		if r < 0 {
			continue
		}
		h := float64(perStack(spec.kvHBM, rt.nHBM, int(i)) + parts[r])
		for q, j := range rt.routes[r].uses {
			e.loads = append(e.loads, load{res: j, secs: h * rt.routes[r].cost[q]})
		}
	}
	rs := rt.hbfRead[f]
	out := e.out[:len(rs)]
	e.split.divide(perStack(spec.kvHBF, rt.nHBF, int(f)), rs, e.loads, e.cfg.seg, out)
	for k, r := range rs {
		parts[r] += out[k]
	}
}

// appendKVSplit appends the split of operator spec's HBF KV over the routes
// to dst: the replayed segments and forked kernels key on it, since the HBM
// KV moves it.
func (e *engine) appendKVSplit(dst []byte, spec *opSpec) []byte {
	if spec.kvHBF == 0 {
		return dst
	}
	for _, b := range e.readParts(spec, false, 0) {
		dst = binary.AppendVarint(dst, int64(b))
	}
	return dst
}

// hbmOnly reports whether b bytes of replicated data (one HBM stack's part
// in pair c) are read from HBM alone: when HBM delivers them within the HBF
// start-up latency (t_R, the first chunk's fill over the TSV, its ECC
// decode and its first link hop), an HBF share would only add a t_R. Norms and router weights
// are read so; larger tensors are split by the rule, which is when the
// prefetch that senses them ahead hides the start-up. The first chunk is
// at most the data itself: an HBF share of b bytes never fills a transfer
// chunk larger than b (with 32 MiB relay regions, a 2.6 MB projection was
// costed a 32 MiB chunk's fill and read from HBM alone once HBM got faster:
// what-if 49905, E2E +38.8%).
func (e *engine) hbmOnly(b unit.Bytes, c int) bool {
	rt := &e.cfg.rt
	f := rt.cellHBF[c]
	if f < 0 || len(rt.hbfRead[f]) == 0 || len(rt.cellHBM[c]) == 0 || rt.hbmRead[rt.cellHBM[c][0]] < 0 {
		return true
	}
	hbm := e.routeRate(rt.hbmRead[rt.cellHBM[c][0]])
	// The start-up of the stack's quickest route (its first link hop the
	// fastest): a slow route beside it does not delay the others.
	chunk := min(e.cfg.seg, b)
	first := math.Inf(1)
	for _, r := range rt.hbfRead[f] {
		first = min(first, unit.TransferTime(chunk, rt.routes[r].hops[0].rate).Seconds())
	}
	latency := (e.cfg.tR + unit.TransferTime(chunk, e.cfg.tsv) + e.cfg.tECC).Seconds() + first
	return hbm > 0 && float64(b) <= hbm*latency
}

// routeRate is the rate of route r alone: what its most loaded resource
// lets through (cap / cost).
func (e *engine) routeRate(r int32) float64 {
	rt := &e.cfg.rt
	v := math.Inf(1)
	for q, j := range rt.routes[r].uses {
		v = min(v, rt.cap[j]/rt.routes[r].cost[q])
	}
	return v
}

// perStack divides b evenly over n stacks (the first stacks take the
// remainder).
func perStack(b unit.Bytes, n, i int) unit.Bytes {
	q := b / unit.Bytes(n)
	if unit.Bytes(i) < b%unit.Bytes(n) {
		q++
	}
	return q
}

// startOp starts GPU operator i of the pass.
func (e *engine) startOp(i int) {
	spec := &e.pass.ops[i]
	op := &e.ops[i]
	e.changed()
	op.started = true
	op.start = e.now
	op.computeDone = e.now + spec.compute
	if !e.advanceOK(e.now, spec.compute+spec.overhead) {
		return // the run ends with a TimeRangeError
	}
	e.issuePredictable(i)
	if spec.routedN > 0 && !op.routedDone { // no routing operator ran: issue now
		e.issueRouted(i)
	}
	e.issueAtStart(i)
	// Data of this operator staged in SRAM may now flow to the GPU.
	for _, k := range op.streams {
		st := &e.streams[k]
		if st.started {
			continue
		}
		st.started = true
		for _, sg := range st.staged {
			e.resumeStaged(sg)
		}
		st.staged = nil
	}
	// Prefetch: the predictable HBF data of the next operator that reads
	// HBF start sensing behind this one's (double buffering in the HBF base
	// die). The lookahead stops there: data further ahead would sit in SRAM
	// while the data needed sooner (selected experts, say) wait for space.
	for j := i + 1; j < len(e.pass.ops); j++ {
		if next := &e.pass.ops[j]; next.readsHBF() {
			e.issuePredictable(j)
			break
		}
	}
	e.traceOp(i, "start")
	if op.pending == 0 {
		e.finishOp(i)
	}
}

// issuePredictable issues operator i's HBF reads whose addresses are known
// in advance: its share of replicated weights, HBF-only weights, the
// HBF-resident KV cache and the shared experts.
func (e *engine) issuePredictable(i int) {
	op := &e.ops[i]
	if op.prefetched {
		return
	}
	op.prefetched = true
	e.maxOp = max(e.maxOp, i)
	spec := &e.pass.ops[i]
	if e.cfg.nHBF == 0 {
		return // nothing lives in HBF
	}
	op.fromHBM = e.cfg.hbmDuringProg && spec.replicated && e.cfg.nHBM > 0 && e.programming()
	op.progWait = 0
	if spec.replicated && spec.weights > 0 && e.cfg.nHBM > 0 {
		// Only a split with HBF counts the wait (weightPart): norms and
		// routers read from HBM alone record none, and keep the state the
		// shortcuts key on the same from layer to layer.
		for c := range e.cfg.rt.pairs {
			if e.weightsWithHBF(spec, c, op.fromHBM) {
				op.progWait = e.programWait(i)
				break
			}
		}
	}
	parts := e.readParts(spec, op.fromHBM, op.progWait)
	sets := e.assignExperts(spec.sharedN, spec.sharedBytes, nil, 0, e.sharedSets)
	e.issueHBFReads(i, parts, sets, false)
}

// programWait is how long operator i's HBF reads, issued now, would wait
// for programs past the operator's earliest start: the array starts a
// pending program before waiting reads (kickArray), so reads of a stack
// wait for the program running, the waves pending, the waves its in-flight
// writes will fill and those of the KV writes the operators before i will
// issue when they start (t_PROG each). The operators run no faster than
// their compute and their reads: the running one ends no sooner than its
// computeDone and its streams' bytes left at their routes' own rates, and
// each one after it starts at least its compute later. Only programs that hold every plane
// count (under program_scope planes, reads of the other planes proceed),
// and none with program suspend (a read suspends a program within t_SUS).
// The most over the stacks.
func (e *engine) programWait(i int) Time {
	if e.cfg.suspend || e.cfg.nHBF == 0 {
		return 0
	}
	wp := e.cfg.wavePages
	waveBytes := unit.Bytes(wp) * e.cfg.page
	waves := func(b unit.Bytes) Time {
		if e.cfg.progPlanes {
			return Time(b / waveBytes) // partial waves hold only their planes
		}
		return Time((b + waveBytes - 1) / waveBytes)
	}
	// What each stack has committed: the end of its programs from now.
	var scratch [16]Time
	end := scratch[:0]
	if len(e.hbf) > len(scratch) {
		end = make([]Time, 0, len(e.hbf))
	}
	busy := false
	for k := range e.hbf {
		t, _ := e.programsEnd(k)
		busy = busy || t > e.now
		end = append(end, t)
	}
	for _, id := range e.active {
		if e.writesPending == 0 {
			break // no write in flight
		}
		st := &e.streams[id]
		if st.consumer >= 0 {
			continue
		}
		hops := e.routeOf(id).hops
		if k := hops[len(hops)-1].program; k >= 0 {
			if n := waves(st.total - st.arrived + st.progBuf.bytes); n > 0 {
				end[k] += n * e.cfg.tProg
				busy = true
			}
		}
	}
	for j := e.pc + 1; j < i && !busy; j++ {
		busy = e.pass.ops[j].kvWriteHBF > 0 || e.pass.ops[j].kvWriteback > 0
	}
	if !busy {
		return 0
	}
	// The earliest start of each operator from the running one's end to i:
	// the running one ends no sooner than its compute and than each of its
	// streams delivers what it has left at its route's own rate.
	first := e.now
	if i > e.pc && e.pc < len(e.ops) && e.ops[e.pc].started {
		op := &e.ops[e.pc]
		first = max(first, op.computeDone)
		for _, id := range op.streams {
			if st := &e.streams[id]; !st.finished && st.done < st.total {
				first = max(first, e.now+Time(math.Ceil(float64(st.total-st.done)/e.routeRate(st.route)*1e9)))
			}
		}
	}
	var wait Time
	rt := &e.cfg.rt
	for c := range rt.pairs {
		k := rt.cellHBF[c]
		if k < 0 {
			continue
		}
		t, start := end[k], first
		for j := e.pc + 1; j < i; j++ {
			// As issueAtStart issues them: the prefill KV by HBF stack, the
			// writeback from each of the pair's HBM stacks.
			sp := &e.pass.ops[j]
			n := waves(perStack(sp.kvWriteHBF, rt.nHBF, int(k)))
			for _, h := range rt.cellHBM[c] {
				n += waves(perStack(sp.kvWriteback, rt.nHBM, int(h)))
			}
			if n > 0 {
				t = max(t, start) + n*e.cfg.tProg
			}
			start += sp.compute + sp.overhead
		}
		wait = max(wait, t-start)
	}
	return max(0, wait)
}

// programsEnd is when stack k's programs that hold every plane (any
// program under program_scope stack, a full page wave under planes) will
// have ended, the one running (the rest of its t_PROG, or, suspended, what
// is left plus t_RES) then the waves pending (t_PROG each), and whether
// there is any.
func (e *engine) programsEnd(k int) (end Time, any bool) {
	s := &e.hbf[k]
	wp := e.cfg.wavePages
	end = e.now
	if s.programActive && s.progPages >= wp {
		any = true
		if s.suspended || s.suspending {
			end += s.progLeft + e.cfg.tRes
		} else {
			end = max(end, s.progUntil)
		}
	}
	for q := range s.progPending {
		if e.programPages(&s.progPending[q]) >= wp {
			any = true
			end += e.cfg.tProg
		}
	}
	return end, any
}

// programming reports whether a read of an HBF stack would now wait for a
// program: one holds every plane of a stack (any program under
// program_scope stack, a full page wave under planes), is pending, or has
// its data on the way (§V-B then reads replicated weights from HBM).
func (e *engine) programming() bool {
	wp := e.cfg.wavePages
	for i := range e.hbf {
		if _, any := e.programsEnd(i); any {
			return true
		}
	}
	for _, id := range e.active {
		st := &e.streams[id]
		hops := e.routeOf(id).hops
		if st.consumer < 0 && hops[len(hops)-1].program >= 0 && (!e.cfg.progPlanes || e.cfg.segPages(st.total) >= wp) {
			return true
		}
	}
	return false
}

// issueHBFReads issues operator i's HBF reads: on every HBF stack, each
// read route carries its part (parts, by route; nil: none) and its stack's
// share of its route set's experts (sets, by route set), as runs of one
// read group per stack.
func (e *engine) issueHBFReads(i int, parts, sets []unit.Bytes, early bool) {
	rt := &e.cfg.rt
	n := rt.nHBF
	for stack := range n {
		var runs []readRun
		for k, r := range rt.hbfRead[stack] {
			var b unit.Bytes
			if parts != nil {
				b = parts[r]
			}
			if k < len(sets) {
				b += perStack(sets[k], n, stack)
			}
			if b == 0 {
				continue
			}
			id := e.newStream(r, i, b)
			e.streams[id].early = early
			runs = append(runs, e.runFor(id, b))
		}
		e.enqueueReads(stack, i, runs)
	}
}

// issueAtStart issues operator i's reads that cannot start before it: HBM
// reads (the GPU cannot hold data ahead of the operator) and gathers whose
// addresses come from the previous step, and its KV writes.
func (e *engine) issueAtStart(op int) {
	spec := &e.pass.ops[op]
	rt := &e.cfg.rt
	parts := e.readParts(spec, e.ops[op].fromHBM, e.ops[op].progWait)
	extra := spec.cachedBytes() // selected experts the HBM expert cache holds
	if rt.nHBF == 0 {           // no HBF: the experts and the gathered rows are in HBM
		extra += spec.gather + unit.Bytes(spec.sharedN)*spec.sharedBytes + unit.Bytes(spec.routedN)*spec.expertSize
	}
	for pair := range rt.pairs {
		for _, i := range rt.cellHBM[pair] {
			r := rt.hbmRead[i]
			if b := parts[r] + perStack(spec.kvHBM+extra, rt.nHBM, int(i)); b > 0 {
				e.issueChunk(e.newStream(r, op, b))
			}
		}
		if stack := rt.cellHBF[pair]; stack >= 0 {
			// Gathered rows and written KV take the stack's fastest route
			// (the one with the fewest hops when the links are alike).
			if b := perStack(spec.gather, rt.nHBF, int(stack)); b > 0 {
				id := e.newStream(rt.gather[stack], op, b)
				e.enqueueReads(int(stack), op, []readRun{e.runFor(id, b)})
			}
			// Asynchronous KV writes: prefill KV to HBF, decode KV to HBM.
			if b := perStack(spec.kvWriteHBF, rt.nHBF, int(stack)); b > 0 {
				e.issueChunk(e.newStream(rt.write[stack], -1, b))
			}
		}
		for _, i := range rt.cellHBM[pair] {
			if b := perStack(spec.kvWriteHBM+spec.cacheFill, rt.nHBM, int(i)); b > 0 {
				e.issueChunk(e.newStream(rt.hbmWrite[i], -1, b))
			}
			// Writeback: the table's route from the HBM stack to its pair's
			// HBF stack.
			if b := perStack(spec.kvWriteback, rt.nHBM, int(i)); b > 0 {
				e.issueChunk(e.newStream(rt.writeback[i], -1, b))
			}
		}
	}
}

// issueRouted issues the selected experts of MoE operator i, assigning
// whole experts to the route sets so that they finish together, after the
// shared experts.
func (e *engine) issueRouted(i int) {
	op := &e.ops[i]
	if op.routedDone {
		return
	}
	op.routedDone = true
	if e.cfg.nHBF == 0 {
		return // the experts are read from HBM when the operator starts
	}
	// The shared experts, if not sensed ahead yet, are queued with them:
	// the selected experts join their group, so that the array interleaves
	// the two route sets from the first wave and both drain at once.
	e.holdArray = true
	e.issuePredictable(i)
	e.maxOp = max(e.maxOp, i)
	spec := &e.pass.ops[i]
	e.issueHBFReads(i, nil, e.routedParts(spec), e.cfg.earlyBuf > 0)
	e.holdArray = false
	for stack := range e.cfg.nHBF {
		e.kickArray(stack)
	}
}

// routedParts is the bytes of MoE operator spec's selected experts read
// from HBF that each route set carries: those the HBM expert cache does not
// hold, assigned whole after the shared experts, with the cached ones
// (read from HBM when the operator starts) already on the HBM read routes'
// resources (they cross the GPU-HBM links the Relay set drains over).
func (e *engine) routedParts(spec *opSpec) []unit.Bytes {
	shared := e.assignExperts(spec.sharedN, spec.sharedBytes, nil, 0, e.sharedSets)
	return e.assignExperts(spec.routedN-spec.cachedN, spec.expertSize, shared, spec.cachedBytes(), e.routedSets)
}

// assignExperts assigns count experts of size bytes each, whole, to the
// route sets (set k: the k-th read route of every HBF stack; each expert is
// striped over the stacks, an even part on each), given bytes already
// committed to each (nil: none) and hbm bytes read from HBM beside them
// (evenly over the HBM stacks' read routes), one expert after another to the set that
// makes the reads finish first: the least makespan over the route table's
// resources (every link, the SRAM pools a chunk holds while it crosses,
// the arrays and TSVs, each busy for its bytes at its cost, as the split
// counts them; and no set ends before its own bytes, alone, are done on
// the busiest resource it loads, plus a chunk's lag: its chunks cross its
// servers one after the other, and a part of a chunk or less crosses them
// all in series, route.lag). On a tie (a resource every set loads alike
// binds, such as a stack's TSV) the next level of the leximin order
// decides: the set whose other resources would be done first, the latest
// of those below the makespan (seed 40309: eight TSVs of 53 GB/s bound
// every set, and the tie-break by each set's own time put one expert in
// seven on a Relay set of 16 GB/s links, so that links twice as fast made
// the run 11.5% longer); then the set that would finish its own part first
// (longest processing time first: with equal sizes, the least loaded
// set), then the first set.
// An expert opens a set (gives it its first bytes) only while fewer than
// c.maxSets carry bytes: a set streams from a stack only while its chunk
// holds a slot of the stack's transfer SRAM, so more sets than slots take
// turns on them, and the fluid costs above, which share a pool's slots
// perfectly, do not see the turns (seed 107269: a transfer SRAM of two 32
// MiB slots, two Relay sets of 72 GB/s links; GPU-HBF links of 17 -> 35
// GB/s drew one expert in eight onto the Direct set, and a decode layer
// took 19.2 -> 22.8 ms, the run 16.9% longer; 114262 and the three paths
// of 81596, 36427 and 38547 against a subset are the same class).
// Without dual-path delivery every expert takes the first set. It returns
// the bytes added to each set, in out.
func (e *engine) assignExperts(count int, size unit.Bytes, committed []unit.Bytes, hbm unit.Bytes, out []unit.Bytes) []unit.Bytes {
	c := &e.cfg
	rt := &c.rt
	n := len(c.setRate)
	clear(out)
	if count == 0 || size == 0 || n == 0 {
		return out
	}
	if !c.dualPath || n == 1 {
		out[0] = unit.Bytes(count) * size
		return out
	}
	key := expertKey{count: count, size: int64(size), hbm: int64(hbm)}
	for k := range min(n, len(key.committed)) {
		if committed != nil {
			key.committed[k] = int64(committed[k])
		}
	}
	if v, ok := e.expertMemo[key]; ok && n <= len(key.committed) {
		copy(out, v)
		return out
	}
	load := e.split.used // seconds of each resource, scratch (zero between uses)
	touched := e.rs[:0]
	sb := e.setBytes[:n] // what each set carries so far
	clear(sb)
	// add returns the makespan of set k's resources with b more bytes on it
	// and, for a tie, how many of them end at top and the latest time among
	// the others (the next levels of the leximin order).
	add := func(k int, b unit.Bytes, commit bool, top float64) (worst float64, atTop int, next float64) {
		tot := sb[k] + b
		for stack, rs := range rt.hbfRead {
			r := &rt.routes[rs[k]]
			part := float64(perStack(b, rt.nHBF, stack))
			own := float64(perStack(tot, rt.nHBF, stack))
			solo := 0.0 // the set's own bytes on the stack, alone on its resources
			for q, j := range r.uses {
				v := load[j] + part*r.cost[q]
				if commit {
					if load[j] == 0 {
						touched = append(touched, j)
					}
					load[j] = v
				}
				worst = max(worst, v/rt.cap[j])
				if v/rt.cap[j] < top*(1-1e-12) {
					next = max(next, v/rt.cap[j])
				} else {
					atTop++
				}
				solo = max(solo, own*r.cost[q]/rt.cap[j])
			}
			// Its chunks cross its servers one after the other: its last
			// byte arrives at least a chunk's lag (all of it for a part
			// of a chunk or less) after its busiest resource is done
			// with its bytes.
			if own > 0 {
				end := solo + min(own, float64(r.chunk))*r.lag
				worst = max(worst, end)
				if end < top*(1-1e-12) {
					next = max(next, end)
				} else {
					atTop++
				}
			}
		}
		if commit {
			sb[k] = tot
		}
		return worst, atTop, next
	}
	t := e.setTime[:n]
	span := 0.0 // the makespan so far
	if hbm > 0 {
		// load is zero here, so every resource the reads use is touched.
		touched = rt.loadHBMReads(hbm, load, touched)
		for _, j := range touched {
			span = max(span, load[j]/rt.cap[j])
		}
	}
	for k := range t {
		t[k] = 0
		if committed != nil && committed[k] > 0 {
			w, _, _ := add(k, committed[k], true, 0)
			span = max(span, w)
			t[k] = float64(committed[k]) / c.setRate[k]
		}
	}
	open := 0 // the sets carrying bytes: at most c.maxSets
	for _, b := range sb {
		if b > 0 {
			open++
		}
	}
	closed := func(k int) bool { return sb[k] == 0 && open >= c.maxSets }
	for range count {
		bestSpan := math.Inf(1)
		for k := range n {
			if closed(k) {
				continue
			}
			w, _, _ := add(k, size, false, 0)
			bestSpan = min(bestSpan, max(span, w))
		}
		// The sets that tie on the makespan (a resource they all load
		// binds) are told apart by the next levels: the fewest of their
		// resources at the makespan, then the latest of their others, so
		// that an expert goes where it adds least to what is left
		// (leximin, as water-filling is); then by the set that would
		// finish its own part first.
		best, bestAt, bestNext, bestOwn := -1, 0, 0.0, 0.0
		for k := range n {
			if closed(k) {
				continue
			}
			w, at, next := add(k, size, false, bestSpan)
			if max(span, w) > bestSpan*(1+1e-12) {
				continue
			}
			own := t[k] + float64(size)/c.setRate[k]
			better := best < 0 || at < bestAt || at == bestAt && (next < bestNext*(1-1e-12) ||
				next <= bestNext*(1+1e-12) && own < bestOwn)
			if better {
				best, bestAt, bestNext, bestOwn = k, at, next, own
			}
		}
		if sb[best] == 0 {
			open++
		}
		w, _, _ := add(best, size, true, 0)
		span = max(span, w)
		out[best] += size
		t[best] = bestOwn
	}
	for _, j := range touched {
		load[j] = 0
	}
	e.rs = touched[:0]
	if n <= len(key.committed) {
		if len(e.expertMemo) >= maxExpertMemo {
			clear(e.expertMemo)
		}
		e.expertMemo[key] = append([]unit.Bytes(nil), out...)
	}
	return out
}

// expertKey identifies an expert assignment: the experts, their size, the
// bytes committed to the route sets and those read from HBM beside them.
type expertKey struct {
	count     int
	size, hbm int64
	committed [4]int64
}

// onOpEnd finishes operator i and starts the next.
func (e *engine) onOpEnd(i int) {
	spec := &e.pass.ops[i]
	op := &e.ops[i]
	e.changed()
	e.checkConserved(i)
	if e.audit != nil {
		e.audit.opEnded(i, spec)
	}
	e.traceOp(i, "end")
	e.st.account(spec, op, e.now)
	e.releaseEarly(i)
	if spec.routing { // routing complete: the selected experts are known
		for j := i + 1; j < len(e.pass.ops); j++ {
			if e.pass.ops[j].routedN > 0 {
				e.issueRouted(j)
				break
			}
		}
	}
	e.pc = i + 1
	if e.cut.opEnded(i) { // a replayed segment ended the pass
		return
	}
	if e.pc < len(e.pass.ops) {
		e.startOp(e.pc)
		e.cut.opStarted(e.pc)
		return
	}
	if e.writesPending == 0 {
		e.passEnded = true
	}
}

// maxExpertMemo bounds the expert assignments kept.
const maxExpertMemo = 1 << 14
