package gpu

import (
	"math"

	"gonum.org/v1/gonum/stat"
)

// Repeats measures the profile's run-to-run noise: every measurement of a
// shape that the profile holds more than once (a GEMM shape two models
// share, measured once for each) is predicted by the geometric mean of the
// shape's other measurements. No timing model can predict a measurement
// better than another measurement of the same shape does, in the typical
// case. Errors are per file kind; kinds without repeated shapes are
// omitted. (Repeats of one model's row are merged when the profile is
// loaded, so they do not show here.)
func (p *Profile) Repeats() []ErrorStats {
	byShape := map[Op][]float64{}
	var order []Op
	file := map[OpKind]string{}
	for _, pt := range p.Points {
		op := normalize(pt.Op)
		if byShape[op] == nil {
			order = append(order, op)
		}
		byShape[op] = append(byShape[op], math.Log(pt.Median.Seconds()))
		file[op.Kind] = pt.kind
	}
	errs := map[string][]float64{}
	for _, op := range order {
		ls := byShape[op]
		if len(ls) < 2 {
			continue
		}
		sum := 0.0
		for _, l := range ls {
			sum += l
		}
		for _, l := range ls {
			others := (sum - l) / float64(len(ls)-1)
			errs[file[op.Kind]] = append(errs[file[op.Kind]], math.Abs(math.Expm1(others-l)))
		}
	}
	return kindStats(errs)
}

// SweepJitter is what the profile says about the error floor of
// [Profile.HeldOutSweep]: how much each measurement departs on its own from
// a smooth curve through its neighbours along the sweep.
type SweepJitter struct {
	// ErrorStats are the estimated jitter of each interior sweep position,
	// as a relative error: what predicting it would cost a model that knew
	// the smooth curve exactly (see [Profile.SweepJitter]).
	ErrorStats
	// Lag1 is the correlation between the second differences at neighbouring
	// positions of one sweep: -2/3 when every position departs independently
	// of the others, near +1 when the departures are a smooth curve that the
	// roofline misses (which a better model could learn).
	Lag1 float64
}

// SweepJitter estimates the floor of the held-out-size error. Along every
// measured sweep (a GEMM family over M, one expert count's rows, one batch's
// KV lengths), r is log(latency / roofline) with the kind's roofline fitted
// to the whole profile, and at each interior position i
//
//	d_i = r_i - ((1-a) r_(i-1) + a r_(i+1)),   a = (log x_i - log x_(i-1)) / (log x_(i+1) - log x_(i-1)),
//
// the departure from the straight line through the neighbours in log x,
// which is what HeldOutSweep's interpolation misses when x_i is held out.
// If each position departs from a smooth curve by an independent jitter e
// (Lag1 near -2/3 tests it), d_i = e_i - (1-a) e_(i-1) - a e_(i+1), whose
// variance is (1 + (1-a)^2 + a^2) times the jitter's; the reported errors
// are |d_i| scaled down by that factor's square root. For normally
// distributed jitter their quantiles are the jitter's; for the heavier tails
// of a measured profile they are within about 15%. Positions are counted
// once (repeated measurements merged, as the model merges them). Errors are
// per file kind.
func (p *Profile) SweepJitter() ([]SweepJitter, error) {
	v, err := newValidation(p)
	if err != nil {
		return nil, err
	}
	errs := map[string][]float64{}
	lagA, lagB := map[string][]float64{}, map[string][]float64{}
	for k := GEMM; k <= Route; k++ {
		if len(v.samples[k]) == 0 {
			continue
		}
		kind := v.file[k]
		tb := v.m.tables[k].get()
		rep := v.samples[k][0].op
		for fi := range tb.fams {
			f := &tb.fams[fi]
			op := withKey(rep, f.key)
			for ri := range f.rows {
				r := &f.rows[ri]
				xs, ly := r.xs[r.m0:r.m1], r.ly[r.m0:r.m1]
				prev, havePrev := 0.0, false
				for i := 1; i+1 < len(xs); i++ {
					res := func(j int) float64 { return ly[j] - math.Log(tb.g(op, r.x1, xs[j])) }
					lo, x, hi := math.Log(xs[i-1]), math.Log(xs[i]), math.Log(xs[i+1])
					a := (x - lo) / (hi - lo)
					d := res(i) - ((1-a)*res(i-1) + a*res(i+1))
					errs[kind] = append(errs[kind], math.Abs(math.Expm1(d/math.Sqrt(1+(1-a)*(1-a)+a*a))))
					if havePrev {
						lagA[kind] = append(lagA[kind], prev)
						lagB[kind] = append(lagB[kind], d)
					}
					prev, havePrev = d, true
				}
			}
		}
	}
	var out []SweepJitter
	for _, kind := range ProfileKinds {
		e, ok := errs[kind]
		if !ok {
			continue
		}
		s := SweepJitter{ErrorStats: Summarise(kind, e), Lag1: math.NaN()}
		if len(lagA[kind]) > 2 {
			s.Lag1 = stat.Correlation(lagA[kind], lagB[kind], nil)
		}
		out = append(out, s)
	}
	return out, nil
}
