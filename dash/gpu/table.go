package gpu

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/interp"
	"gonum.org/v1/gonum/stat"
)

// row is one family's latencies along the inner sweep coordinate x2 at a
// fixed outer one x1. It interpolates log latency over the roofline
// coordinate u = log g(x2) + tilt*log x2, where g is the kind's fitted
// roofline at the family's shape: u grows with x2, so the monotone spline
// keeps monotone data monotone, and latency is nearly linear in u across
// the memory-to-compute ridge, where it is far from linear in log x2.
//
// Nodes xs[m0:m1] are measurements; nodes outside them extend the row
// beyond its measured range (see [table.extend]).
type row struct {
	x1     float64
	xs     []float64 // x2 of each node, strictly increasing
	u      []float64 // roofline coordinate of each node, strictly increasing
	ly     []float64 // log latency (seconds) of each node
	m0, m1 int       // the measured nodes
	spl    interp.FritschButland
	// logx marks a row interpolated over log x2 instead of u.
	logx bool
	// resid marks a row that interpolates its residual over the roofline
	// (see [residualRows]); lx and res are log x2 and ly - log g at its nodes.
	resid   bool
	lx, res []float64
}

// residualRows reports whether kind k's rows interpolate the residual
// log(latency / roofline) piecewise linearly in log x2, rather than log
// latency with the monotone cubic over u. Between two measurements the
// roofline then supplies the shape (flat while the weights stream, linear
// in x2 once compute-bound, the bend between) and the measurements only
// the efficiency, which drifts slowly. Leaving whole sweep values out
// (Profile.HeldOutSweep) it predicts better for GEMM, expert blocks and
// attention; norms and routing, whose fitted roofline describes their
// kernels poorly, keep the cubic.
func residualRows(k OpKind) bool {
	switch k {
	case GEMM, Grouped, AttnPrefill, AttnDecode, AttnDecodeMLA:
		return true
	}
	return false
}

// ridgeSmoothing is the starting value of the fitted exponent of the smooth
// maximum at the roofline's ridge (see [roof]) for kind k, or 0 for a hard
// maximum. Near the ridge a GEMM, an expert block or an attention kernel
// neither streams at full bandwidth nor computes at full rate; routing and
// norms are never near it.
func ridgeSmoothing(k OpKind) float64 {
	switch k {
	case GEMM, Grouped, AttnPrefill, AttnDecode:
		return 3
	}
	return 0
}

// tilt keeps u strictly increasing where the roofline is flat (a tiny op
// whose latency is all overhead).
const tilt = 0.05

// measured reports whether x2 lies within the row's measured range.
func (r *row) measured(x2 float64) bool { return x2 >= r.xs[r.m0] && x2 <= r.xs[r.m1-1] }

// node returns the index of the measured node at x2, if there is one.
func (r *row) node(x2 float64) (int, bool) {
	i, ok := slices.BinarySearch(r.xs[r.m0:r.m1], x2)
	return r.m0 + i, ok
}

// fit prepares the row's interpolant: its residual nodes (see
// [residualRows]) or its monotone cubic (which never overshoots between
// nodes). Should rounding leave the roofline coordinate not strictly increasing, the
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
	if r.resid && !r.logx {
		r.lx, r.res = make([]float64, len(r.xs)), make([]float64, len(r.xs))
		for i, x := range r.xs {
			r.lx[i] = math.Log(x)
			r.res[i] = r.ly[i] - (r.u[i] - tilt*r.lx[i])
		}
		return
	}
	_ = r.spl.Fit(r.u, r.ly)
}

