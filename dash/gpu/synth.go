package gpu

import (
	"math"
	"slices"
	"sync"
)

// synthesize builds the family of an unmeasured key: at every position
// its nearest measured families measured, the roofline times their mean
// residual (measured over roofline) there, weighted by inverse squared
// distance between the logarithms of their key sizes. The residual is a
// family's empirical efficiency relative to the fitted roofline; the
// synthesised family is then interpolated like a measured one.
func (tb *table) synthesize(key famKey, rep Op) *family {
	f := &family{key: key, coord: coordOf(key)}
	f.nb, f.nbw = tb.nearest(f.coord, -1, neighbours)
	rep = withKey(rep, key)
	var x1s, x2s []float64
	for _, i := range f.nb {
		for _, r := range tb.fams[i].rows {
			x1s = append(x1s, r.x1)
			x2s = append(x2s, r.xs[r.m0:r.m1]...)
		}
	}
	slices.Sort(x1s)
	slices.Sort(x2s)
	x1s, x2s = slices.Compact(x1s), slices.Compact(x2s)
	for _, x1 := range x1s {
		r := row{x1: x1, xs: x2s, m1: len(x2s), resid: residualRows(tb.kind)}
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

// synthCache maps unmeasured family keys to their synthesised families
// (a sync.Map: written once per key, then read from every simulation that
// shares the model, the case sync.Map is built for). Families are immutable
// once stored. BenchmarkSynthCache times it: a hit costs tens of
// nanoseconds, without allocating, against about a microsecond for the
// Predict around it.
type synthCache struct{ fams sync.Map }

func (c *synthCache) get(key famKey) *family {
	if f, ok := c.fams.Load(key); ok {
		return f.(*family)
	}
	return nil
}

// put stores f unless another goroutine stored key first; it returns the
// family stored, so that every caller uses the same one.
func (c *synthCache) put(key famKey, f *family) *family {
	got, _ := c.fams.LoadOrStore(key, f)
	return got.(*family)
}
