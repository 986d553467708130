package gpu

import (
	"math"
	"slices"
	"sync/atomic"

	"gonum.org/v1/gonum/interp"
)

// roof is a fitted roofline: latency = o + max(flops/p, bytes/bw), in
// seconds, bytes per second and FLOP per second.
type roof struct{ o, bw, p float64 }

func (r roof) at(w work) float64 { return r.o + math.Max(w.flops/r.p, w.bytes()/r.bw) }

// numKinds bounds the OpKind values, which index the model's tables.
const numKinds = int(Route) + 1

// famKey identifies a shape family: the shape fields that are not swept.
type famKey [3]int

// famKeyOf returns op's family: GEMM (K, N); Grouped (Hidden, Inter);
// attention (Heads, KVHeads, HeadDim); MLA (Heads, LatentDim, RopeDim);
// RMSNorm (Dim); Route (Experts, TopK).
func famKeyOf(op Op) famKey {
	switch op.Kind {
	case GEMM:
		return famKey{op.K, op.N}
	case Grouped:
		return famKey{op.Hidden, op.Inter}
	case AttnPrefill, AttnDecode:
		return famKey{op.Heads, op.KVHeads, op.HeadDim}
	case AttnDecodeMLA:
		return famKey{op.Heads, op.LatentDim, op.RopeDim}
	case RMSNorm:
		return famKey{op.Dim}
	case Route:
		return famKey{op.Experts, op.TopK}
	}
	return famKey{}
}

// withKey returns op with its family fields set to k.
func withKey(op Op, k famKey) Op {
	switch op.Kind {
	case GEMM:
		op.K, op.N = k[0], k[1]
	case Grouped:
		op.Hidden, op.Inter = k[0], k[1]
	case AttnPrefill, AttnDecode:
		op.Heads, op.KVHeads, op.HeadDim = k[0], k[1], k[2]
	case AttnDecodeMLA:
		op.Heads, op.LatentDim, op.RopeDim = k[0], k[1], k[2]
		op.HeadDim = k[1] + k[2]
	case RMSNorm:
		op.Dim = k[0]
	case Route:
		op.Experts, op.TopK = k[0], k[1]
	}
	return op
}

// coordOf places a family for the nearest-family search: the logarithms of
// its key sizes.
func coordOf(k famKey) [3]float64 {
	var c [3]float64
	for i, v := range k {
		if v > 0 {
			c[i] = math.Log(float64(v))
		}
	}
	return c
}

// is2D reports whether a kind's families are swept over two coordinates.
func is2D(k OpKind) bool { return k == Grouped || k == AttnDecode || k == AttnDecodeMLA }

// sweepOf returns op's position within its family: x1 is the outer
// coordinate of a 2-D sweep (Experts or Batch; 0 for 1-D) and x2 the inner
// one (M, rows per expert, or KV length).
func sweepOf(op Op) (x1, x2 float64) {
	switch op.Kind {
	case GEMM, RMSNorm, Route:
		return 0, float64(op.M)
	case Grouped:
		return float64(op.Experts), float64(op.Rows)
	case AttnPrefill:
		return 0, float64(op.KVLen)
	case AttnDecode, AttnDecodeMLA:
		return float64(op.Batch), float64(op.KVLen)
	}
	return 0, 1
}

// withSweep returns op moved to position (x1, x2) of its family.
func withSweep(op Op, x1, x2 float64) Op {
	n := func(x float64) int { return clampDim(int(math.Round(math.Min(x, maxDim))), 1) }
	switch op.Kind {
	case GEMM, RMSNorm, Route:
		op.M = n(x2)
	case Grouped:
		op.Experts, op.Rows = n(x1), n(x2)
	case AttnPrefill:
		op.Batch, op.QLen, op.KVLen = 1, n(x2), n(x2)
	case AttnDecode, AttnDecodeMLA:
		op.Batch, op.KVLen = n(x1), n(x2)
	}
	return op
}

// row is one family's measurements along the inner sweep coordinate x2 at a
// fixed outer one x1. It interpolates log latency over the roofline
// coordinate u = log g(x2) + tilt*log x2, where g is the kind's fitted
// roofline at the family's shape: u grows with x2, so the monotone spline
// keeps monotone data monotone, and latency is nearly linear in u across
// the memory-to-compute ridge, where it is far from linear in log x2.
type row struct {
	x1  float64
	xs  []float64 // x2 of each node, strictly increasing
	u   []float64 // roofline coordinate of each node, strictly increasing
	ly  []float64 // log latency (seconds) of each node
	spl interp.FritschButland
	// logx marks a row interpolated over log x2 instead of u.
	logx bool
}