// residAt returns the log latency at lx = log x2, which lies within the
// row's nodes, given lg, the log roofline there: lg plus the residual
// interpolated linearly between the neighbouring nodes, held between those
// nodes' latencies. The hold keeps the row monotone wherever its nodes are
// (the log roofline is convex in log x2, so between two nodes lg plus a
// linear residual can dip below the lower node but never rise above the
// higher one) and, like the cubic, never overshoots a measurement.
func (r *row) residAt(lx, lg float64) float64 {
	i, exact := slices.BinarySearch(r.lx, lx)
	if exact {
		return r.ly[i]
	}
	i = min(max(i, 1), len(r.lx)-1)
	a := (lx - r.lx[i-1]) / (r.lx[i] - r.lx[i-1])
	ly := lg + r.res[i-1] + a*(r.res[i]-r.res[i-1])
	lo, hi := min(r.ly[i-1], r.ly[i]), max(r.ly[i-1], r.ly[i])
	return min(max(ly, lo), hi)
}

// at returns the interpolated log latency at x2 (roofline coordinate u), or
// the edge node's value and x2 when x2 lies beyond every node.
func (r *row) at(x2, u float64) (ly, edge float64, within bool) {
	n := len(r.xs)
	switch {
	case x2 < r.xs[0]:
		return r.ly[0], r.xs[0], false
	case x2 > r.xs[n-1]:
		return r.ly[n-1], r.xs[n-1], false
	case n == 1:
		return r.ly[0], x2, true
	}
	if r.resid && !r.logx {
		lx := math.Log(x2)
		return r.residAt(lx, u-tilt*lx), x2, true
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

// neighbours is how many of the nearest measured families inform a
// prediction from other families.
const neighbours = 4

// nbEps softens the inverse-squared-distance weights of neighbours.
const nbEps = 0.02

// blend is the weight of the neighbours' measurements in a family's
// prediction at a position it lacks but its neighbours measured (see
// [table.evalFamily]).
const blend = 0.5

// buildTable fits a kind's roofline (starting from init) and builds its
// families from samples of that kind.
func buildTable(kind OpKind, samples []sample, init roof) *table {
	return buildFamilies(kind, samples, kindRoof(kind, samples, init))
}

// kindRoof is kind's roofline fitted to samples from init (init itself
// when there are none), with the kind's ridge smoothing.
func kindRoof(kind OpKind, samples []sample, init roof) roof {
	if len(samples) == 0 {
		return init
	}
	init.n = ridgeSmoothing(kind)
	return fittedRoof(samples, init)
}

// buildFamilies builds a kind's table with roofline r from samples of that
// kind.
func buildFamilies(kind OpKind, samples []sample, r roof) *table {
	tb := &table{kind: kind, roof: r, index: map[famKey]int{}}
	if len(samples) == 0 {
		return tb
	}

	// Group by family, then by outer coordinate; merge repeated positions
	// (the same shape measured for two models) by their geometric mean.
	type pos struct{ x1, x2 float64 }
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
	rep := samples[0].op
	for _, k := range order {
		var ps []pos
		for p := range byFam[k] {
			ps = append(ps, p)
		}
		slices.SortFunc(ps, func(a, b pos) int {
			if a.x1 != b.x1 {
				return cmp.Compare(a.x1, b.x1)
			}
			return cmp.Compare(a.x2, b.x2)
		})
		f := family{key: k, coord: coordOf(k)}
		for _, p := range ps {
			if len(f.rows) == 0 || f.rows[len(f.rows)-1].x1 != p.x1 {
				f.rows = append(f.rows, row{x1: p.x1, resid: residualRows(kind)})
			}
			r := &f.rows[len(f.rows)-1]
			r.xs = append(r.xs, p.x2)
			r.ly = append(r.ly, stat.Mean(byFam[k][p], nil))
		}
		for i := range f.rows {
			r := &f.rows[i]
			r.m1 = len(r.xs)
			r.u = tb.coords(withKey(rep, k), r.x1, r.xs)
			r.fit()
		}
		tb.index[k] = len(tb.fams)
		tb.fams = append(tb.fams, f)
	}
	byDist := make([][]int, len(tb.fams))
	byDistW := make([][]float64, len(tb.fams))
	for fi := range tb.fams {
		f := &tb.fams[fi]
		byDist[fi], byDistW[fi] = tb.nearest(f.coord, fi, len(tb.fams))
		n := min(neighbours, len(byDist[fi]))
		f.nb, f.nbw = byDist[fi][:n], byDistW[fi][:n]
	}
	// Extend every row from the measured rows only, then install.
	ext := make([][]row, len(tb.fams))
	for fi := range tb.fams {
		for ri := range tb.fams[fi].rows {
			ext[fi] = append(ext[fi], tb.extend(&tb.fams[fi], &tb.fams[fi].rows[ri], withKey(rep, tb.fams[fi].key), byDist[fi], byDistW[fi]))
		}
	}
	for fi := range tb.fams {
		tb.fams[fi].rows = ext[fi]
	}
	return tb
}

// coords returns the roofline coordinates of op at x1 and each of xs.
func (tb *table) coords(op Op, x1 float64, xs []float64) []float64 {
	u := make([]float64, len(xs))
	for j, x2 := range xs {
		u[j] = math.Log(tb.g(op, x1, x2)) + tilt*math.Log(x2)
	}
	return u
}

// extend returns row r of family f with nodes added beyond its measured
// range, wherever the nearest families (nearest first, up to [neighbours])
// measured further: the edge measurement carried along the roofline, plus
// the mean change of those families' residual (log measured over roofline)
// between the edge and the node. The roofline alone would carry the edge's
// efficiency unchanged; the neighbours say how efficiency moves with size
// (a projection measured to 1,024 tokens predicts 16,384 from the shapes
// that were measured there).
func (tb *table) extend(f *family, r *row, op Op, byDist []int, byDistW []float64) row {
	lo, hi := r.xs[0], r.xs[len(r.xs)-1]
	var below, above []float64
	for _, i := range byDist {
		nr := tb.fams[i].rowAt(r.x1)
		if nr == nil {
			continue
		}
		for _, x := range nr.xs[nr.m0:nr.m1] {
			if x < lo {
				below = append(below, x)
			} else if x > hi {
				above = append(above, x)
			}
		}
	}
	if len(below) == 0 && len(above) == 0 {
		return *r
	}
	slices.Sort(below)
	slices.Sort(above)
	below, above = slices.Compact(below), slices.Compact(above)
	value := func(x, edge, lyEdge float64) float64 {
		shift, sw, n := 0.0, 0.0, 0
		a, b := min(x, edge), max(x, edge)
		for j, i := range byDist {
			nf := &tb.fams[i]
			nr := nf.rowAt(r.x1)
			if nr == nil || nr.xs[nr.m0] > a || nr.xs[nr.m1-1] < b {
				continue
			}
			nop := withKey(op, nf.key)
			at := tb.measuredLog(nr, nop, x) - math.Log(tb.g(nop, r.x1, x))
			ae := tb.measuredLog(nr, nop, edge) - math.Log(tb.g(nop, r.x1, edge))
			shift += byDistW[j] * (at - ae)
			sw += byDistW[j]
			if n++; n == neighbours {
				break
			}
		}
		if sw > 0 {
			shift /= sw
		}
		return lyEdge + math.Log(tb.g(op, r.x1, x)) - math.Log(tb.g(op, r.x1, edge)) + shift
	}
	out := row{x1: r.x1, resid: r.resid}
	for _, x := range below {
		out.xs = append(out.xs, x)
		out.ly = append(out.ly, value(x, lo, r.ly[0]))
	}
	out.m0 = len(out.xs)
	out.xs = append(out.xs, r.xs...)
	out.ly = append(out.ly, r.ly...)
	out.m1 = len(out.xs)
	for _, x := range above {
		out.xs = append(out.xs, x)
		out.ly = append(out.ly, value(x, hi, r.ly[len(r.ly)-1]))
	}
	out.u = tb.coords(op, r.x1, out.xs)
	out.fit()
	return out
}

// measuredLog is the log latency of a measured row at x2 within its
// measured range.
func (tb *table) measuredLog(r *row, op Op, x2 float64) float64 {
	if k, ok := r.node(x2); ok {
		return r.ly[k]
	}
	ly, _, _ := tb.evalRow(r, newQuery(withSweep(op, r.x1, x2)))
	return ly
}

// nearest returns the families nearest to coordinate c, skipping family
// skip, at most k, with inverse-squared-distance weights.
func (tb *table) nearest(c [3]float64, skip, k int) ([]int, []float64) {
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
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(a.d, b.d) })
	var idx []int
	var w []float64
	for _, x := range cs[:min(k, len(cs))] {
		idx = append(idx, x.i)
		w = append(w, 1/(x.d+nbEps))
	}
	return idx, w
}

