package sim

import (
	"github.com/dashlab/dashlab/dash/unit"
)

// shares are the per-stack rates used to split a read over the routes that
// can carry it, so that all parts finish together when uncontended.
type shares struct{ hbm, direct, relay float64 }

// weightSplit divides an operator's weights between HBM, Direct and Relay
// (totals over the stacks, which each hold an even part); fromHBM reads
// replicated weights from HBM alone (a stack is programming, §V-B).
func (c *config) weightSplit(spec *opSpec, fromHBM bool) (hbm, direct, relay unit.Bytes) {
	if spec.weights == 0 {
		return 0, 0, 0
	}
	if fromHBM && spec.replicated {
		return spec.weights, 0, 0
	}
	s := c.readShares(spec.replicated, true)
	if spec.replicated && !c.parallel {
		s.direct, s.relay = 0, 0
	}
	if !spec.replicated {
		return splitBytes(spec.weights, s)
	}
	n := unit.Bytes(c.nHBM)
	if c.hbmOnly((spec.weights+n-1)/n, s) {
		return spec.weights, 0, 0
	}
	return splitBytes(spec.weights, s)
}

// readShares returns the split rates for data with an HBM copy (withHBM)
// and/or HBF copy. HBM reads are limited by the DRAM array and the GPU-HBM
// link; Direct by the GPU-HBF link and the NAND array; Relay by the
// HBF-HBM link and by what the GPU-HBM link has left beside HBM reads.
func (c *config) readShares(withHBM, withHBF bool) shares {
	var s shares
	gh, gf, fh := float64(c.gh), float64(c.gfRead), float64(c.fhRead)
	if withHBM {
		s.hbm = min(float64(c.hbmRate), gh)
	}
	if !withHBF {
		return s
	}
	ar := float64(c.arrayRead)
	if c.direct {
		s.direct = min(gf, ar)
	}
	if c.relay {
		s.relay = max(0, min(fh, gh-s.hbm, ar-s.direct))
	}
	if s.direct == 0 && s.relay == 0 && !withHBM { // only a saturated relay: still use it
		s.relay = min(fh, gh, ar)
	}
	return s
}

// kvSplit divides an operator's HBF-resident KV cache (totals over the
// stacks) between Direct and Relay. With both routes it is the makespan
// split of the bytes actually read (see balancedRelay), on the transfer
// chunk grid of all stacks; with one route, all of it over that route.
func (c *config) kvSplit(spec *opSpec) (direct, relay unit.Bytes) {
	if spec.kvHBF == 0 {
		return 0, 0
	}
	switch {
	case c.direct && c.relay:
		relay = balancedRelay(spec.kvHBM, spec.kvHBF, c.seg*unit.Bytes(c.pairs))
		return spec.kvHBF - relay, relay
	case c.direct:
		return spec.kvHBF, 0
	}
	// One route carries it all, however little of the GPU-HBM link the HBM
	// KV leaves it (a static rate share of zero, an HBM array at or above
	// the link rate, once dropped the HBF KV unread).
	return 0, spec.kvHBF
}

// balancedRelay returns the part R of f bytes of HBF KV read over Relay
// (the rest, f-R, over Direct) when h bytes of HBM KV are read beside them,
// all evenly over the stacks, so that the operator's reads finish first.
//
// Per stack, with link rate L (every link direction has the same rate), the
// reads end no earlier than the latest of: the GPU-HBM link, which carries
// the HBM KV and the relayed KV, (h+R)/L, and the HBM read alone, h/B_HBM;
// the GPU-HBF link, (f-R)/L; the HBF-HBM link, R/L (never the latest, as
// R <= h+R); and the NAND array, which senses all f bytes for both routes,
// f/A. Only the first and the GPU-HBF terms depend on R, one increasing and
// one decreasing, so the maximum is smallest where they meet,
//
//	(h+R)/L = (f-R)/L  =>  R = (f-h)/2,
//
// clamped to [0, f]: no relay when the HBM KV alone fills the GPU-HBM link
// as long as Direct takes for all of f (h >= f). L, B_HBM and A drop out, so
// the split is the same under either reading of t_R. The static rate split
// it replaces assumed the HBM read lasts the whole operator (Relay at
// L - B_HBM); the HBM KV is a small part of a long context's read and ends
// early, leaving the GPU-HBM link idle while Direct still streams.
//
// A Relay part of at least grain bytes (one transfer chunk per stack) is
// rounded to a multiple of it, which moves the end by at most half a
// chunk's transfer time and keeps the split of successive decode steps,
// whose HBM KV grows by one token, the same between chunk boundaries (the
// replayed segments and forked kernels key on it: the exact 1/4K/1M decode
// keeps its run time). A smaller part is kept to the byte, as rounding it
// would move all of it to one route (Qwen3-235B at 1/4K/128, whose prompt
// KV is one chunk a stack: E2E 0.7% longer either way). The Direct part
// f-R conserves the bytes exactly.
func balancedRelay(h, f, grain unit.Bytes) unit.Bytes {
	if f <= h || f <= 0 {
		return 0
	}
	r := (f - h) / 2
	if grain > 1 && r >= grain {
		r = (r + grain/2) / grain * grain
	}
	return min(r, f)
}