// fit fits the row's monotone cubic (it never overshoots between nodes).
// Should rounding leave the roofline coordinate not strictly increasing, the
// row falls back to log x2.
func (r *row) fit() {
	if len(r.xs) < 2 {
		return
	}
	for i := 1; i < len(r.u); i++ {
		if !(r.u[i] > r.u[i-1]) {
			for j, x := range r.xs {
				r.u[j] = math.Log(x)
			}
			r.logx = true
			break
		}
	}
	_ = r.spl.Fit(r.u, r.ly)
}

// node returns the index of the node at x2, if there is one.
func (r *row) node(x2 float64) (int, bool) { return slices.BinarySearch(r.xs, x2) }

// tilt keeps u strictly increasing where the roofline is flat (a tiny op
// whose latency is all overhead).
const tilt = 0.05

// at returns the interpolated log latency at x2 (roofline coordinate u), or
// the edge value and the edge x2 when x2 lies outside the row.
func (r *row) at(x2, u float64) (ly, edge float64, inside bool) {
	n := len(r.xs)
	switch {
	case x2 < r.xs[0]:
		return r.ly[0], r.xs[0], false
	case x2 > r.xs[n-1]:
		return r.ly[n-1], r.xs[n-1], false
	case n == 1:
		return r.ly[0], x2, true
	}
	return r.spl.Predict(u), x2, true
}

// family is one key's measurements: a single row for 1-D kinds, one row per
// outer coordinate for 2-D kinds.
type family struct {
	key   famKey
	coord [3]float64
	rows  []row // by increasing x1
	// nb and nbw are the nearest other families and their weights.
	nb  []int
	nbw []float64
}

// rowAt returns the family's row at outer coordinate x1.
func (f *family) rowAt(x1 float64) *row {
	if len(f.rows) == 1 {
		return &f.rows[0]
	}
	for i := range f.rows {
		if f.rows[i].x1 == x1 {
			return &f.rows[i]
		}
	}
	return nil
}

// table is one operator kind's timing model: the fitted roofline and the
// measured families.
type table struct {
	kind  OpKind
	roof  roof
	fams  []family
	index map[famKey]int
	// synth caches families synthesised for unmeasured keys.
	synth synthCache
}

// sample is one measured latency.
type sample struct {
	op Op
	t  float64 // seconds
}

// neighbours is how many of the nearest measured families correct the
// roofline for a shape whose family was not measured.
const neighbours = 4

// buildTable fits a kind's roofline (starting from init) and builds its
// families from samples of that kind.
func buildTable(kind OpKind, samples []sample, init roof) *table {
	tb := &table{kind: kind, roof: init, index: map[famKey]int{}}
	if len(samples) == 0 {
		return tb
	}
	tb.roof = fitRoof(samples, init)

	// Group by family, then by outer coordinate; merge repeated positions
	// (the same shape measured for two models) by their geometric mean.
	type pos struct {
		x1, x2 float64
	}
	byFam := map[famKey]map[pos][]float64{}
	var order []famKey
	for _, s := range samples {
		k := famKeyOf(s.op)
		if byFam[k] == nil {
			byFam[k] = map[pos][]float64{}
			order = append(order, k)
		}
		x1, x2 := sweepOf(s.op)
		byFam[k][pos{x1, x2}] = append(byFam[k][pos{x1, x2}], math.Log(s.t))
	}
	slices.SortFunc(order, func(a, b famKey) int { return slices.Compare(a[:], b[:]) })
	for _, k := range order {
		var ps []pos
		for p := range byFam[k] {
			ps = append(ps, p)
		}
		slices.SortFunc(ps, func(a, b pos) int {
			if a.x1 != b.x1 {
				return cmpFloat(a.x1, b.x1)
			}
			return cmpFloat(a.x2, b.x2)
		})
		f := family{key: k, coord: coordOf(k)}
		for _, p := range ps {
			if len(f.rows) == 0 || f.rows[len(f.rows)-1].x1 != p.x1 {
				f.rows = append(f.rows, row{x1: p.x1})
			}
			r := &f.rows[len(f.rows)-1]
			r.xs = append(r.xs, p.x2)
			r.ly = append(r.ly, mean(byFam[k][p]))
		}
		rep := withKey(samples[0].op, k)
		for i := range f.rows {
			r := &f.rows[i]
			r.u = make([]float64, len(r.xs))
			for j, x2 := range r.xs {
				r.u[j] = math.Log(tb.g(rep, r.x1, x2)) + tilt*math.Log(x2)
			}
			r.fit()
		}
		tb.index[k] = len(tb.fams)
		tb.fams = append(tb.fams, f)
	}
	for fi := range tb.fams {
		f := &tb.fams[fi]
		f.nb, f.nbw = tb.nearest(f.coord, fi)
	}
	return tb
}