// memoryBound counts the samples roofline r puts on its memory side.
func memoryBound(r roof, samples []sample) int {
	n := 0
	for _, s := range samples {
		w := workOf(s.op)
		if w.bytes()/r.bw > w.flops/r.p {
			n++
		}
	}
	return n
}

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

// g is the kind's roofline latency of op moved to (x1, x2), BF16 weights.
func (tb *table) g(op Op, x1, x2 float64) float64 {
	op = withSweep(op, x1, x2)
	op.WeightDType = BF16
	return tb.roof.at(workOf(op))
}

// evalRow returns the log latency of q on row r, the log roofline there,
// and whether q lies within the row's measured range. Beyond the row's last
// node the node is carried along the roofline: t(x) = t(edge) g(x)/g(edge).
func (tb *table) evalRow(r *row, q query) (ly, lg float64, measured bool) {
	lg = math.Log(tb.g(q.op, r.x1, q.x2))
	u := lg + tilt*q.lx2
	if r.logx {
		u = q.lx2
	}
	ly, edge, within := r.at(q.x2, u)
	if !within {
		ly += lg - math.Log(tb.g(q.op, r.x1, edge))
	}
	return ly, lg, r.measured(q.x2)
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

// evalFamily returns the log latency of q (whose key is f's) and whether q
// lies within f's measurements. Along a row it interpolates the row's
// measurements; at a position the family lacks but neighbouring families
// measured (a token count one model's sweep skipped, say) it takes the
// geometric mean of that interpolation and the neighbours' measured
// efficiency there (weight [blend]): kernel selection often changes at the
// same sizes across similar shapes. Between two outer rows it interpolates
// linearly in x1: latency is affine in the number of experts or requests
// once each row's fixed cost is paid. Beyond the outer rows the nearest row
// is carried along the roofline.
func (tb *table) evalFamily(f *family, q query, useNeighbours bool) (ly float64, measured bool) {
	rows := f.rows
	n := len(rows)
	if r := f.rowAt(q.x1); r != nil || !is2D(tb.kind) {
		if r == nil {
			r = &rows[0]
		}
		ly, lg, measured := tb.evalRow(r, q)
		if useNeighbours && measured {
			if _, node := r.node(q.x2); !node {
				if res, ok := tb.cross(f, q); ok {
					ly = (1-blend)*ly + blend*(lg+res)
				}
			}
		}
		return ly, measured
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

// latency is the table's latency for a normalised op with BF16 weights on
// the profile's GPU, in seconds, and whether it left the measured range
// (any shape of an unmeasured family does).
func (tb *table) latency(op Op) (float64, bool) {
	q := newQuery(op)
	key := famKeyOf(op)
	if i, ok := tb.index[key]; ok {
		ly, measured := tb.evalFamily(&tb.fams[i], q, true)
		return math.Exp(ly), !measured
	}
	if len(tb.fams) == 0 {
		return tb.g(op, q.x1, q.x2), true
	}
	f := tb.synth.get(key)
	if f == nil {
		f = tb.synth.put(key, tb.synthesize(key, op))
	}
	ly, _ := tb.evalFamily(f, q, false)
	return math.Exp(ly), true
}