// hbmOnly reports whether b bytes of replicated data (one stack's part)
// are read from HBM alone: when HBM delivers them within the HBF start-up
// latency (t_R and the first chunk's fill), an HBF share would only add a
// t_R. Norms and router weights are read so; larger tensors are split in
// proportion to the route rates, which is when the prefetch that senses
// them ahead hides the start-up.
func (c *config) hbmOnly(b unit.Bytes, s shares) bool {
	return s.hbm > 0 && float64(b) <= s.hbm*c.startup.Seconds()
}

func (c *config) xferTime(b unit.Bytes, r unit.BytesPerSecond) Time { return unit.TransferTime(b, r) }

// splitBytes divides b over the shares, exactly.
func splitBytes(b unit.Bytes, s shares) (hbm, direct, relay unit.Bytes) {
	total := s.hbm + s.direct + s.relay
	if total == 0 || b == 0 {
		return 0, 0, 0
	}
	hbm = unit.Bytes(float64(b) * s.hbm / total)
	direct = unit.Bytes(float64(b) * s.direct / total)
	relay = b - hbm - direct
	if s.relay == 0 { // put rounding leftovers where data may go
		if s.direct > 0 {
			direct += relay
		} else {
			hbm += relay
		}
		relay = 0
	}
	return
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
	c := &e.cfg
	if c.nHBF == 0 {
		return // nothing lives in HBF
	}
	op.fromHBM = c.hbmDuringProg && spec.replicated && c.nHBM > 0 && e.programming()
	_, wd, wr := c.weightSplit(spec, op.fromHBM)
	kd, kr := c.kvSplit(spec)
	sd, sr := e.cfg.assignExperts(spec.sharedN, spec.sharedBytes, 0, 0)
	e.issueHBFReads(i, wd+kd+sd, wr+kr+sr, false)
}

