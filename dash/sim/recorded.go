package sim

import (
	"encoding/binary"
	"fmt"
	"maps"
	"math"
	"math/bits"
	"slices"

	"github.com/dashlab/dashlab/dash"
	trace "github.com/dashlab/dashlab/dash/routing"
	"github.com/dashlab/dashlab/dash/unit"
)

// Recorded routing (workload.routing kinds trace and synthetic): before a
// pass's program is built, the tokens it processes are looked up in the
// routing source (package routing), and each MoE layer's load is counted:
// the distinct experts selected (read whole, as under every routing) and
// the token-expert rows (the grouped GEMM is timed as that many experts of
// equal rows, their mean). The expert cache, when the experiment has one,
// is asked which of them it holds (read from HBM) and which it fills. The
// loads are the pass's routing: two passes with the same kernels and the
// same loads run the same program, so the exact shortcuts hold unchanged
// (whole passes replay when a step's loads and KV blocks repeat; segments
// replay when a layer's operators and state repeat).

// firstUseSpan is the shortest request prefix whose experts are read from
// the trace's first-use table (routing.Bound.FirstUse) rather than token
// by token.
const firstUseSpan = 64

// span is a run of one request's tokens in a pass: tokens tok..tok+n-1
// of request req.
type span struct{ req, tok, n int }

// recorded routes a simulation's passes per token.
type recorded struct {
	src   trace.Source
	cache *trace.Cache
	moe   []int // decoder layer -> MoE ordinal (-1: dense)
	moeAt []int // MoE ordinal -> decoder layer
	k, e  int
	// cur holds each decoder layer's load of the pass being built.
	cur []ExpertLoad
	// sel is the pass's selected experts, a bit set of words words per
	// MoE ordinal (bit x of word w: expert 64w + x); touched lists one
	// ordinal's in id order for the cache.
	sel     []uint64
	words   int
	touched []uint16
	// intern numbers the distinct load patterns (keys of the replay memos);
	// numbers are never reused, so a dropped map entry cannot alias.
	intern map[string]int32
	nextID int32
	key    []byte
	stats  RoutingStats
	// distinct histogram of decode steps' layers (index: distinct experts)
	distinct []int64
	// steps counts the decode steps' durations (the fixed-batch runner's
	// steps, a Passer's passes whose rows all decode); nSteps is their
	// number. Counts, not a list: a long serving run repeats durations,
	// and memory stays bounded by the distinct ones.
	steps  map[Time]int64
	nSteps int64
	spans  []span
	splits map[splitLoad]routeSplit
	// lastLoad and lastSplit are the last layer's entry of splits.
	lastLoad  splitLoad
	lastSplit routeSplit
	hasLast   bool
	expert    []unit.Bytes
	shared    []unit.Bytes
	sharedN   int
	eng       *engine   // the engine whose route sets the experts take
	sp        *splitter // the perfect split's (idealSplit)
}

// newRecorded prepares per-token routing for exp, or returns nil for the
// formula kinds.
func newRecorded(exp dash.Experiment, layers []dash.LayerWeights) (*recorded, error) {
	src := exp.RoutingSource()
	if src == nil {
		return nil, nil
	}
	m := exp.Model()
	rm := m.RoutingModel()
	r := &recorded{src: src, moe: make([]int, m.NumLayers), moeAt: rm.MoELayers, k: rm.TopK, e: rm.Experts,
		cur: make([]ExpertLoad, m.NumLayers), words: (rm.Experts + 63) / 64, intern: map[string]int32{}, nextID: 1,
		distinct: make([]int64, rm.Experts+1), steps: map[Time]int64{}, sharedN: m.FFN.SharedExperts, splits: map[splitLoad]routeSplit{}}
	for i := range r.moe {
		r.moe[i] = -1
	}
	r.sel = make([]uint64, len(rm.MoELayers)*r.words)
	var largest unit.Bytes
	for o, l := range rm.MoELayers {
		r.moe[l] = o
		r.expert = append(r.expert, layers[l].RoutedExpert)
		sh := unit.Bytes(0)
		if r.sharedN > 0 {
			sh = layers[l].SharedExperts / unit.Bytes(r.sharedN)
		}
		r.shared = append(r.shared, sh)
		largest = max(largest, layers[l].RoutedExpert)
	}
	w := exp.Workload()
	r.stats = RoutingStats{Kind: w.Routing.EffectiveKind(), Source: sourceName(exp)}
	if c := exp.Execution().ExpertCache; c.Enabled() && largest > 0 {
		capacity := int(c.Budget / largest)
		var profile []int64
		if c.EffectivePolicy() == trace.PolicyStatic {
			var err error
			if profile, err = r.profile(exp); err != nil {
				return nil, err
			}
		}
		cache, err := trace.NewCache(c.EffectivePolicy(), capacity, len(rm.MoELayers), rm.Experts, profile)
		if err != nil {
			return nil, err
		}
		r.cache = cache
		r.stats.Cache = &CacheStats{Policy: c.EffectivePolicy(), Budget: c.Budget, Capacity: cache.Capacity()}
	}
	return r, nil
}

