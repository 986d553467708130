package sim

import (
	"cmp"
	"math"
	"slices"

	"github.com/dashlab/dashlab/dash/unit"
)

// The one split rule.
//
// The bytes an operator reads of one item (its weights, the HBF-resident
// KV it attends over) in one stack pair are divided over the routes that
// can carry them (in the route table's order of preference) so that its
// reads finish first: the minimum-makespan split over the resources of
// the route table. A byte over route r costs a_rj seconds of resource j
// (1/rate of each link direction, DRAM or NAND array and TSV it crosses;
// for an SRAM region pool, the time a chunk holds its region per byte: the
// sum of 1/rate over the hops it crosses while it holds it), and resource
// j offers cap_j seconds a second (1 for a server, its regions for a
// pool); with s_j seconds of it already taken by the same operator (its
// HBM KV on a GPU-HBM link), choose x_r >= 0 with sum x_r = B minimising T
// such that
//
//	s_j + sum over the routes r through j of a_rj x_r <= cap_j T   for every j.
//
// Only the resources whose load the split changes decide it: a resource
// every route crosses at the same cost (all HBF routes of a stack sense on
// its NAND array and fill over its TSV) carries the same load whatever the
// split, so it bounds T, not the split, and a split optimal without it is
// optimal with it. That is what keeps an array-bound stack's routes
// balanced.
//
// The problem is solved by water-filling: raise the level T; each route in
// order of preference takes, at level T, what its resources have left
// ((cap_j T - s_j - what earlier routes took of j) / a_rj, the least over
// its resources); T* is the lowest level at which they take B. Why
// water-filling, not a general LP: the routes of one pair share few
// resources, in the series-parallel way the table builds them (each route
// has its own link hops and shares at most the GPU-HBM link, the array,
// the TSV and the transfer SRAM with the others), for which the greedy
// fill at a level is the largest flow at that level, so the fill is exact;
// it is a few dozen operations, cheap enough for every operator of every
// simulated pass, and when the optimum is not unique (a common bottleneck)
// the preference order breaks the tie: the route with fewest hops first
// (HBM, then Direct, then Relay). TestSplitIsTheLPOptimum checks the fill
// against gonum's simplex on random pairs.
//
// Without work already on the resources the fill is linear in T: each
// route's share is what it takes at T = 1 (HBM 1.2, Direct 1.6 and Relay
// 0.4 TB/s for DASH's replicated weights: the HBM read leaves the GPU-HBM
// link 0.4 TB/s), and x_r = B x share / sum of shares. With the HBM KV on
// the GPU-HBM links, DASH's HBF KV f splits where the two GPU-facing links
// finish together: (h + R)/L = (f - R)/L, R = (f - h)/2 (the former
// balancedRelay is the symmetric case). A relay SRAM of one region cannot
// overlap a chunk's two link hops, and the rule sees it: such a Relay
// route passes 1/(1/L_in + 1/L_out), not min(L_in, L_out).
//
// The parts are rounded to the transfer-chunk grid: each route but the
// first takes its share rounded down to the byte, and, for the KV, from one
// grain (a transfer chunk per stack) up to the nearest multiple of it, so
// that the split of successive decode steps, whose HBM KV grows by one
// token, stays the same between chunk boundaries (the replayed segments and
// forked kernels key on it); the first route takes the rest, so that no
// byte is lost.

// load is work already on a resource: the seconds of it the same
// operator's other reads take.
type load struct {
	res  int32
	secs float64
}

// splitter solves the splits of one engine; its scratch is reused (the
// engine keeps the parts of each operator size, readParts).
type splitter struct {
	rt *routing
	// per resource (scratch): the routes of the item crossing it and the
	// cost of the first of them, whether the cost differs between them,
	// what earlier routes took of it and what is committed on it
	count []int
	first []float64
	mixed []bool
	used  []float64
	held  []float64
	// per-route scratch of fill, and the order the routes fill in
	x, alpha, beta []float64
	bind, order    []int
}

func newSplitter(rt *routing) *splitter {
	n := len(rt.rate)
	return &splitter{rt: rt, count: make([]int, n), first: make([]float64, n), mixed: make([]bool, n),
		used: make([]float64, n), held: make([]float64, n)}
}

// scratch sizes sp's per-route slices for n routes, cleared.
func (sp *splitter) scratch(n int) {
	if cap(sp.x) < n {
		sp.x, sp.alpha, sp.beta = make([]float64, n), make([]float64, n), make([]float64, n)
		sp.bind, sp.order = make([]int, n), make([]int, n)
	}
	sp.x, sp.alpha, sp.beta, sp.bind, sp.order = sp.x[:n], sp.alpha[:n], sp.beta[:n], sp.bind[:n], sp.order[:n]
	clear(sp.x)
	clear(sp.alpha)
	clear(sp.beta)
}

