package sim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// config is what the engine needs of an experiment's memory system.
type config struct {
	pairs      int
	nHBM, nHBF int
	seg        unit.Bytes // HBF transfer chunk: half a page wave, one relay region (see transferChunk)
	hbmChunk   unit.Bytes // HBM transfer chunk
	page       unit.Bytes
	wavePages  int // pages sensed by one t_R across the stack
	tR, tProg  Time
	senseTime  Time // the array's sense of a page wave: t_R, or 0 under the serial reading (its t_R is on the link)
	tECC       Time // base-die ECC decode of each segment after the TSV
	// progPlanes: a program holds only its pages of the stack's page wave
	// (hbf.program_scope planes), else every plane; suspend: reads suspend
	// programs (hbf.program_suspend) after tSusp, which resume after tRes.
	progPlanes    bool
	suspend       bool
	tSusp, tRes   Time
	hbmDuringProg bool // replicated weights read from HBM alone while a stack programs (§V-B)
	cacheRead     bool
	tsv           unit.BytesPerSecond
	hbmRate       unit.BytesPerSecond
	// gh, gf and fh are the usable rates of the GPU-HBM, GPU-HBF and
	// HBM-HBF links of their kind (tests' bounds).
	gh, gf, fh unit.BytesPerSecond
	dualPath   bool // experts may use every route set
	// setRate[k] is the rate of expert route set k (the k-th read route of
	// every HBF stack): the slowest stack's, each route at its own links'
	// rate (the resources its stack's other routes share with it aside).
	setRate []float64
	// maxSets is the most expert route sets one assignment opens: the
	// transfer chunks the smallest HBF transfer SRAM holds at once (its
	// slots), since a set streams from a stack only while a chunk of it
	// holds a slot (assignExperts).
	maxSets   int
	parallel  bool                // replicated data may be read from HBM and HBF at once
	arrayRead unit.BytesPerSecond // +Inf with an unbounded read pipeline
	readWaves int                 // read-pipeline depth; 0: unbounded
	earlyBuf  unit.Bytes          // GPU staging buffer for early expert delivery; 0: off
	// rt is the route table in the engine's form.
	rt routing
}

func newConfig(e dash.Experiment) (config, error) {
	s := e.System()
	ex := e.Execution()
	h := s.HBF
	t := s.Topology
	c := config{
		pairs: t.Pairs, nHBM: t.HBMStacks(), nHBF: t.HBFStacks(),
		seg:       s.HBM.RelaySRAM.RegionSize,
		page:      h.PageSize,
		wavePages: h.Dies * h.PlanesPerDie * h.SubarraysPerPlane,
		tR:        h.TRead, tProg: h.TProg, tECC: h.TECC, cacheRead: h.CacheRead,
		progPlanes: h.ProgramScope.Planes(), suspend: h.ProgramSuspend, tSusp: h.TSuspend, tRes: h.TResume,
		hbmDuringProg: ex.HBMWhileProgramming,
		tsv:           h.TSVBandwidth, hbmRate: s.HBM.ArrayBandwidth,
		gh: t.KindUsable(dash.LinkGPUHBM, s.Link.Usable), gf: t.KindUsable(dash.LinkGPUHBF, s.Link.Usable),
		fh:        t.KindUsable(dash.LinkHBMHBF, s.Link.Usable),
		arrayRead: h.ArrayReadBandwidth(),
	}
	if h.ArrayBounded() {
		c.readWaves = int(h.ReadWavesInFlight) // else 0: unbounded
	}
	c.dualPath = !ex.NoDualPath
	if ex.EarlyDelivery {
		c.earlyBuf = ex.EarlyDeliveryBufferFor(e.Timing().GPU())
	}
	c.parallel = !ex.NoParallelRead
	c.seg = transferChunk(c.wavePages, c.page, c.seg)
	c.hbmChunk = min(c.seg, HBMChunk)
	if c.nHBF == 0 { // no HBF part: only HBM chunks move
		c.seg, c.hbmChunk, c.page, c.wavePages = HBMChunk, HBMChunk, 1, 1
	}
	if c.seg < 1 || c.page < 1 || c.wavePages < 1 {
		return c, fmt.Errorf("sim: system %s: transfer chunk %v, page %v, %d pages per wave: all must be positive (validate the system)",
			s.ID, c.seg, c.page, c.wavePages)
	}
	c.senseTime = h.SenseTime()
	rt, err := compileRoutes(e.Routes(), c.seg, c.hbmChunk)
	if err != nil {
		return c, err
	}
	c.rt = rt
	c.setRate = setRates(&c.rt)
	c.maxSets = maxSets(&c.rt)
	c.rt.gather, c.rt.write = fastest(&c.rt, c.rt.hbfRead), fastest(&c.rt, c.rt.hbfWrite)
	for _, rs := range c.rt.hbfRead {
		for k, own := range ownRates(&c.rt, rs) {
			c.rt.routes[rs[k]].own = own
		}
		feed := math.Inf(1) // the resources every read route of the stack crosses alike
		if len(rs) > 0 {
			sp := newSplitter(&c.rt)
			sp.mark(rs)
			r := &c.rt.routes[rs[0]]
			for q, j := range r.uses {
				if !sp.decides(j, len(rs)) {
					feed = min(feed, c.rt.cap[j]/r.cost[q])
				}
			}
		}
		c.rt.feed = append(c.rt.feed, feed)
	}
	// Events name a stack or a hop in an int16 (events.go); the topology's
	// limits keep both far below (TestEventIndexFits).
	hops := 0
	for _, r := range c.rt.routes {
		hops = max(hops, len(r.hops))
	}
	if c.nHBF > math.MaxInt16 || hops > math.MaxInt16 {
		return config{}, fmt.Errorf("sim: %s: %d HBF stacks and routes of up to %d hops: an event names at most %d", e.Name(), c.nHBF, hops, math.MaxInt16)
	}
	return c, nil
}

// fastest is, for every HBF stack, the route of its set rs[stack] with the
// highest own rate (see ownRates), the first on a tie: the one with the
// fewest hops when the links are alike.
func fastest(rt *routing, rs [][]int32) []int32 {
	out := make([]int32, len(rs))
	for c, set := range rs {
		rates := ownRates(rt, set)
		best := 0
		for k := range set {
			if rates[k] > rates[best] {
				best = k
			}
		}
		out[c] = set[best]
	}
	return out
}

// ownRates are the rates of routes rs, each alone: what the resources it
// loads let through (cap / cost), but those every route of rs loads alike
// (a stack's NAND array and TSV serve them all).
func ownRates(rt *routing, rs []int32) []float64 {
	sp := newSplitter(rt)
	sp.mark(rs)
	out := make([]float64, len(rs))
	for k, r := range rs {
		out[k] = math.Inf(1)
		for q, j := range rt.routes[r].uses {
			if sp.decides(j, len(rs)) {
				out[k] = min(out[k], rt.cap[j]/rt.routes[r].cost[q])
			}
		}
	}
	return out
}