func sourceName(exp dash.Experiment) string {
	if b := exp.RoutingTraceBound(); b != nil {
		return b.Trace().Name()
	}
	s := exp.Workload().Routing.Synthetic()
	return fmt.Sprintf("synthetic(seed %d, zipf_s %g, repeat %g, layer_corr %g, tasks %d, task_overlap %g)", s.Seed, s.Skew, s.Repeat, s.LayerCorr, max(1, s.Tasks), s.TaskOverlap)
}

// profile counts the selections the static cache pins by: the whole
// trace, or the generator's draws for the experiment's own requests (B
// requests of prompt + output - 1 tokens).
func (r *recorded) profile(exp dash.Experiment) ([]int64, error) {
	p := make([]int64, len(r.moeAt)*r.e)
	count := func(ids []uint16) {
		for o := range r.moeAt {
			for _, x := range ids[o*r.k : (o+1)*r.k] {
				p[o*r.e+int(x)]++
			}
		}
	}
	if b := exp.RoutingTraceBound(); b != nil {
		t := b.Trace()
		for q := range t.Requests() {
			for tok := range t.Tokens(q) {
				ids, err := b.Token(q, tok)
				if err != nil {
					return nil, err
				}
				count(ids)
			}
		}
		return p, nil
	}
	src := exp.RoutingSource() // a fresh generator: the run's own draws
	w := exp.Workload()
	for q := range w.Batch {
		for tok := range w.Prompt + w.Output - 1 {
			ids, err := src.Token(q, tok)
			if err != nil {
				return nil, err
			}
			count(ids)
		}
	}
	return p, nil
}

// route counts the loads of a pass over spans into cur and returns the
// number identifying them (equal loads, equal number).
func (r *recorded) route(spans []span, decode bool) (int32, error) {
	clear(r.sel)
	tokens := 0
	bound, _ := r.src.(*trace.Bound)
	W := r.words
	for _, s := range spans {
		tokens += s.n
		if bound != nil && s.tok == 0 && s.n >= firstUseSpan {
			// a request's prefix (a prompt): its experts from the trace's
			// first-use table instead of a walk over its tokens
			p, err := bound.PrefixSets(s.req, s.n)
			if err != nil {
				return 0, err
			}
			orSets(r.sel, p)
			continue
		}
		if bound != nil {
			for t := s.tok; t < s.tok+s.n; t++ {
				p, err := bound.Sets(s.req, t)
				if err != nil {
					return 0, err
				}
				orSets(r.sel, p)
			}
			continue
		}
		for t := s.tok; t < s.tok+s.n; t++ {
			ids, err := r.src.Token(s.req, t)
			if err != nil {
				return 0, err
			}
			for o := range r.moeAt {
				set := r.sel[o*W : (o+1)*W : (o+1)*W]
				for _, x := range ids[o*r.k : (o+1)*r.k] {
					set[x>>6] |= 1 << (x & 63)
				}
			}
		}
	}
	r.key = r.key[:0]
	picks := tokens * r.k
	for o, l := range r.moeAt {
		set := r.sel[o*W : (o+1)*W]
		active := 0
		for _, w := range set {
			active += bits.OnesCount64(w)
		}
		ld := ExpertLoad{Active: active, Rows: picks}
		if r.cache != nil { // the cache sees a pass's experts in id order
			r.touched = r.touched[:0]
			for wi, w := range set {
				for ; w != 0; w &= w - 1 {
					r.touched = append(r.touched, uint16(wi*64+bits.TrailingZeros64(w)))
				}
			}
			ld.Cached, ld.Filled = r.cache.Access(o, r.touched, nil)
		}
		r.cur[l] = ld
		r.key = binary.AppendUvarint(r.key, uint64(active))
		r.key = binary.AppendUvarint(r.key, uint64(ld.Cached))
		r.key = binary.AppendUvarint(r.key, uint64(ld.Filled))
		if decode {
			r.distinct[active]++
		}
		r.account(o, ld)
	}
	r.key = binary.AppendUvarint(r.key, uint64(picks))
	r.stats.Passes++
	if decode {
		r.stats.DecodeSteps++
	}
	id, ok := r.intern[string(r.key)]
	if !ok {
		if len(r.intern) >= 1<<16 {
			clear(r.intern)
		}
		id = r.nextID
		r.nextID++
		r.intern[string(r.key)] = id
	}
	return id, nil
}