// programming reports whether a read of an HBF stack would now wait for a
// program: one holds every plane of a stack (any program under
// program_scope stack, a full page wave under planes), is pending, or has
// its data on the way (§V-B then reads replicated weights from HBM).
func (e *engine) programming() bool {
	wp := e.cfg.wavePages
	for i := range e.hbf {
		s := &e.hbf[i]
		if s.programActive && s.progPages >= wp {
			return true
		}
		for k := range s.progPending {
			if e.programPages(&s.progPending[k]) >= wp {
				return true
			}
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

// issueHBFReads issues operator i's HBF reads of direct and relay bytes
// (totals over the stacks), every stack's part of each over that stack's
// routes of the kind, as runs of one read group per stack.
func (e *engine) issueHBFReads(i int, direct, relay unit.Bytes, early bool) {
	rt := &e.cfg.rt
	n := rt.nHBF
	for stack := range n {
		var runs []readRun
		routes := rt.hbfRead[stack]
		nRelay := 0
		for _, r := range routes {
			if rt.routes[r].kind == RouteRelay {
				nRelay++
			}
		}
		k := 0
		for _, r := range routes {
			var b unit.Bytes
			if rt.routes[r].kind == RouteRelay {
				b = perStack(perStack(relay, n, stack), nRelay, k)
				k++
			} else {
				b = perStack(direct, n, stack)
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
// addresses come from the previous step.
func (e *engine) issueAtStart(op int) {
	spec := &e.pass.ops[op]
	c := &e.cfg
	wh, _, _ := c.weightSplit(spec, e.ops[op].fromHBM)
	rt := &c.rt
	h := rt.nHBM / rt.pairs
	fromHBM := wh + spec.kvHBM + spec.cachedBytes()
	if rt.nHBF == 0 { // no HBF: the experts and the gathered rows are in HBM
		fromHBM += spec.gather + unit.Bytes(spec.sharedN)*spec.sharedBytes + unit.Bytes(spec.routedN)*spec.expertSize
	}
	for pair := range rt.pairs {
		for k := range h {
			i := pair*h + k
			if b := perStack(fromHBM, rt.nHBM, i); b > 0 {
				e.issueChunk(e.newStream(rt.hbmRead[i], op, b))
			}
		}
		if pair < rt.nHBF {
			stack := pair
			// Gathered rows and written KV take the stack's first route (the
			// one with the fewest hops).
			if b := perStack(spec.gather, rt.nHBF, stack); b > 0 {
				id := e.newStream(rt.hbfRead[stack][0], op, b)
				e.enqueueReads(stack, op, []readRun{e.runFor(id, b)})
			}
			// Asynchronous KV writes: prefill KV to HBF, decode KV to HBM.
			if b := perStack(spec.kvWriteHBF, rt.nHBF, stack); b > 0 {
				e.issueChunk(e.newStream(rt.hbfWrite[stack][0], -1, b))
			}
		}
		for k := range h {
			i := pair*h + k
			if b := perStack(spec.kvWriteHBM+spec.cacheFill, rt.nHBM, i); b > 0 {
				e.issueChunk(e.newStream(rt.hbmWrite[i], -1, b))
			}
			// Writeback: over the pair-local HBM-HBF path, or the route
			// the table gives without it.
			if b := perStack(spec.kvWriteback, rt.nHBM, i); b > 0 {
				e.issueChunk(e.newStream(rt.writeback[i], -1, b))
			}
		}
	}
}

// issueRouted issues the selected experts of MoE operator i, assigning
// whole experts to the Direct or Relay route set so that the two finish
// together (max(T_direct, T_relay) minimal), after the shared experts.
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
	d, r := e.cfg.routedSplit(spec)
	e.issueHBFReads(i, d, r, e.cfg.earlyBuf > 0)
	e.holdArray = false
	for stack := range e.cfg.nHBF {
		e.kickArray(stack)
	}
}

// routedSplit is the Direct and Relay bytes of MoE operator spec's
// selected experts read from HBF: those the expert cache does not hold,
// assigned whole after the shared experts, with the cached ones read from
// HBM counted against the Relay set (they cross the GPU-HBM links it
// drains over).
func (c *config) routedSplit(spec *opSpec) (direct, relay unit.Bytes) {
	sd, sr := c.assignExperts(spec.sharedN, spec.sharedBytes, 0, 0)
	if cached := spec.cachedBytes(); cached > 0 && c.dualPath && c.nHBM > 0 {
		rr := float64(min(c.fh, c.gh)) * float64(c.nHBF)
		sr += unit.Bytes(float64(cached) / (float64(c.gh) * float64(c.nHBM)) * rr)
	}
	return c.assignExperts(spec.routedN-spec.cachedN, spec.expertSize, sd, sr)
}

// assignExperts assigns count experts of size bytes each, whole, to the
// Direct and Relay route sets, given bytes already committed to each, so
// that the later-finishing set finishes as early as possible (longest
// processing time first; with equal sizes, each goes to the set that would
// finish first). It returns the bytes added to each set.
func (c *config) assignExperts(count int, size, committedD, committedR unit.Bytes) (direct, relay unit.Bytes) {
	if count == 0 || size == 0 {
		return 0, 0
	}
	if !c.dualPath {
		if c.direct {
			return unit.Bytes(count) * size, 0
		}
		return 0, unit.Bytes(count) * size
	}
	// Each route set streams at its links' rate per stack; the relay set is
	// not slowed by HBM reads during the MoE block.
	rd, rr := float64(c.gfRead), float64(min(c.fhRead, c.gh))
	td, tr := float64(committedD)/rd, float64(committedR)/rr
	for range count {
		if (td + float64(size)/rd) <= (tr + float64(size)/rr) {
			direct += size
			td += float64(size) / rd
		} else {
			relay += size
			tr += float64(size) / rr
		}
	}
	return
}

// onOpEnd finishes operator i and starts the next.
func (e *engine) onOpEnd(i int) {
	spec := &e.pass.ops[i]
	op := &e.ops[i]
	e.changed()
	e.checkConserved(i)
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