// setRates are the rates of the expert route sets: for the k-th read route
// of every HBF stack, the least over the stacks of its own rate, what the
// resources it loads let through (cap / cost) but those every read route
// of its stack loads alike (the array and the TSV serve them all).
func setRates(rt *routing) []float64 {
	var rates []float64
	for c, rs := range rt.hbfRead {
		for k, own := range ownRates(rt, rs) {
			if c == 0 {
				rates = append(rates, own)
			} else if k < len(rates) {
				rates[k] = min(rates[k], own)
			}
		}
	}
	return rates
}

// waveChunks is the transfer chunks of a page wave (a chunk divides the
// wave, transferChunk).
func (c *config) waveChunks() int {
	if c.page < 1 || c.seg < c.page { // a config newConfig did not make
		return c.wavePages
	}
	return c.wavePages / int(c.seg/c.page)
}

// maxSets is the most expert route sets an assignment opens: the slots of
// the smallest transfer SRAM of an HBF stack (every read route of a stack
// holds a slot of it while its chunk is filled and drained), and at least
// one.
func maxSets(rt *routing) int {
	n := math.MaxInt
	for _, p := range rt.sramPool {
		n = min(n, rt.poolSlots[p])
	}
	return max(1, n)
}

// HBMChunk is the granularity at which DRAM reads and writes are modelled:
// the DRAM array and the GPU-HBM link overlap chunk by chunk, so a stream's
// first byte waits for one chunk (1.7 us at 1.2 TB/s). HBM has no page
// wave; the chunk is a modelling granularity, independent of the HBF page
// size. Halving it changes the Fig. 9 geomeans by less than 0.1%.
const HBMChunk = 2 * unit.MiB

// segPages is the number of NAND pages a segment of b bytes occupies.
func (c *config) segPages(b unit.Bytes) int { return int((b + c.page - 1) / c.page) }

// opState is the progress of one GPU operator of the current pass.
type opState struct {
	started     bool
	start       Time
	streams     []int32 // streams it consumes
	computeDone Time    // start + compute
	pending     int     // consumed streams not fully delivered
	total       unit.Bytes
	lastBytes   unit.Bytes
	prefetched  bool       // predictable HBF data issued
	routedDone  bool       // selected experts issued
	early       unit.Bytes // its bytes held in the GPU staging buffer
	fromHBM     bool       // its replicated weights read from HBM alone (a stack was programming, §V-B)
	// progWait is how long its HBF reads would wait, past its earliest
	// start, for the programs committed ahead of them when it issued its
	// reads (programWait); the split of its replicated weights counts it.
	progWait Time
}

// engine is one simulation. It is single-threaded and deterministic.
type engine struct {
	cfg     config
	now     Time
	seq     uint64
	q       eventQueue
	hbf     []hbfStack
	hbm     []hbmStack
	links   []server // every link direction of the route table
	pools   []pool   // every SRAM region pool of the route table
	streams []stream
	// the pass in flight
	pass          *pass
	ops           []opState
	pc            int
	writesPending int
	passEnded     bool
	st            stats
	trace         *traceRec
	cut           shortcuts    // exact shortcuts (jump.go)
	recorded      shortcuts    // a sampled decode's: those of its recorder's engine (longdecode.go)
	epoch         uint64       // structural changes so far (see changed)
	finishEpoch   uint64       // the epoch a finishing stream began (no new stream since)
	visitors      visitors     // the shortcuts' visitors of the state walk (visitors.go)
	active        []int32      // unfinished streams, in creation order
	maxOp         int          // highest operator index with streams or prefetches
	gpuStaged     unit.Bytes   // bytes held in the GPU staging buffer
	holdArray     bool         // reads being queued together: the arrays start on the last
	processed     int64        // events actually handled
	replayed      int          // passes replayed from the memo
	sampled       int          // decode passes simulated by a sampled decode's recorder
	budget        budget       // the run's event and wall-clock limits
	budgetTick    int          // calls of checkBudget, to read the clock sparingly
	err           error        // a failure that ends the run (time out of range)
	freeWaves     wavePool     // emptied page waves, reused (waves.go)
	waveArrays    []waveArrays // per HBF stack: the arrays its wave lists slide through (waves.go)
	replays       replaySum    // replayed passes not applied yet (replays.go)
	// the read splits (ops.go, split.go) and their scratch
	split                  *splitter
	parts, out             []unit.Bytes // by route; by route of one pair
	partsCache             partsCache
	rs                     []int32
	loads                  []load
	sharedSets, routedSets []unit.Bytes // by route set
	setTime                []float64
	setBytes               []unit.Bytes
	feeds                  []float64    // scratch of weigh
	flows                  []flow       // scratch of weigh
	stages                 []leadStages // scratch of weigh
	expertMemo             map[expertKey][]unit.Bytes
	audit                  *auditor // tests: checks the physics as it runs (nil: off)
}

func newEngine(c config) *engine {
	e := &engine{cfg: c}
	e.budget, _ = newBudget(Options{}, time.Now()) // RunWith sets the run's own
	e.hbf = make([]hbfStack, c.nHBF)
	e.waveArrays = make([]waveArrays, c.nHBF)
	e.hbm = make([]hbmStack, c.nHBM)
	e.links = make([]server, len(c.rt.links))
	e.pools = newPools(&c)
	e.split = newSplitter(&e.cfg.rt)
	e.expertMemo = map[expertKey][]unit.Bytes{}
	e.freeWaves.size = min(c.waveChunks(), 16)
	n := len(c.rt.routes)
	e.parts, e.out = make([]unit.Bytes, n), make([]unit.Bytes, n)
	e.sharedSets, e.routedSets, e.setTime = make([]unit.Bytes, len(c.setRate)), make([]unit.Bytes, len(c.setRate)), make([]float64, len(c.setRate))
	e.setBytes = make([]unit.Bytes, len(c.setRate))
	e.st.classTime = make([]classStats, numClasses)
	e.useShortcuts(true)
	return e
}

// newPools is every pool of the route table, each region free.
func newPools(c *config) []pool {
	ps := make([]pool, len(c.rt.poolSlots))
	for i := range ps {
		ps[i] = pool{free: c.rt.poolSlots[i], tsv: c.rt.poolTSV[i]}
	}
	return ps
}

// changed records a structural change (an operator starting or ending, a
// stream issued or finishing): the state no longer repeats the one before
// it, which the shortcuts (jump.go) need to know.
func (e *engine) changed() { e.epoch++ }

func (e *engine) schedule(t Time, k evKind, at, stream int32, b unit.Bytes) {
	if t < e.now || t > MaxTime { // wrapped or past the representable range
		if e.err == nil {
			e.err = &TimeRangeError{At: e.now, Step: t - e.now}
		}
		return
	}
	e.seq++
	e.q.push(event{t: t, seq: e.seq, kind: k, at: int16(at), stream: stream, bytes: b})
}

func (e *engine) xfer(b unit.Bytes, r unit.BytesPerSecond) Time { return unit.TransferTime(b, r) }

// routeOf is the route of stream id.
func (e *engine) routeOf(id int32) *route { return &e.cfg.rt.routes[e.streams[id].route] }