// divide puts in out[k] the bytes of b that route rs[k] carries (rs in the
// order of preference), given the work already on the resources.
func (sp *splitter) divide(b unit.Bytes, rs []int32, committed []load, grain unit.Bytes, out []unit.Bytes) {
	clear(out)
	switch {
	case len(rs) == 0 || b <= 0:
		return
	case len(rs) == 1:
		out[0] = b
		return
	}
	sp.mark(rs)
	defer sp.reset(rs, committed)
	busy := false
	for _, l := range committed {
		if sp.decides(l.res, len(rs)) && l.secs > 0 {
			busy = true
		}
		sp.held[l.res] += l.secs
	}
	sp.scratch(len(rs))
	sp.fillOrder(rs)
	x := sp.x
	if busy {
		sp.fill(b, rs, x)
		sp.round(b, x, grain, out)
		return
	}
	for _, l := range committed {
		sp.held[l.res] = 0
	}
	sp.take(rs, 1, x)
	var sum float64
	inf := -1
	for k, v := range x {
		if math.IsInf(v, 1) && inf < 0 {
			inf = k
		}
		sum += v
	}
	switch {
	case inf >= 0: // a route no resource of the split limits takes it all
		clear(x)
		x[inf] = float64(b)
	case sum > 0:
		for k := range x {
			x[k] = float64(b) * x[k] / sum
		}
	default:
		x[0] = float64(b)
	}
	sp.round(b, x, grain, out)
}

// mark counts, for every resource, the routes of rs that load it and
// whether they do at different costs.
func (sp *splitter) mark(rs []int32) {
	for _, r := range rs {
		rr := &sp.rt.routes[r]
		for k, j := range rr.uses {
			if sp.count[j] == 0 {
				sp.first[j] = rr.cost[k]
			} else if c := rr.cost[k]; math.Abs(c-sp.first[j]) > 1e-12*sp.first[j] {
				sp.mixed[j] = true
			}
			sp.count[j]++
		}
	}
}

func (sp *splitter) reset(rs []int32, committed []load) {
	for _, r := range rs {
		for _, j := range sp.rt.routes[r].uses {
			sp.count[j], sp.mixed[j], sp.used[j], sp.held[j] = 0, false, 0, 0
		}
	}
	for _, l := range committed {
		sp.held[l.res] = 0
	}
}

// fillOrder puts in sp.order the order in which the routes fill: the
// order of preference, except that the routes that share a resource at
// different costs (the transfer SRAM of an HBF stack whose routes leave
// it over links of different rates) fill the cheapest first, as a
// fractional knapsack does.
func (sp *splitter) fillOrder(rs []int32) {
	key := sp.alpha // free until fill
	for k, r := range rs {
		sp.order[k] = k
		key[k] = 0
		rr := &sp.rt.routes[r]
		for q, j := range rr.uses {
			if sp.mixed[j] {
				key[k] += rr.cost[q]
			}
		}
	}
	slices.SortStableFunc(sp.order, func(a, b int) int { return cmp.Compare(key[a], key[b]) })
	clear(key)
}

// decides reports whether the load of resource j depends on how an item
// is split over n routes: some route does not cross it, or they cross it
// at different costs.
func (sp *splitter) decides(j int32, n int) bool {
	return sp.count[j] > 0 && (sp.count[j] < n || sp.mixed[j])
}

// take puts in x[k] what route rs[k] takes at level t: the routes in order
// each take the least their deciding resources have left, (cap t - held -
// used) / cost; +Inf for a route none of them limits.
func (sp *splitter) take(rs []int32, t float64, x []float64) {
	rt := sp.rt
	for _, k := range sp.order {
		rr := &rt.routes[rs[k]]
		v := math.Inf(1)
		for q, j := range rr.uses {
			if sp.decides(j, len(rs)) {
				v = min(v, (rt.cap[j]*t-sp.held[j]-sp.used[j])/rr.cost[q])
			}
		}
		v = max(0, v)
		x[k] = v
		if math.IsInf(v, 1) {
			continue
		}
		for q, j := range rr.uses {
			sp.used[j] += v * rr.cost[q]
		}
	}
	for _, r := range rs {
		for _, j := range rt.routes[r].uses {
			sp.used[j] = 0
		}
	}
}