// nearest returns the neighbours nearest to coordinate c, skipping family
// skip, with inverse-squared-distance weights.
func (tb *table) nearest(c [3]float64, skip int) ([]int, []float64) {
	var idx []int
	var w []float64
	type cand struct {
		i int
		d float64
	}
	var cs []cand
	for i := range tb.fams {
		if i == skip {
			continue
		}
		d := 0.0
		for j := range c {
			e := tb.fams[i].coord[j] - c[j]
			d += e * e
		}
		cs = append(cs, cand{i, d})
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return cmpFloat(a.d, b.d) })
	for _, x := range cs[:min(neighbours, len(cs))] {
		idx = append(idx, x.i)
		w = append(w, 1/(x.d+nbEps))
	}
	return idx, w
}

// nbEps softens the inverse-squared-distance weights.
const nbEps = 0.02

// blend is the weight of the neighbours' measurements in a family's
// prediction at a position it lacks but its neighbours measured (see
// [table.evalFamily]).
const blend = 0.5

// query is one position to evaluate: an op (carrying its family key), its
// sweep coordinates and log x2.
type query struct {
	op          Op
	x1, x2, lx2 float64
}

func newQuery(op Op) query {
	x1, x2 := sweepOf(op)
	return query{op: op, x1: x1, x2: x2, lx2: math.Log(x2)}
}

// at returns q for another family.
func (q query) at(k famKey) query {
	q.op = withKey(q.op, k)
	return q
}

// cross is the mean log residual (measured over roofline) of the
// neighbours of f that measured exactly q's position; false when none did.
func (tb *table) cross(f *family, q query) (float64, bool) {
	sw, swr := 0.0, 0.0
	for j, i := range f.nb {
		nf := &tb.fams[i]
		r := nf.rowAt(q.x1)
		if r == nil {
			continue
		}
		k, ok := r.node(q.x2)
		if !ok {
			continue
		}
		sw += f.nbw[j]
		swr += f.nbw[j] * (r.ly[k] - math.Log(tb.g(q.at(nf.key).op, q.x1, q.x2)))
	}
	if sw == 0 {
		return 0, false
	}
	return swr / sw, true
}

// g is the kind's roofline latency of op moved to (x1, x2), BF16 weights.
func (tb *table) g(op Op, x1, x2 float64) float64 {
	op = withSweep(op, x1, x2)
	op.WeightDType = BF16
	return tb.roof.at(workOf(op))
}

// evalRow returns the log latency of q on row r and the log roofline there.
// Outside the row's measured range the edge measurement is carried along
// the roofline: t(x) = t(edge) * g(x) / g(edge).
func (tb *table) evalRow(r *row, q query) (ly, lg float64, inside bool) {
	lg = math.Log(tb.g(q.op, r.x1, q.x2))
	u := lg + tilt*q.lx2
	if r.logx {
		u = q.lx2
	}
	ly, edge, inside := r.at(q.x2, u)
	if !inside {
		ly += lg - math.Log(tb.g(q.op, r.x1, edge))
	}
	return ly, lg, inside
}

// evalFamily returns the log latency of q (whose key is f's) and whether q
// lies within f's measurements. Along a row it
// interpolates the row's measurements; at a position the family lacks but
// neighbouring families measured (a token count one model's sweep skipped,
// say) it takes the geometric mean of that interpolation and the
// neighbours' measured efficiency there (weight [blend]): kernel selection
// often changes at the same sizes across similar shapes. Between two outer
// rows it interpolates linearly in x1: latency is affine in the number of
// experts or requests once each row's fixed cost is paid.
func (tb *table) evalFamily(f *family, q query, useNeighbours bool) (ly float64, inside bool) {
	rows := f.rows
	n := len(rows)
	if r := f.rowAt(q.x1); r != nil || !is2D(tb.kind) {
		if r == nil {
			r = &rows[0]
		}
		ly, lg, inside := tb.evalRow(r, q)
		if useNeighbours && inside {
			if _, node := r.node(q.x2); !node {
				if res, ok := tb.cross(f, q); ok {
					ly = (1-blend)*ly + blend*(lg+res)
				}
			}
		}
		return ly, inside
	}
	if q.x1 < rows[0].x1 || q.x1 > rows[n-1].x1 {
		r := &rows[0]
		if q.x1 > rows[n-1].x1 {
			r = &rows[n-1]
		}
		lyr, lgr, _ := tb.evalRow(r, q)
		return lyr + math.Log(tb.g(q.op, q.x1, q.x2)) - lgr, false
	}
	i := 0
	for i < n-1 && rows[i+1].x1 <= q.x1 {
		i++
	}
	lo, _, inLo := tb.evalRow(&rows[i], q)
	hi, _, inHi := tb.evalRow(&rows[i+1], q)
	a := (q.x1 - rows[i].x1) / (rows[i+1].x1 - rows[i].x1)
	tlo, thi := math.Exp(lo), math.Exp(hi)
	return math.Log(tlo + a*(thi-tlo)), inLo && inHi
}