// newStream registers a stream of total bytes on route r and returns its
// index.
func (e *engine) newStream(r int32, consumer int, total unit.Bytes) int32 {
	e.changed()
	op := consumer
	if op < 0 {
		op = e.pc // writes are issued by the running operator
	}
	e.streams = append(e.streams, stream{route: r, consumer: int32(consumer), op: int32(op), total: total, toIssue: total})
	e.active = append(e.active, int32(len(e.streams)-1))
	if consumer > e.maxOp {
		e.maxOp = consumer
	}
	e.st.requested[e.cfg.rt.routes[r].kind] += total
	if consumer >= 0 {
		e.ops[consumer].pending++
		e.ops[consumer].total += total
		e.ops[consumer].streams = append(e.ops[consumer].streams, int32(len(e.streams)-1))
		e.streams[len(e.streams)-1].started = e.ops[consumer].started
	} else {
		e.writesPending++
	}
	return int32(len(e.streams) - 1)
}

// ---- HBF reads: the NAND array, its cache register and the TSV ----------

// enqueueReads adds HBF read runs for operator op to a stack's queue. Runs
// for the operator whose group is last in the queue join that group (the
// selected experts join the shared experts sensed ahead), so that the
// array interleaves them and both route sets drain at once.
func (e *engine) enqueueReads(stack, op int, runs []readRun) {
	if len(runs) == 0 {
		return
	}
	s := &e.hbf[stack]
	if n := len(s.readQ); n > 0 && s.readQ[n-1].op == int32(op) {
		s.readQ[n-1].runs = append(s.readQ[n-1].runs, runs...)
	} else {
		s.readQ = append(s.readQ, readGroup{op: int32(op), runs: runs})
	}
	e.weigh(stack, &s.readQ[len(s.readQ)-1])
	if !e.holdArray {
		e.kickArray(stack)
	}
}

func (e *engine) runFor(id int32, total unit.Bytes) readRun {
	return readRun{stream: id, full: int64(total / e.cfg.seg), last: total % e.cfg.seg}
}

// kickArray starts the next program, or as many senses as the read
// pipeline allows (cfg.readWaves waves requested and not yet in the cache
// register; 0: no limit), if the array can. A program holds its pages of
// the page wave (every page under program_scope stack); senses take the
// pages left. With program suspend, a read that waits suspends the running
// program, which resumes once no read waits.
func (e *engine) kickArray(stack int) {
	s := &e.hbf[stack]
	wp := e.cfg.wavePages
	if s.programActive {
		if e.cfg.suspend {
			e.suspendForReads(stack)
		}
		if !s.suspended && s.progPages >= wp {
			return // the program holds every plane
		}
	}
	free := wp
	if s.programActive && !s.suspended {
		free -= s.progPages
	}
	// A complete program wave goes first: it holds SRAM slots that reads
	// need, and decode-phase reads are rarely waiting behind it. One that
	// needs every plane waits for the reads in flight to leave the array
	// (sensed data that can never leave it, behind a transfer SRAM full of
	// written data, are sensed again after it: resense); one that writes
	// fewer starts at once on planes no read holds (an out-of-place write
	// chooses its planes), and the senses meanwhile leave its planes to it.
	if len(s.progPending) > 0 && !s.programActive {
		if e.programStuck(stack) {
			e.resense(stack)
		}
		pages := e.programPages(&s.progPending[0])
		if pages >= wp && e.readsInArray(s) {
			return
		}
		e.startProgram(stack, pages)
		if pages >= wp {
			return
		}
		free = wp - pages
	}
	for len(s.readQ) > 0 && e.canSense(s) {
		wave := e.formWave(stack, free)
		if len(wave) == 0 {
			e.freeWaves.put(wave)
			break
		}
		// Busy time counts the union of the sensing intervals.
		end := e.now + e.cfg.senseTime
		s.senseBusy += end - max(e.now, min(s.arrayUntil, end))
		s.arrayUntil = max(s.arrayUntil, end)
		s.waves++
		s.sensing = pushWave(s.sensing, &e.waveArrays[stack].sensing, wave)
		if e.audit != nil {
			e.audit.array(stack, s)
		}
		e.schedule(end, evArrayDone, int32(stack), 1, 0)
	}
	if s.suspended && len(s.sensing) == 0 && (len(s.readQ) == 0 || s.tsvWait) {
		e.resumeProgram(stack) // no read waits for the array, or none can leave it before a program frees SRAM
	}
}

// readsInArray reports whether reads hold the array so that a program
// holding every plane must wait: waves sensing, or sensed and waiting in
// their page registers (and, without cache read, crossing the TSV from
// them). With program suspend only the sensing waves count: sensed data
// wait in their registers while a program runs, as they do while it is
// suspended.
func (e *engine) readsInArray(s *hbfStack) bool {
	if e.cfg.suspend {
		return len(s.sensing) > 0
	}
	return len(s.sensing) > 0 || len(s.dataReg) > 0 || (!e.cfg.cacheRead && len(s.cacheReg) > 0)
}

// programPages is what a pending program wave occupies of its stack's page
// wave: its pages under program_scope planes, else every page.
func (e *engine) programPages(w *progWave) int {
	if !e.cfg.progPlanes {
		return e.cfg.wavePages
	}
	return min(e.cfg.wavePages, e.cfg.segPages(w.bytes))
}

// startProgram starts the oldest pending program wave of a stack: its data
// cross the TSV from SRAM into the page buffers (freeing their SRAM
// regions), then the array programs them for t_PROG, holding pages of its
// page wave.
func (e *engine) startProgram(stack, pages int) {
	s := &e.hbf[stack]
	w := s.progPending[0]
	s.progPending = popFront(s.progPending)
	s.programming = w.parts
	d := e.xfer(w.bytes, e.cfg.tsv)
	tsvEnd := s.tsv.reserve(e.now, d, w.bytes)
	if e.audit != nil {
		e.audit.tsv(stack, tsvEnd-d, tsvEnd, w.bytes)
	}
	s.programActive, s.progPages, s.progFrom, s.progUntil = true, pages, tsvEnd, tsvEnd+e.cfg.tProg
	s.progBusy += e.cfg.tProg
	s.programs++
	e.schedule(tsvEnd, evProgTSVDone, int32(stack), -1, unit.Bytes(w.slots))
	e.schedule(s.progUntil, evArrayDone, int32(stack), -1, 0)
}

// suspendForReads suspends a stack's running program when reads wait to be
// sensed: t_SUS after now (or after its array phase starts), unless it ends
// first. Its end event, already scheduled, is then stale.
func (e *engine) suspendForReads(stack int) {
	s := &e.hbf[stack]
	if s.suspended || s.suspending || len(s.readQ) == 0 || s.tsvWait {
		return // no read waits, or none could leave the array (the transfer SRAM is full)
	}
	at := max(e.now, s.progFrom) + e.cfg.tSusp
	left := s.progUntil - max(at, s.progFrom)
	if left <= 0 {
		return // it ends before it could suspend
	}
	s.suspending, s.progLeft, s.progStale = true, left, s.progStale+1
	e.schedule(at, evArrayDone, int32(stack), evSuspended, 0)
}