// fill finds the lowest level T* at which the routes take b and the exact
// parts there. What the routes take is piecewise linear in the level:
// from a level t, the piece t lies on gives the level where it reaches b
// (a Newton step, exact on a linear piece); when that level lies on
// another piece, the step is taken again from there, and after a few
// steps that do not settle, bisection finds the piece.
func (sp *splitter) fill(b unit.Bytes, rs []int32, x []float64) {
	want := float64(b)
	total := func(t float64) float64 {
		sp.take(rs, t, x)
		s := 0.0
		for _, v := range x {
			s += v
		}
		return s
	}
	// Start where the routes alone would take b, beside no other work:
	// the load already on the resources only raises the level.
	t := 1e-9
	if s := total(1); s > 0 && !math.IsInf(s, 1) {
		t = want / s
	}
	for range 8 {
		got := total(t)
		if math.Abs(got-want) <= 1e-9*want {
			sp.exact(rs, t, want, x)
			return
		}
		ts, ok := sp.piece(rs, t, want, x)
		if !ok || ts <= 0 || math.IsInf(ts, 0) || math.IsNaN(ts) || ts == t {
			break
		}
		t = ts
	}
	lo, hi := 0.0, 1e-9
	for i := 0; total(hi) < want && i < 200; i++ {
		lo, hi = hi, hi*2
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid <= lo || mid >= hi {
			break
		}
		if total(mid) < want {
			lo = mid
		} else {
			hi = mid
		}
	}
	sp.exact(rs, (lo+hi)/2, want, x)
}

// exact puts in x the parts on the linear piece level t lies on, at the
// level where they take want (the bisection's parts when the piece does
// not rise).
func (sp *splitter) exact(rs []int32, t, want float64, x []float64) {
	sp.take(rs, t, x)
	ts, ok := sp.piece(rs, t, want, x)
	if !ok {
		return // keep the parts at t
	}
	for k := range rs {
		if sp.bind[k] >= 0 {
			x[k] = max(0, sp.alpha[k]*ts+sp.beta[k])
		}
	}
}

// piece finds, from the parts x the routes take at level t, the linear
// piece t lies on, each taking route's part alpha T + beta (what its
// binding resource has left at T, (cap T - held - the earlier routes'
// parts times their costs) / its cost), and returns the level at which
// the piece takes want; false when the piece does not rise.
func (sp *splitter) piece(rs []int32, t, want float64, x []float64) (float64, bool) {
	rt := sp.rt
	alpha, beta, bind := sp.alpha, sp.beta, sp.bind
	for n, k := range sp.order {
		bind[k] = -1
		alpha[k], beta[k] = 0, 0
		if x[k] <= 0 {
			continue
		}
		rr := &rt.routes[rs[k]]
		best := math.Inf(1)
		for q, j := range rr.uses {
			if !sp.decides(j, len(rs)) {
				continue
			}
			left := rt.cap[j]*t - sp.held[j]
			for _, p := range sp.order[:n] {
				left -= x[p] * costOn(rt, rs[p], j)
			}
			if v := left / rr.cost[q]; v < best {
				best, bind[k] = v, q
			}
		}
		q := bind[k]
		if q < 0 {
			continue
		}
		j, c := rr.uses[q], rr.cost[q]
		alpha[k], beta[k] = rt.cap[j], -sp.held[j]
		for _, p := range sp.order[:n] {
			if cp := costOn(rt, rs[p], j); cp > 0 && x[p] > 0 {
				alpha[k] -= cp * alpha[p]
				beta[k] -= cp * beta[p]
			}
		}
		alpha[k] /= c
		beta[k] /= c
	}
	var sa, sb float64
	for k := range rs {
		sa += alpha[k]
		sb += beta[k]
	}
	if sa <= 0 {
		return 0, false
	}
	return (want - sb) / sa, true
}

// costOn is what a byte over route r costs resource j (0: r does not load
// it).
func costOn(rt *routing, r int32, j int32) float64 {
	rr := &rt.routes[r]
	for q, u := range rr.uses {
		if u == j {
			return rr.cost[q]
		}
	}
	return 0
}

// round turns the exact parts x into bytes: every route but the first its
// part rounded down (and from one grain up to the grid), the first the
// rest.
func (sp *splitter) round(b unit.Bytes, x []float64, grain unit.Bytes, out []unit.Bytes) {
	left := b
	for k := 1; k < len(x); k++ {
		v := unit.Bytes(math.Floor(x[k] + 1e-3))
		if v < 0 {
			v = 0
		}
		if grain > 1 && v >= grain {
			v = (v + grain/2) / grain * grain
		}
		v = min(v, left)
		out[k] = v
		left -= v
	}
	out[0] = left
}