// orSets adds the bit sets p (a token's or a prefix's selections, laid
// out as sel) into sel.
func orSets(sel, p []uint64) {
	p = p[:len(sel)]
	i := 0
	for ; i+4 <= len(sel); i += 4 {
		s, q := sel[i:i+4:i+4], p[i:i+4:i+4]
		s[0] |= q[0]
		s[1] |= q[1]
		s[2] |= q[2]
		s[3] |= q[3]
	}
	for ; i < len(sel); i++ {
		sel[i] |= p[i]
	}
}

// account adds MoE layer o's load of a pass to the statistics: the bytes
// each route set carries (the engine's whole-expert assignment, shared
// experts first, the cached experts on the GPU-HBM links) and the time
// each set takes at its rate, against the time of a perfect split.
func (r *recorded) account(o int, ld ExpertLoad) {
	st := &r.stats
	size := r.expert[o]
	st.SelectedExperts += int64(ld.Active)
	if c := st.Cache; c != nil {
		c.Hits += int64(ld.Cached)
		c.Misses += int64(ld.Active - ld.Cached)
		c.Fills += int64(ld.Filled)
		c.FillBytes += unit.Bytes(ld.Filled) * size
	}
	if r.eng == nil || r.eng.cfg.nHBF == 0 {
		return
	}
	key := splitLoad{size: size, shared: r.shared[o], active: ld.Active, cached: ld.Cached}
	a := r.lastSplit
	if !r.hasLast || key != r.lastLoad { // consecutive layers mostly repeat
		var ok bool
		if a, ok = r.splits[key]; !ok {
			a = r.assign(key)
			if len(r.splits) >= 1<<14 {
				clear(r.splits)
			}
			r.splits[key] = a
		}
		r.lastLoad, r.lastSplit, r.hasLast = key, a, true
	}
	st.DirectBytes += a.direct
	st.RelayBytes += a.relay
	st.CachedBytes += a.cached
	st.DirectTime += a.td
	st.RelayTime += a.tr
	st.MakespanTime += max(a.td, a.tr)
	st.IdealTime += a.ideal
}

// splitLoad is what an MoE layer's route assignment depends on.
type splitLoad struct {
	size, shared   unit.Bytes
	active, cached int
}

// routeSplit is an MoE layer's route assignment and its times.
type routeSplit struct {
	direct, relay, cached unit.Bytes
	td, tr, ideal         Time
}