// resumeProgram resumes a stack's suspended program: t_RES, then the rest
// of its t_PROG.
func (e *engine) resumeProgram(stack int) {
	s := &e.hbf[stack]
	s.suspended = false
	s.progFrom = e.now + e.cfg.tRes
	s.progUntil = s.progFrom + s.progLeft
	s.progBusy += e.cfg.tRes
	s.progLeft = 0
	e.schedule(s.progUntil, evArrayDone, int32(stack), -1, 0)
}

// evSuspended is the stream of an evArrayDone that suspends a program (1:
// a sense ended, -1: a program ended).
const evSuspended = 2

// programStuck reports whether stack's pending program should take the
// array from the sensed reads that wait in the page registers for a
// transfer-SRAM region: the written data (the pending program waves and the
// write waves still gathering) hold so many regions that those left are
// fewer than the waiting reads need to stream, one draining on each route
// they are for and one the TSV fills (§IV: the transfer regions alternate
// between TSV fill and D2D drain), while the program waits for the reads
// to leave the array: a circular wait, whole when every region holds
// written data (a full SRAM of written KV: the reads can never leave),
// partial otherwise (the reads leave through the regions left, a route at
// a time or a chunk's fill and drain one after the other). The controller
// then programs first, as §IV has writes take the region freed next:
// resense drops the waiting reads, sensed again after the program. While
// the regions left let the reads stream, the program waits for them.
// (Seed 94654: an HBF stack shared by two HBM stacks, three pending KV
// waves in a six-region SRAM under the paper's reading; the experts' Relay
// chunks to the two HBM stacks crossed their 24.9 GB/s links one at a time
// through the one region left, 662 ms a prefill layer against 329 ms.
// Seed 108542: one Relay route, its chunks filled over a 122 GB/s TSV and
// drained over a 78 GB/s link one after the other through the one region
// left, 101 ms against 65 ms.)
func (e *engine) programStuck(stack int) bool {
	s := &e.hbf[stack]
	p := &e.pools[e.cfg.rt.sramPool[stack]]
	if !s.tsvWait || p.free > 0 || len(s.sensing) > 0 || len(s.progPending) == 0 {
		return false
	}
	held := 0
	for _, w := range s.progPending {
		held += w.slots
	}
	for _, id := range e.active {
		st := &e.streams[id]
		if r := &e.cfg.rt.routes[st.route]; r.hops[len(r.hops)-1].program == int32(stack) {
			held += st.progBuf.slots
		}
	}
	left := e.cfg.rt.poolSlots[e.cfg.rt.sramPool[stack]] - held
	return e.waitingRoutesAbove(s, left-1) // routes + 1 > left
}

// waitingRoutesAbove reports whether the sensed data waiting in a stack's
// page registers (the cache register's segments not yet across the TSV,
// then the data registers) are for more than n distinct routes; it stops
// at the first route past n.
func (e *engine) waitingRoutesAbove(s *hbfStack, n int) bool {
	if n < 0 {
		return true
	}
	var buf [8]int32 // a stack has a few read routes
	seen := buf[:0]
	above := func(w []seg) bool {
		for _, sg := range w {
			if r := e.streams[sg.stream].route; !slices.Contains(seen, r) {
				if seen = append(seen, r); len(seen) > n {
					return true
				}
			}
		}
		return false
	}
	if above(s.cacheReg[s.cacheNext:]) {
		return true
	}
	for _, w := range s.dataReg {
		if above(w) {
			return true
		}
	}
	return false
}

// resense drops the sensed data that wait in stack's page registers (the
// cache register's segments not yet across the TSV, and the data
// registers) so that a program can use the array: they go back to the head
// of the read queue, to be sensed again (another t_R) after it. A NAND
// controller that let written data fill its transfer SRAM while sensed data
// wait behind a program has no other way out.
func (e *engine) resense(stack int) {
	s := &e.hbf[stack]
	var back []seg
	back = append(back, s.cacheReg[s.cacheNext:]...)
	for _, w := range s.dataReg {
		back = append(back, w...)
	}
	s.dataReg = nil
	s.cacheReg = s.cacheReg[:s.cacheNext]
	if s.cacheDone == s.cacheNext {
		s.cacheReg, s.cacheNext, s.cacheDone = nil, 0, 0
	}
	s.tsvWait = false
	// One read group per consumer, the operator that runs first first: the
	// dropped waves may hold the data of a later operator sensed ahead
	// (the selected experts queued when routing ended), and one group
	// would interleave them with the running operator's, so that they
	// could take every SRAM region, waiting for their operator to start,
	// while the running one's data wait behind them: a deadlock.
	var groups []readGroup
	for _, sg := range back {
		op := e.streams[sg.stream].consumer
		n := 0
		for n < len(groups) && groups[n].op != op {
			n++
		}
		if n == len(groups) {
			groups = append(groups, readGroup{op: op})
		}
		// One run per stream, as the reads were issued: the dropped waves
		// interleave the streams chunk by chunk, and a run per chunk made
		// every weighing quadratic in the chunks dropped (seed 54175
		// without GPU-HBF links: thousands of runs, each drained run
		// weighing the rest, over five minutes of CPU for a run of 26 ms).
		g := &groups[n]
		k := len(g.runs) - 1
		for k >= 0 && g.runs[k].stream != sg.stream {
			k--
		}
		if k < 0 {
			g.runs = append(g.runs, readRun{stream: sg.stream})
			k = len(g.runs) - 1
		}
		if sg.bytes == e.cfg.seg {
			g.runs[k].full++
		} else {
			g.runs[k].last = sg.bytes
		}
	}
	slices.SortStableFunc(groups, func(a, b readGroup) int { return cmp.Compare(a.op, b.op) })
	s.readQ = append(groups, s.readQ...)
	for k := range groups {
		e.weigh(stack, &s.readQ[k])
	}
	s.resensed += int64(len(back))
}

// canSense reports whether the read pipeline has room for another wave:
// waves sensing or sensed and waiting for the cache register (and, without
// cache read, the wave still crossing the TSV from its page buffer) count.
func (e *engine) canSense(s *hbfStack) bool {
	if e.cfg.readWaves == 0 {
		return true
	}
	n := len(s.sensing) + len(s.dataReg)
	if !e.cfg.cacheRead && len(s.cacheReg) > 0 {
		n++
	}
	return n < e.cfg.readWaves
}