// synthesize builds the family of an unmeasured key: at every position
// its nearest measured families measured, the roofline times their mean
// residual (measured over roofline) there, weighted by inverse squared
// distance between the logarithms of their key sizes. The residual is a
// family's empirical efficiency relative to the fitted roofline; the
// synthesised family is then interpolated like a measured one.
func (tb *table) synthesize(key famKey, rep Op) *family {
	f := &family{key: key, coord: coordOf(key)}
	f.nb, f.nbw = tb.nearest(f.coord, -1)
	rep = withKey(rep, key)
	var x1s, x2s []float64
	for _, i := range f.nb {
		for _, r := range tb.fams[i].rows {
			x1s = append(x1s, r.x1)
			x2s = append(x2s, r.xs...)
		}
	}
	slices.Sort(x1s)
	slices.Sort(x2s)
	x1s, x2s = slices.Compact(x1s), slices.Compact(x2s)
	for _, x1 := range x1s {
		r := row{x1: x1, xs: x2s}
		for _, x2 := range x2s {
			q := query{op: rep, x1: x1, x2: x2, lx2: math.Log(x2)}
			lg := math.Log(tb.g(rep, x1, x2))
			sw, swr := 0.0, 0.0
			for j, i := range f.nb {
				nf := &tb.fams[i]
				qf := q.at(nf.key)
				ly, _ := tb.evalFamily(nf, qf, false)
				sw += f.nbw[j]
				swr += f.nbw[j] * (ly - math.Log(tb.g(qf.op, x1, x2)))
			}
			r.ly = append(r.ly, lg+swr/sw)
			r.u = append(r.u, lg+tilt*q.lx2)
		}
		r.fit()
		f.rows = append(f.rows, r)
	}
	return f
}

// latency is the table's latency for a normalised op with BF16 weights on
// the profile's GPU, in seconds, and whether it left the measured range
// (any shape of an unmeasured family does).
func (tb *table) latency(op Op) (float64, bool) {
	q := newQuery(op)
	key := famKeyOf(op)
	if i, ok := tb.index[key]; ok {
		ly, inside := tb.evalFamily(&tb.fams[i], q, true)
		return math.Exp(ly), !inside
	}
	if len(tb.fams) == 0 {
		return tb.g(op, q.x1, q.x2), true
	}
	f := tb.synth.get(key)
	if f == nil {
		f = tb.synthesize(key, op)
		tb.synth.put(key, f)
	}
	ly, _ := tb.evalFamily(f, q, false)
	return math.Exp(ly), true
}

// synthCache is a fixed-size, lock-free map from unmeasured family keys to
// their synthesised families. Entries are immutable once published, so a
// hit neither locks nor allocates; when the probe window is full the family
// is simply not cached.
type synthCache struct {
	slots [synthSlots]atomic.Pointer[synthEntry]
}

type synthEntry struct {
	key famKey
	fam *family
}

const (
	synthSlots = 1024 // a power of two
	synthProbe = 16
)

func (c *synthCache) slot(key famKey) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range key {
		h ^= uint64(v)
		h *= 1099511628211
	}
	return h
}

func (c *synthCache) get(key famKey) *family {
	h := c.slot(key)
	for i := range uint64(synthProbe) {
		e := c.slots[(h+i)&(synthSlots-1)].Load()
		if e == nil {
			return nil
		}
		if e.key == key {
			return e.fam
		}
	}
	return nil
}

func (c *synthCache) put(key famKey, f *family) {
	h := c.slot(key)
	e := &synthEntry{key: key, fam: f}
	for i := range uint64(synthProbe) {
		s := &c.slots[(h+i)&(synthSlots-1)]
		if s.CompareAndSwap(nil, e) {
			return
		}
		if s.Load().key == key {
			return
		}
	}
}