// assign is the engine's assignment of a layer's experts (routedParts)
// and the time each kind of route set (Direct, Relay) takes to carry its
// share at its rate. The selected experts the HBM expert cache holds are
// read as the engine reads them, over the HBM stacks' read routes (evenly,
// at the route table's costs: the DRAM array, slower than the link on the
// paper's parts, and the GPU-HBM link the Relay set drains over): each
// resource those reads load takes its bytes and those of the route sets
// crossing it at its rate, and the later of that and the set's own time
// is the set's (a resource no set crosses, the HBM array, counts on the
// Relay set). The perfect split divides the same HBF bytes, fractionally,
// by the engine's split rule (water-filling the route table's resources
// with the cached reads already on them).
func (r *recorded) assign(k splitLoad) routeSplit {
	e := r.eng
	c := &e.cfg
	spec := opSpec{sharedN: r.sharedN, sharedBytes: k.shared, routedN: k.active, cachedN: k.cached, expertSize: k.size}
	n := len(c.setRate)
	shared := e.assignExperts(spec.sharedN, spec.sharedBytes, nil, 0, make([]unit.Bytes, n))
	sets := e.assignExperts(spec.routedN-spec.cachedN, spec.expertSize, shared, spec.cachedBytes(), make([]unit.Bytes, n))
	a := routeSplit{cached: spec.cachedBytes()}
	rt := &c.rt
	nF := float64(c.nHBF)
	var rd, rr, all float64
	var td, tr float64
	for s := range sets {
		rate := c.setRate[s] * nF
		t := float64(shared[s]+sets[s]) / rate
		all += float64(shared[s] + sets[s])
		if rt.routes[rt.hbfRead[0][s]].kind == RouteRelay {
			a.relay += sets[s]
			rr += rate
			tr = max(tr, t)
		} else {
			a.direct += sets[s]
			rd += rate
			td = max(td, t)
		}
	}
	if !c.dualPath || n < 2 { // a single path: nothing to balance
		return a
	}
	ideal := all / (rd + rr)
	if a.cached > 0 {
		cd, cr := r.cachedTimes(shared, sets, a.cached)
		td, tr = max(td, cd), max(tr, cr)
		ideal = r.idealSplit(unit.Bytes(all), a.cached)
	}
	a.td, a.tr, a.ideal = Time(td*1e9), Time(tr*1e9), Time(ideal*1e9)
	return a
}

// cachedTimes is the time of the resources the cached experts' HBM reads
// load, each busy for those reads and for the route sets' bytes crossing
// it, the latest of the resources each kind of set crosses (Direct,
// Relay; a resource no set crosses counts on Relay).
func (r *recorded) cachedTimes(shared, sets []unit.Bytes, cached unit.Bytes) (td, tr float64) {
	rt := &r.eng.cfg.rt
	load := make([]float64, len(rt.cap))
	touched := r.eng.cfg.rt.loadHBMReads(cached, load, nil)
	direct := make([]bool, len(rt.cap))
	relay := make([]bool, len(rt.cap))
	for _, j := range touched {
		relay[j] = true // the HBM array's, unless a set crosses it
	}
	crossed := make([]bool, len(rt.cap))
	for stack, rs := range rt.hbfRead {
		for s, id := range rs {
			if s >= len(sets) {
				break
			}
			part := float64(perStack(shared[s]+sets[s], rt.nHBF, stack))
			rr := &rt.routes[id]
			for q, j := range rr.uses {
				if load[j] == 0 && !crossed[j] {
					continue // a resource the cached reads leave alone: the set's own time counts it
				}
				if !crossed[j] {
					crossed[j], relay[j] = true, false
				}
				load[j] += part * rr.cost[q]
				if rr.kind == RouteRelay {
					relay[j] = true
				} else {
					direct[j] = true
				}
			}
		}
	}
	for _, j := range touched {
		t := load[j] / rt.cap[j]
		if direct[j] {
			td = max(td, t)
		}
		if relay[j] {
			tr = max(tr, t)
		}
	}
	return td, tr
}