// formWave takes one page wave of at most maxPages pages (the planes no
// program holds) from the queue head, interleaving its runs by their
// routes' rates (see pick): runs whose routes are alike alternate chunk by
// chunk; a route slower than the others gets its chunks in proportion, so
// that it neither holds their chunks back in SRAM behind its own nor gets
// its part at the end.
func (e *engine) formWave(stack, maxPages int) []seg {
	s := &e.hbf[stack]
	pages := 0
	wave := e.freeWaves.get()
	for len(s.readQ) > 0 {
		g := &s.readQ[0]
		progress := false
		for range len(g.runs) {
			k := e.pick(g)
			if k < 0 {
				break
			}
			r := &g.runs[k]
			b := e.cfg.seg
			if r.full == 0 {
				b = r.last
			}
			need := e.cfg.segPages(b)
			if pages+need > maxPages && (pages > 0 || maxPages < e.cfg.wavePages) {
				// A chunk larger than a whole wave is sensed alone, never
				// beside a program. The chunk that does not fit starts the
				// next wave: its pick is not spent.
				goto done
			}
			e.took(g, k)
			if r.full > 0 {
				r.full--
			} else {
				r.last = 0
			}
			if r.empty() && !groupEmpty(g) {
				// The others share the array anew: credits built up
				// against the drained run would give the run with the
				// most all its chunks before the others get any.
				e.weigh(stack, g)
			}
			wave = append(wave, seg{stream: r.stream, bytes: b})
			pages += need
			progress = true
			if pages >= maxPages {
				goto done
			}
		}
		if !progress { // group exhausted
			s.readQ = popFront(s.readQ)
		}
	}
done:
	// Drop exhausted groups at the head.
	for len(s.readQ) > 0 && groupEmpty(&s.readQ[0]) {
		s.readQ = popFront(s.readQ)
	}
	return wave
}

// interleaveScale is the weight of a group's most fed run in the
// interleave: fine enough that a route fed a hundredth of the chunks gets
// a hundredth, not more (a slow route fed more than it drains fills the
// transfer SRAM with its chunks and holds every route of the stack to its
// rate).
const interleaveScale = 1024

// weigh sets the interleave weights of a group's runs: what each should be
// fed a second for all to finish together, the stack's sensing and filling
// rate (routing.feed) shared in proportion to what each has left, each at
// most its route's own rate (water-filling); when the shared rate does not
// bind, every route is fed at its rate. Weights within a sixteenth of the
// largest count as equal (the runs take turns); otherwise the runs not
// begun lead with a chunk each (see below and pick). A group is weighed
// when runs join it and again when one of its runs drains.
func (e *engine) weigh(stack int, g *readGroup) {
	rt := &e.cfg.rt
	feed := rt.feed[stack]
	route := func(k int) int32 { return e.streams[g.runs[k].stream].route }
	rate := func(k int) float64 { return rt.routes[route(k)].own }
	left := func(k int) float64 { return float64(g.runs[k].left()) }
	// A route's runs share its rate: the routes with runs not empty, each
	// with its rate and what its runs have left.
	fl := e.flows[:0]
	for k := range g.runs {
		if g.runs[k].empty() {
			continue
		}
		r, j := route(k), 0
		for j < len(fl) && fl[j].route != r {
			j++
		}
		if j == len(fl) {
			fl = append(fl, flow{route: r, rate: rate(k)})
		}
		fl[j].left += left(k)
	}
	e.flows = fl
	var sumRate float64
	for _, x := range fl {
		sumRate += x.rate
	}
	f := e.feeds[:0]
	if sumRate <= feed || math.IsInf(sumRate, 1) && math.IsInf(feed, 1) {
		for k := range g.runs {
			f = append(f, rate(k))
		}
	} else {
		// lambda with sum over the routes of min(lambda x left, rate) =
		// feed: the routes saturate in the order of rate/left.
		slices.SortFunc(fl, func(a, b flow) int { return cmp.Compare(a.rate/a.left, b.rate/b.left) })
		rem, sumLeft := feed, 0.0
		for _, x := range fl {
			sumLeft += x.left
		}
		lambda := rem / sumLeft
		for _, x := range fl {
			if lambda*x.left < x.rate {
				break
			}
			rem -= x.rate
			sumLeft -= x.left
			lambda = rem / sumLeft
		}
		for k := range g.runs {
			v := 0.0
			if !g.runs[k].empty() {
				r, j := route(k), 0
				for fl[j].route != r {
					j++
				}
				v = min(lambda*fl[j].left, fl[j].rate) * left(k) / fl[j].left
			}
			f = append(f, v)
		}
	}
	e.feeds = f
	top := 0.0
	for k := range g.runs {
		if !g.runs[k].empty() && !math.IsInf(f[k], 1) {
			top = max(top, f[k])
		}
	}
	equal := true
	g.equal = false
	for k := range g.runs {
		w := int32(interleaveScale)
		if top > 0 && !math.IsInf(f[k], 1) {
			w = int32(max(1, math.Round(interleaveScale*f[k]/top)))
		}
		g.runs[k].weight = w
		if !g.runs[k].empty() && w < interleaveScale-interleaveScale/16 {
			equal = false
		}
	}
	if equal {
		for k := range g.runs {
			g.runs[k].weight, g.runs[k].lead = interleaveScale, 0
		}
		g.equal = true
		return
	}
	// The run with the most time left at its route's rate starts first:
	// credits in proportion to that time, so that a short run of a slow
	// route is not left for the end by the even spreading of the picks.
	// And every run none of whose chunks has been sensed yet starts at
	// once: it leads with one chunk before the round robin, in the order
	// below (by its time left: its bytes at its feed, plus its first
	// chunk's store-and-forward lag, route.lag). The expert assignment costs
	// each route set from the operator's start (assignExperts); the credits
	// alone sense a run of one chunk of a route fed a fiftieth of the array
	// when its credit has grown to the others', a third of the way through
	// the fast run's chunks, and it ends after them (seeds 38843, 30057).
	// A lead costs the other runs one chunk of the array's time.
	var total int64
	var longest float64
	for k := range g.runs {
		if !g.runs[k].empty() {
			total += int64(g.runs[k].weight)
			longest = max(longest, left(k)/rate(k))
		}
	}
	fresh := 0
	for k := range g.runs {
		r := &g.runs[k]
		r.credit, r.lead = 0, 0
		if !r.empty() && longest > 0 && !math.IsInf(longest, 1) {
			r.credit = int64(math.Round(float64(total) * left(k) / rate(k) / longest))
		}
		if !r.empty() && !r.began {
			fresh++
		}
	}
	if fresh == 0 {
		return
	}
	seg := float64(e.cfg.seg)
	timeLeft := func(k int) float64 {
		r := &g.runs[k]
		b := float64(r.full)*seg + float64(r.last)
		rr := &rt.routes[route(k)]
		return b/f[k] + min(b, float64(rr.chunk))*rr.lag
	}
	// The leads' order is Johnson's rule for a two-stage flow shop: a
	// run's first chunk takes the stack's array and TSV (stage one: the
	// chunk at the stack's feed, which every run shares), then its route
	// alone (stage two: the rest of its time left). The runs whose stage
	// one is the shorter go first, the shortest stage one first, then the
	// others, the longest stage two first; equal stages keep the most time
	// left first. (Seed 60957: a 64 MiB Direct chunk, 0.49 ms on a 136
	// GB/s TSV, led an 18 MiB Relay part that then crossed its 20 GB/s
	// link for 0.94 ms after it: the experts 1.65 ms against 1.28 ms
	// without the Relay path.)
	stages := e.stages[:0]
	for k := range g.runs {
		r := &g.runs[k]
		var st leadStages
		if !r.empty() && !r.began {
			st.left = timeLeft(k)
			if !math.IsInf(feed, 1) {
				st.first = min(float64(r.full)*seg+float64(r.last), seg) / feed
			}
			st.rest = st.left - st.first
		}
		stages = append(stages, st)
	}
	e.stages = stages
	precedes := func(k, j int) bool {
		a, b := &stages[k], &stages[j]
		if ga, gb := a.first < a.rest, b.first < b.rest; ga != gb {
			return ga
		} else if ga && a.first != b.first {
			return a.first < b.first
		} else if !ga && a.rest != b.rest {
			return a.rest > b.rest
		}
		return a.left > b.left || a.left == b.left && k < j
	}
	for k := range g.runs {
		r := &g.runs[k]
		if r.empty() || r.began {
			continue
		}
		// Its rank among the fresh runs: 1 for the last to lead.
		r.lead = 1
		for j := range g.runs {
			q := &g.runs[j]
			if j == k || q.empty() || q.began {
				continue
			}
			if precedes(k, j) {
				r.lead++
			}
		}
	}
}

