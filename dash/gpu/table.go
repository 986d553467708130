package gpu

import (
	"math"
	"slices"

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
	x1     float64
	lx     []float64 // log x2, strictly increasing
	u      []float64 // roofline coordinate of each x2, strictly increasing
	ly     []float64 // log latency (seconds)
	spl    interp.FritschButland
	lo, hi float64 // x2 range
}

// node returns the index of the node at x2, if there is one.
func (r *row) node(x2 float64) (int, bool) {
	lx := math.Log(x2)
	i, ok := slices.BinarySearch(r.lx, lx)
	return i, ok
}

// tilt keeps u strictly increasing where the roofline is flat (a tiny op
// whose latency is all overhead).
const tilt = 0.05

// at returns the interpolated log latency at x2 (roofline coordinate u), or
// the edge value and the edge x2 when x2 lies outside the row.
func (r *row) at(x2, u float64) (ly, edge float64, inside bool) {
	n := len(r.lx)
	switch {
	case x2 < r.lo:
		return r.ly[0], r.lo, false
	case x2 > r.hi:
		return r.ly[n-1], r.hi, false
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
			r.lx = append(r.lx, math.Log(p.x2))
			r.ly = append(r.ly, mean(byFam[k][p]))
		}
		rep := withKey(samples[0].op, k)
		for i := range f.rows {
			r := &f.rows[i]
			r.lo, r.hi = math.Exp(r.lx[0]), math.Exp(r.lx[len(r.lx)-1])
			r.u = make([]float64, len(r.lx))
			for j, lx := range r.lx {
				r.u[j] = tb.coord(rep, r.x1, math.Exp(lx))
			}
			if len(r.lx) >= 2 {
				// Monotone cubic: never overshoots between measured points.
				_ = r.spl.Fit(r.u, r.ly)
			}
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

// cross predicts op from the neighbours of its family that measured
// exactly this position: the roofline times their mean log residual. It
// returns false when no neighbour measured the position.
func (tb *table) cross(f *family, op Op, x1, x2 float64) (float64, bool) {
	sw, swr := 0.0, 0.0
	for j, i := range f.nb {
		nf := &tb.fams[i]
		r := nf.rowAt(x1)
		if r == nil {
			continue
		}
		k, ok := r.node(x2)
		if !ok {
			continue
		}
		fop := withKey(op, nf.key)
		sw += f.nbw[j]
		swr += f.nbw[j] * (r.ly[k] - math.Log(tb.g(fop, x1, x2)))
	}
	if sw == 0 {
		return 0, false
	}
	return tb.g(op, x1, x2) * math.Exp(swr/sw), true
}

// g is the kind's roofline latency of op moved to (x1, x2), BF16 weights.
func (tb *table) g(op Op, x1, x2 float64) float64 {
	op = withSweep(op, x1, x2)
	op.WeightDType = BF16
	return tb.roof.at(workOf(op))
}

// coord is the roofline coordinate of op at (x1, x2).
func (tb *table) coord(op Op, x1, x2 float64) float64 {
	return math.Log(tb.g(op, x1, x2)) + tilt*math.Log(x2)
}

// evalRow returns the latency of op on row r at x2. Outside the row's
// measured range the edge measurement is carried along the roofline:
// t(x) = t(edge) * g(x) / g(edge).
func (tb *table) evalRow(r *row, op Op, x2 float64) (float64, bool) {
	g := tb.g(op, r.x1, x2)
	ly, edge, inside := r.at(x2, math.Log(g)+tilt*math.Log(x2))
	t := math.Exp(ly)
	if !inside {
		t *= g / tb.g(op, r.x1, edge)
	}
	return t, inside
}

// evalFamily returns the latency of op (whose key is f's) at (x1, x2).
// Along a row it interpolates the row's measurements; at a position the
// family lacks but neighbouring families measured (a token count one model's
// sweep skipped, say), it takes the geometric mean of that interpolation and
// the neighbours' measured efficiency there (weight [blend]), since kernel
// selection often changes at the same sizes across similar shapes. Between
// two outer rows it interpolates linearly in x1: latency is affine in the
// number of experts or requests once each row's fixed cost is paid.
func (tb *table) evalFamily(f *family, op Op, x1, x2 float64, useNeighbours bool) (float64, bool) {
	rows := f.rows
	n := len(rows)
	if r := f.rowAt(x1); r != nil || !is2D(tb.kind) {
		if r == nil {
			r = &rows[0]
		}
		t, inside := tb.evalRow(r, op, x2)
		if _, node := r.node(x2); useNeighbours && inside && !node {
			if c, ok := tb.cross(f, op, x1, x2); ok {
				t = math.Exp((1-blend)*math.Log(t) + blend*math.Log(c))
			}
		}
		return t, inside
	}
	if x1 < rows[0].x1 || x1 > rows[n-1].x1 {
		r := &rows[0]
		if x1 > rows[n-1].x1 {
			r = &rows[n-1]
		}
		t, _ := tb.evalRow(r, op, x2)
		return t * tb.g(op, x1, x2) / tb.g(op, r.x1, x2), false
	}
	i := 0
	for i < n-1 && rows[i+1].x1 <= x1 {
		i++
	}
	lo, inLo := tb.evalRow(&rows[i], op, x2)
	if rows[i].x1 == x1 || i == n-1 {
		return lo, inLo
	}
	hi, inHi := tb.evalRow(&rows[i+1], op, x2)
	a := (x1 - rows[i].x1) / (rows[i+1].x1 - rows[i].x1)
	return lo + a*(hi-lo), inLo && inHi
}

// evalUnknown predicts a shape whose family was not measured: the roofline
// times the mean log residual (measured over roofline, at the same sweep
// position) of the nearest measured families, weighted by inverse squared
// distance between the logarithms of their key sizes. The residual is the
// family's empirical efficiency relative to the fitted roofline.
func (tb *table) evalUnknown(op Op, x1, x2 float64) float64 {
	g0 := tb.g(op, x1, x2)
	if len(tb.fams) == 0 {
		return g0
	}
	c := coordOf(famKeyOf(op))
	var idx [neighbours]int
	var dist [neighbours]float64
	k := 0
	for i := range tb.fams {
		d := 0.0
		for j := range c {
			e := tb.fams[i].coord[j] - c[j]
			d += e * e
		}
		// insertion into the sorted best-k
		if k < neighbours {
			k++
		} else if d >= dist[k-1] {
			continue
		}
		j := k - 1
		for j > 0 && dist[j-1] > d {
			dist[j], idx[j] = dist[j-1], idx[j-1]
			j--
		}
		dist[j], idx[j] = d, i
	}
	const eps = 0.02
	sw, swr := 0.0, 0.0
	for j := 0; j < k; j++ {
		f := &tb.fams[idx[j]]
		fop := withKey(op, f.key)
		t, _ := tb.evalFamily(f, fop, x1, x2, false)
		r := math.Log(t) - math.Log(tb.g(fop, x1, x2))
		w := 1 / (dist[j] + eps)
		sw += w
		swr += w * r
	}
	return g0 * math.Exp(swr/sw)
}

// latency is the table's latency for a normalised op with BF16 weights on
// the profile's GPU, in seconds, and whether it left the measured range.
func (tb *table) latency(op Op) (float64, bool) {
	x1, x2 := sweepOf(op)
	if i, ok := tb.index[famKeyOf(op)]; ok {
		t, inside := tb.evalFamily(&tb.fams[i], op, x1, x2, true)
		return t, !inside
	}
	return tb.evalUnknown(op, x1, x2), true
}