// idealSplit is the time of the perfect split of b HBF bytes (evenly over
// the HBF stacks, each stack's part divided fractionally over its read
// routes by the split rule's water-fill) with cached bytes read from HBM
// beside them: the latest resource, the ones every read route of a stack
// crosses alike (its array and TSV) aside, as the route sets' rates
// leave them out.
func (r *recorded) idealSplit(b, cached unit.Bytes) float64 {
	rt := &r.eng.cfg.rt
	if r.sp == nil {
		r.sp = newSplitter(rt)
	}
	sp := r.sp
	load := make([]float64, len(rt.cap))
	touched := r.eng.cfg.rt.loadHBMReads(cached, load, nil)
	ideal := 0.0
	for _, j := range touched {
		ideal = max(ideal, load[j]/rt.cap[j])
	}
	for stack, rs := range rt.hbfRead {
		part := perStack(b, rt.nHBF, stack)
		if part <= 0 || len(rs) == 0 {
			continue
		}
		sp.mark(rs)
		for _, j := range touched {
			sp.held[j] += load[j]
		}
		sp.scratch(len(rs))
		sp.fillOrder(rs)
		sp.fill(part, rs, sp.x)
		x := sp.x
		for k, id := range rs {
			if math.IsInf(x[k], 0) || math.IsNaN(x[k]) {
				continue // no resource of the split limits the route
			}
			rr := &rt.routes[id]
			for q, j := range rr.uses {
				if !sp.decides(j, len(rs)) {
					continue
				}
				if load[j] == 0 {
					touched = append(touched, j)
				}
				load[j] += x[k] * rr.cost[q]
			}
		}
		for _, j := range touched {
			sp.held[j] = 0
		}
		sp.reset(rs, nil)
		for _, j := range touched {
			ideal = max(ideal, load[j]/rt.cap[j])
		}
	}
	return ideal
}

// step counts a decode step of duration d.
func (r *recorded) step(d Time) {
	r.steps[d]++
	r.nSteps++
}

// finish computes the statistics' derived fields.
func (r *recorded) finish() *RoutingStats {
	st := r.stats
	if st.Cache != nil {
		c := *st.Cache
		if n := c.Hits + c.Misses; n > 0 {
			c.HitRate = float64(c.Hits) / float64(n)
		}
		st.Cache = &c
	}
	if st.IdealTime > 0 {
		st.Imbalance = float64(st.MakespanTime)/float64(st.IdealTime) - 1
	}
	var n, sum int64
	for d, c := range r.distinct {
		n += c
		sum += int64(d) * c
	}
	if n > 0 {
		st.DistinctMean = float64(sum) / float64(n)
		st.DistinctMin, st.DistinctMax = -1, 0
		var seen int64
		for d, c := range r.distinct {
			if c == 0 {
				continue
			}
			if st.DistinctMin < 0 {
				st.DistinctMin = d
			}
			st.DistinctMax = d
			if seen += c; st.DistinctP50 == 0 && seen*2 >= n {
				st.DistinctP50 = d
			}
		}
	}
	if n := r.nSteps; n > 0 {
		d := slices.Sorted(maps.Keys(r.steps))
		q := func(p float64) Time { // the step at index floor(p n) of the sorted durations
			i, seen := min(n-1, int64(p*float64(n))), int64(0)
			for _, t := range d {
				if seen += r.steps[t]; seen > i {
					return t
				}
			}
			return d[len(d)-1]
		}
		st.StepP50, st.StepP90, st.StepP99, st.StepMax = q(0.5), q(0.9), q(0.99), d[len(d)-1]
	}
	return &st
}