// leadStages are a fresh run's two stages in the order of the leads
// (weigh): its first chunk at the stack's feed, the rest of its time left,
// and the whole.
type leadStages struct{ first, rest, left float64 }

// flow is a route's runs in a read group (weigh).
type flow struct {
	route      int32
	left, rate float64
}

// pick is the run of g whose chunk the array senses next, or -1 when every
// run is empty; it changes nothing (took does, once the chunk is in a
// wave). Runs of equal weight (see weigh) take turns from g.next on. A run
// that leads (weigh) goes first, the highest lead first. Otherwise the
// pick is a smooth weighted round robin: every run not empty gains its
// weight in credit, the run with the most (the first in turn on a tie) is
// picked and pays the weights of all, so that each run gets chunks in
// proportion to its weight, spread evenly. The credits are integers of the
// state, so that the interleave repeats as the runs drain (the periodic
// jumps need it to).
func (e *engine) pick(g *readGroup) int {
	n := len(g.runs)
	same := true
	if !g.equal { // weights may differ and runs lead (weigh); else the runs take turns
		w0, lead := int32(-1), -1
		for k := range g.runs {
			r := &g.runs[k]
			if r.empty() {
				continue
			}
			if w0 >= 0 && r.weight != w0 {
				same = false
			}
			w0 = r.weight
			if r.lead > 0 && (lead < 0 || r.lead > g.runs[lead].lead) {
				lead = k
			}
		}
		if w0 < 0 {
			return -1
		}
		if lead >= 0 {
			return lead
		}
	}
	best := -1
	var most int64
	for i := range n {
		k := (g.next + i) % n
		r := &g.runs[k]
		if r.empty() {
			continue
		}
		if same {
			return k
		}
		if c := r.credit + int64(r.weight); best < 0 || c > most {
			best, most = k, c
		}
	}
	return best
}

// took commits the pick of run k of g (see pick), whose chunk joined a
// wave: the turn moves past it, its lead is spent, and in the weighted
// round robin every run not empty gains its weight and k pays their sum,
// a lead as well (seed 32862: a Relay run of 28 GB/s that led without
// paying kept its credit and took the transfer SRAM's other region for a
// second chunk while its first still crossed, stopping the Direct run).
func (e *engine) took(g *readGroup, k int) {
	r := &g.runs[k]
	g.next = (k + 1) % len(g.runs)
	r.began = true
	r.lead = 0 // a lead pays as a pick of the round robin does
	if g.equal {
		return // the runs take turns: no credits
	}
	var total int64
	same := true
	for j := range g.runs {
		q := &g.runs[j]
		if q.empty() {
			continue
		}
		same = same && q.weight == r.weight
		total += int64(q.weight)
	}
	if same {
		return
	}
	for j := range g.runs {
		if q := &g.runs[j]; !q.empty() {
			q.credit += int64(q.weight)
		}
	}
	r.credit -= total
}

func groupEmpty(g *readGroup) bool {
	for _, r := range g.runs {
		if !r.empty() {
			return false
		}
	}
	return true
}

// onArrayDone: the oldest sense put its wave in a data register (what =
// 1), a program finished (-1; an end a suspension made stale is skipped),
// or a program suspended (evSuspended).
func (e *engine) onArrayDone(stack int, what int32) {
	s := &e.hbf[stack]
	switch what {
	case 1:
		s.dataReg = pushWave(s.dataReg, &e.waveArrays[stack].dataReg, s.sensing[0])
		s.sensing = popFront(s.sensing)
		e.moveToCache(stack)
	case evSuspended:
		s.suspending, s.suspended = false, true
		s.suspends++
	default:
		if s.progStale > 0 { // the end it had before it was suspended
			s.progStale--
			return
		}
		parts := s.programming
		s.programming, s.programActive, s.progPages = nil, false, 0
		for _, p := range parts {
			e.deliver(p.stream, p.bytes)
		}
	}
	e.kickArray(stack)
}

// moveToCache moves the oldest data register into the (empty) cache
// register and starts its TSV transfers.
func (e *engine) moveToCache(stack int) {
	s := &e.hbf[stack]
	if len(s.dataReg) == 0 || len(s.cacheReg) > 0 {
		return
	}
	s.cacheReg = s.dataReg[0]
	s.dataReg = popFront(s.dataReg)
	s.cacheNext, s.cacheDone = 0, 0
	e.kickTSV(stack)
}

// kickTSV books the TSV for the cache-register segments, in order, while
// the stack's transfer SRAM has free regions (the TSV is a FIFO server, so
// later bookings queue behind earlier ones).
func (e *engine) kickTSV(stack int) {
	s := &e.hbf[stack]
	p := &e.pools[e.cfg.rt.sramPool[stack]]
	for !s.tsvWait && s.cacheNext < len(s.cacheReg) {
		if p.free == 0 {
			s.tsvWait = true
			if len(s.progPending) > 0 {
				e.kickArray(stack) // a program may be stuck behind these reads
			}
			return
		}
		p.free--
		if e.audit != nil {
			e.audit.pool(e.cfg.rt.sramPool[stack], p.free)
		}
		e.startTSV(stack, s.cacheReg[s.cacheNext])
	}
}

func (e *engine) startTSV(stack int, sg seg) {
	s := &e.hbf[stack]
	s.cacheNext++
	d := e.xfer(sg.bytes, e.cfg.tsv)
	end := s.tsv.reserve(e.now, d, sg.bytes)
	if e.audit != nil {
		e.audit.tsv(stack, end-d, end, sg.bytes)
	}
	e.schedule(end+e.cfg.tECC, evTSVDone, int32(stack), sg.stream, sg.bytes) // ready once decoded
}

// onTSVDone: a sensed segment is in HBF SRAM; it goes on to its route's
// next hop.
func (e *engine) onTSVDone(stack int, sg seg) {
	s := &e.hbf[stack]
	s.cacheDone++
	if s.cacheDone == len(s.cacheReg) { // the cache register is empty again
		e.freeWaves.put(s.cacheReg)
		s.cacheReg, s.cacheNext, s.cacheDone = nil, 0, 0
		e.moveToCache(stack)
		e.kickArray(stack)
	}
	e.toHop(sg, 0)
}