// RoutingStats is what per-token routing did in a run (kinds trace and
// synthetic): the passes routed, the distinct experts a decode step reads
// per MoE layer, how the selected experts split over the route sets under
// DASH's whole-expert assignment (§VI-E), the expert cache's work and the
// decode steps' tail.
type RoutingStats struct {
	// Kind is the routing kind; Source the trace file or the generator.
	Kind   string `json:"kind"`
	Source string `json:"source"`
	// Passes counts the passes routed (prefill and decode); DecodeSteps the
	// decode steps among them.
	Passes      int64 `json:"passes"`
	DecodeSteps int64 `json:"decode_steps"`
	// SelectedExperts sums the distinct experts of every pass and MoE
	// layer.
	SelectedExperts int64 `json:"selected_experts"`
	// DistinctMean, P50, Min and Max are the distinct experts one MoE layer
	// of a decode step reads.
	DistinctMean float64 `json:"distinct_mean"`
	DistinctP50  int     `json:"distinct_p50"`
	DistinctMin  int     `json:"distinct_min"`
	DistinctMax  int     `json:"distinct_max"`
	// DirectBytes and RelayBytes are the selected experts' bytes assigned to
	// each HBF route set; CachedBytes those read from the HBM expert cache.
	DirectBytes unit.Bytes `json:"direct_bytes"`
	RelayBytes  unit.Bytes `json:"relay_bytes"`
	CachedBytes unit.Bytes `json:"cached_bytes"`
	// DirectTime and RelayTime sum, over every pass and MoE layer, the time
	// each route set takes to carry its experts (shared experts included)
	// at its rate, and the cached experts' HBM reads as the engine reads
	// them (every resource they load at its rate, with the sets' bytes
	// crossing it: the HBM arrays, counted on the Relay set, and the
	// GPU-HBM links the Relay set drains over); MakespanTime sums the
	// later of the two, the expert-delivery time max(T_Direct, T_Relay) of
	// §VI-E, and IdealTime the time of a perfect split of the same bytes
	// (the split rule's, fractional, with the cached reads). Imbalance is
	// MakespanTime / IdealTime - 1: what assigning whole experts costs (0:
	// none). Zero on a single-path system (one route set).
	DirectTime   Time    `json:"direct_time_ns"`
	RelayTime    Time    `json:"relay_time_ns"`
	MakespanTime Time    `json:"makespan_time_ns"`
	IdealTime    Time    `json:"ideal_time_ns"`
	Imbalance    float64 `json:"imbalance"`
	// StepP50, P90, P99 and Max are the decode steps' durations (the tail
	// routing adds to TPOT): the fixed-batch runner's steps; in serving,
	// the passes whose rows all decode (those DecodeSteps counts; a pass
	// that also prefills is not one).
	StepP50 Time `json:"step_p50_ns"`
	StepP90 Time `json:"step_p90_ns"`
	StepP99 Time `json:"step_p99_ns"`
	StepMax Time `json:"step_max_ns"`
	// Cache is the expert cache's work (nil: no cache).
	Cache *CacheStats `json:"cache,omitempty"`
}

// CacheStats is the HBM expert cache's work over a run.
type CacheStats struct {
	// Policy is the replacement policy; Budget its HBM; Capacity the
	// experts it holds.
	Policy   string     `json:"policy"`
	Budget   unit.Bytes `json:"budget_bytes"`
	Capacity int        `json:"capacity_experts"`
	// Hits and Misses count the selected experts (distinct per pass and
	// layer) it held and did not; HitRate is Hits / (Hits + Misses).
	Hits    int64   `json:"hits"`
	Misses  int64   `json:"misses"`
	HitRate float64 `json:"hit_rate"`
	// Fills counts the misses written into HBM, FillBytes their bytes.
	Fills     int64      `json:"fills"`
	FillBytes unit.Bytes `json:"fill_bytes"`
}

// routeFixed routes the fixed-batch runner's pass: the prefill (the B
// prompts, tokens 0 .. ctx-1) or decode step step (token ctx-1 of each of
// the B requests). A no-op for the formula kinds.
func (b *programBuilder) routeFixed(step, ctx int, decode bool) error {
	if b.rec == nil {
		return nil
	}
	spans := b.rec.spans[:0]
	for q := range b.w.Batch {
		if decode {
			spans = append(spans, span{req: q, tok: ctx - 1, n: 1})
		} else {
			spans = append(spans, span{req: q, tok: 0, n: ctx})
		}
	}
	b.rec.spans = spans
	id, err := b.rec.route(spans, decode)
	b.routeID = id
	return err
}

// routeRows routes a heterogeneous pass: each row's tokens of its request
// (a decode row its token Cached, a prefill chunk its tokens Cached ..
// Cached+Tokens-1).
func (b *programBuilder) routeRows(rows []Row) error {
	spans := b.rec.spans[:0]
	decode := true
	for _, r := range rows {
		spans = append(spans, span{req: r.Request, tok: r.Cached, n: r.Tokens})
		decode = decode && r.Decode()
	}
	b.rec.spans = spans
	id, err := b.rec.route(spans, decode)
	b.routeID = id
	return err
}