// ---- hops ------------------------------------------------------------

// toHop brings a chunk to hop k of its route: into the GPU only if its
// consumer has started or it may enter the GPU's staging buffer early
// (otherwise it stays where it is, holding its regions, until one of those
// holds); then it takes the hop's pools and starts the transfer.
func (e *engine) toHop(sg seg, k int) {
	st := &e.streams[sg.stream]
	r := &e.cfg.rt.routes[st.route]
	if r.hops[k].gated && !st.started && !e.stageEarly(st, sg) {
		st.staged = append(st.staged, sg)
		return
	}
	e.takeFrom(sg, r, k, 0)
}

// takeFrom takes hop k's pools from the next-th on, in order, and starts
// the transfer once it holds them all; at a pool with no free region the
// chunk waits (reads ahead of writes).
func (e *engine) takeFrom(sg seg, r *route, k, next int) {
	h := &r.hops[k]
	for j := next; j < len(h.take); j++ {
		p := &e.pools[h.take[j]]
		if p.free > 0 {
			p.free--
			if e.audit != nil {
				e.audit.pool(h.take[j], p.free)
			}
			continue
		}
		class := 0
		if !r.toGPU {
			class = 1
		}
		p.wait[class] = append(p.wait[class], waiter{seg: sg, hop: int32(k), next: int32(j + 1)})
		return
	}
	e.transfer(sg, r, k)
}

// transfer starts hop k: a FIFO server (a link direction or a DRAM array)
// holds the chunk for bytes/rate, or the chunk joins its stream's page
// wave to be programmed.
func (e *engine) transfer(sg seg, r *route, k int) {
	h := &r.hops[k]
	var srv *server
	switch {
	case h.program >= 0:
		e.bufferProgram(int(h.program), sg)
		return
	case h.link >= 0:
		srv = &e.links[h.link]
	default:
		srv = &e.hbm[h.dram].array
	}
	d := e.xfer(sg.bytes, h.rate)
	end := srv.reserveAfter(e.now, h.lead, d, sg.bytes)
	if e.audit != nil {
		e.audit.transfer(h, end-d, end, sg.bytes)
	}
	if h.link >= 0 {
		e.traceSeg(r, h, end-d, end, sg)
	}
	e.schedule(end, evHopDone, int32(k), sg.stream, sg.bytes)
}

// onHopDone: hop k of a chunk's route has ended. The chunk frees the
// regions it leaves, a stream issued chunk by chunk issues its next, and
// the chunk goes on to the next hop or, after the last, is delivered.
func (e *engine) onHopDone(k int, sg seg) {
	r := e.routeOf(sg.stream)
	h := &r.hops[k]
	for _, p := range h.free {
		e.release(p, 1)
	}
	if k == 0 && r.sense < 0 {
		e.issueChunk(sg.stream)
	}
	if k+1 < len(r.hops) {
		e.toHop(sg, k+1)
	} else {
		e.deliver(sg.stream, sg.bytes)
		if r.toGPU {
			e.cut.delivered(sg.stream)
		}
	}
	if k == 0 && r.dramRead {
		e.cut.hbmRead()
	}
}

// release frees n regions of pool id and grants waiting chunks: the TSV
// first (transfer SRAM), then reads, then writes, each in arrival order;
// but a write issued by an operator before the one the TSV's next chunk is
// read for goes before the TSV (writeFirst).
func (e *engine) release(id int32, n int) {
	p := &e.pools[id]
	p.free += n
	if e.audit != nil {
		e.audit.pool(id, p.free)
	}
	for p.free > 0 {
		if p.tsv >= 0 && e.hbf[p.tsv].tsvWait && !e.writeFirst(p) {
			s := &e.hbf[p.tsv]
			s.tsvWait = false
			p.free--
			e.startTSV(int(p.tsv), s.cacheReg[s.cacheNext])
			e.kickTSV(int(p.tsv))
			p = &e.pools[id]
			continue
		}
		class := 0
		if len(p.wait[0]) == 0 {
			class = 1
		}
		if len(p.wait[class]) == 0 {
			return
		}
		w := p.wait[class][0]
		p.wait[class] = popFront(p.wait[class])
		p.free--
		e.takeFrom(w.seg, e.routeOf(w.seg.stream), int(w.hop), int(w.next))
		p = &e.pools[id]
	}
}

// writeFirst reports whether the first write waiting for transfer-SRAM
// pool p goes before the TSV's next sensed chunk: when its page wave is
// gathering in the pool (chunks of it landed), or when it was issued by an
// operator before the one that chunk is for, and the chunk was sensed
// ahead for an operator after the running one.
//
// A gathering wave's chunks hold their regions until its program, which
// waits for the wave's last chunks, so those go first whenever the wave
// fits the pool: behind the reads they would hold the regions for as long
// as the reads come, and the reads would stream through the regions left
// (seed 54175: a transfer SRAM of two 4 MiB chunk slots; with t_PROG
// halved the prefill KV's first chunk landed under the experts' reads and
// its second waited for them to end, 98 -> 179 ms a prefill layer, the
// run 24% longer; 91597, +20%, the same). A wave larger than the pool
// waits as any write: its chunks would take every region in turn, and only
// a flush (flushIfStuck) would free them.
//
// Otherwise the region goes to the write when it was issued by an
// operator before the one the TSV's next chunk is for: an incoming write takes
// the transfer region freed next (§IV), and the reads sensed ahead for a
// later operator, which would refill the SRAM as fast as it drains, would
// hold it back until they stop, so that its program lands on a later
// operator's reads (seeds 30940, 37902) instead of the work it was issued
// beside. A chunk the running operator waits for keeps its turn: given to
// the write, the region would go to each of the write's chunks in turn,
// every one freed only by a program, and the running operator would wait
// for all of them (seed 40509: a 1-region transfer SRAM, the prefill KV of
// the attention, 22 programs of 6 ms, in front of the output projection's
// last Direct chunk, 134 ms instead of 6.6 ms a layer).
func (e *engine) writeFirst(p *pool) bool {
	if len(p.wait[1]) == 0 {
		return false
	}
	w := &e.streams[p.wait[1][0].seg.stream]
	if w.progBuf.slots > 0 && e.cfg.waveChunks() <= e.cfg.rt.poolSlots[e.cfg.rt.sramPool[p.tsv]] {
		return true // its wave's chunks hold regions only its program frees
	}
	s := &e.hbf[p.tsv]
	next := e.streams[s.cacheReg[s.cacheNext].stream].op
	return w.op < next && int(next) > e.pc
}

// issueChunk starts the next chunk of a stream issued chunk by chunk (HBM
// reads, writes, writeback): its route's first hop.
func (e *engine) issueChunk(id int32) {
	st := &e.streams[id]
	if st.toIssue <= 0 {
		return
	}
	r := &e.cfg.rt.routes[st.route]
	b := min(st.toIssue, r.chunk)
	st.toIssue -= b
	e.toHop(seg{stream: id, bytes: b}, 0)
}

// stageEarly reserves room in the GPU staging buffer for a segment of a
// selected-expert stream whose operator has not started (early expert
// delivery, §VI-D), and reports whether it got it. The room is held until
// the operator ends.
func (e *engine) stageEarly(st *stream, sg seg) bool {
	if !st.early || e.gpuStaged+sg.bytes > e.cfg.earlyBuf {
		return false
	}
	e.gpuStaged += sg.bytes
	if e.audit != nil {
		e.audit.staged(e.gpuStaged, e.cfg.earlyBuf)
	}
	e.ops[st.consumer].early += sg.bytes
	e.st.earlyBytes += sg.bytes
	e.st.earlyPeak = max(e.st.earlyPeak, e.gpuStaged)
	return true
}

// releaseEarly frees operator i's room in the GPU staging buffer and lets
// staged segments of operators not yet started take it, oldest stream first.
func (e *engine) releaseEarly(i int) {
	op := &e.ops[i]
	if op.early == 0 {
		return
	}
	e.gpuStaged -= op.early
	op.early = 0
	for _, id := range e.active {
		st := &e.streams[id]
		for len(st.staged) > 0 && !st.started && e.stageEarly(st, st.staged[0]) {
			sg := st.staged[0]
			st.staged = st.staged[1:]
			e.resumeStaged(sg)
		}
	}
}

// resumeStaged starts a staged chunk's transfer into the GPU.
func (e *engine) resumeStaged(sg seg) {
	r := e.routeOf(sg.stream)
	e.takeFrom(sg, r, r.gate, 0)
}

// bufferProgram adds a written segment (in HBF SRAM) to its stream's wave
// and queues the wave for programming when it is full or the stream ends.
func (e *engine) bufferProgram(stack int, sg seg) {
	st := &e.streams[sg.stream]
	st.progBuf.bytes += sg.bytes
	st.progBuf.slots++
	st.progBuf.parts = append(st.progBuf.parts, sg)
	st.arrived += sg.bytes
	full := e.cfg.segPages(st.progBuf.bytes) >= e.cfg.wavePages
	if full || st.arrived == st.total {
		w := st.progBuf
		st.progBuf = progWave{}
		e.hbf[stack].progPending = append(e.hbf[stack].progPending, w)
		e.kickArray(stack)
		return
	}
	// The chunk may have taken the transfer SRAM's last region from sensed
	// data that a pending program waits for: nothing else would look
	// again (the array, the TSV and the SRAM are all idle then).
	if s := &e.hbf[stack]; len(s.progPending) > 0 && !s.programActive && e.programStuck(stack) {
		e.kickArray(stack)
	}
}

// flushIfStuck programs the fullest partly gathered write wave of a stack
// whose transfer SRAM is full while chunks wait for it and no program is
// running or pending: written chunks of several streams, each short of a
// page wave, hold every region waiting for regions (their own next chunks,
// or sensed reads) that only a program frees. A NAND controller in that
// state programs what it holds; the wave is smaller (under program_scope
// planes it occupies only its planes). The engine does so when nothing
// else is left to happen (unstick), so that a run that never gets there
// is unchanged.
func (e *engine) flushIfStuck(stack int) {
	s := &e.hbf[stack]
	p := &e.pools[e.cfg.rt.sramPool[stack]]
	if p.free > 0 || s.programActive || len(s.progPending) > 0 || (!s.tsvWait && len(p.wait[0])+len(p.wait[1]) == 0) {
		return
	}
	best := int32(-1)
	for _, id := range e.active {
		st := &e.streams[id]
		hops := e.routeOf(id).hops
		if st.progBuf.slots == 0 || hops[len(hops)-1].program != int32(stack) {
			continue
		}
		if best < 0 || st.progBuf.bytes > e.streams[best].progBuf.bytes {
			best = id
		}
	}
	if best < 0 {
		return
	}
	st := &e.streams[best]
	s.progPending = append(s.progPending, st.progBuf)
	st.progBuf = progWave{}
	s.flushes++
	e.kickArray(stack)
}

// unstick breaks a stall in which no event is pending (flushIfStuck on
// every stack) and reports whether events are pending again.
func (e *engine) unstick() bool {
	for i := range e.hbf {
		e.flushIfStuck(i)
	}
	return len(e.q) > 0
}

// ---- delivery and operators -----------------------------------------

// deliver records bytes that reached their destination.
func (e *engine) deliver(id int32, b unit.Bytes) {
	st := &e.streams[id]
	st.done += b
	e.st.delivered[e.cfg.rt.routes[st.route].kind] += b
	if e.audit != nil {
		e.audit.delivered(st, &e.cfg.rt.routes[st.route], b)
	}
	if st.done < st.total {
		return
	}
	st.finished = true
	e.changed()
	e.finishEpoch = e.epoch
	if k := slices.Index(e.active, id); k >= 0 {
		e.active = slices.Delete(e.active, k, k+1)
	}
	if st.consumer < 0 {
		e.writesPending--
		if e.writesPending == 0 && e.pc >= len(e.ops) {
			e.passEnded = true
		}
		return
	}
	op := &e.ops[st.consumer]
	op.pending--
	op.lastBytes = b
	if op.pending == 0 && op.started {
		e.finishOp(int(st.consumer))
	}
}

// finishOp schedules the end of an operator whose data have all arrived:
// Overhead + max(compute, delivery + the compute of the last chunk).
func (e *engine) finishOp(i int) {
	op := &e.ops[i]
	spec := &e.pass.ops[i]
	tail := Time(0)
	if op.total > 0 {
		tail = Time(float64(spec.compute) * float64(op.lastBytes) / float64(op.total))
	}
	end := max(op.computeDone, e.now+tail) + spec.overhead
	e.schedule(end, evOpEnd, -1, int32(i), 0)
}

func (e *engine) handle(ev event) {
	sg := seg{stream: ev.stream, bytes: ev.bytes}
	switch ev.kind {
	case evHopDone:
		e.onHopDone(int(ev.at), sg)
	case evOpEnd:
		e.onOpEnd(int(ev.stream))
	case evArrayDone:
		e.onArrayDone(int(ev.at), ev.stream)
	case evTSVDone:
		e.onTSVDone(int(ev.at), sg)
	case evProgTSVDone:
		e.release(e.cfg.rt.sramPool[ev.at], int(ev.bytes))
	}
}

// popFront removes the first element of a queue. A short queue moves the
// others down, so that it keeps its capacity (appends then rarely
// allocate); a long one (the paper reading senses every wave of an
// operator at once, and hundreds wait in the data registers) drops its
// head instead, so that draining it costs O(1) a pop, not O(n).
func popFront[T any](q []T) []T {
	var zero T
	if len(q) > popShiftMax {
		q[0] = zero
		return q[1:]
	}
	n := copy(q, q[1:])
	q[n] = zero
	return q[:n]
}

// popShiftMax is the longest queue popFront shifts down.
const popShiftMax = 16
