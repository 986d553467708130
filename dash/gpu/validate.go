package gpu

import (
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/dashlab/dashlab/internal/pool"
)

// ErrorStats summarises relative prediction errors of one kind:
// |predicted - measured| / measured of the median latency, in percent.
type ErrorStats struct {
	Kind      string
	Count     int
	MedianPct float64
	P90Pct    float64
}

// Summarise returns the count, median and 90th percentile of relative
// errors (fractions; the stats are in percent). errs is sorted in place.
func Summarise(kind string, errs []float64) ErrorStats {
	s := ErrorStats{Kind: kind, Count: len(errs)}
	if len(errs) == 0 {
		return s
	}
	slices.Sort(errs)
	s.MedianPct = 100 * stat.Quantile(0.5, stat.Empirical, errs, nil)
	s.P90Pct = 100 * stat.Quantile(0.9, stat.Empirical, errs, nil)
	return s
}

// validation holds what the error studies share: the model fitted on the
// whole profile (whose other kinds' tables, floor and bandwidth serve every
// prediction), the prior every refit starts from, and the samples by kind.
type validation struct {
	m       *Model
	prior   roof
	samples [numKinds][]sample
	// file maps each kind to its CSV kind.
	file [numKinds]string
}

func newValidation(p *Profile) (*validation, error) {
	if p == nil || len(p.Points) == 0 {
		return nil, errors.New("gpu: empty profile")
	}
	src := p.GPU()
	v := &validation{}
	m := &Model{target: src, source: src, cScale: 1, mScale: 1, fp8Speed: 1}
	m.fit(p)
	v.samples = samplesByKind(p.Points)
	v.m = m
	v.prior = priorRoof(src, m.floor)
	for _, pt := range p.Points {
		v.file[pt.Op.Kind] = pt.kind
	}
	return v, nil
}

// predictWith predicts s.op with the model whose table for s.op.Kind is tb.
func (v *validation) predictWith(tb *table, op Op) float64 {
	m := &Model{}
	*m = *v.m
	m.tables[op.Kind] = builtTable(tb)
	return m.Predict(op).Latency.Seconds()
}

func relErr(pred, meas float64) float64 { return math.Abs(pred-meas) / meas }

// LeaveOneOut leaves each measured point out in turn, refits its kind's
// table (roofline and families) on the rest, and predicts the point. It
// returns the relative error of the median latency per file kind (gemm,
// grouped, attn, misc); an operator kind measured once has nothing to be
// predicted from and is left out.
func (p *Profile) LeaveOneOut() ([]ErrorStats, error) {
	v, err := newValidation(p)
	if err != nil {
		return nil, err
	}
	errs := map[string][]float64{}
	for k := GEMM; k <= Route; k++ {
		ss := v.samples[k]
		if len(ss) < 2 {
			continue // nothing to predict a lone measurement from
		}
		// The folds are independent fits: they run on every CPU, their
		// errors kept in point order.
		errs[v.file[k]] = append(errs[v.file[k]], pool.Map(len(ss), pool.Options{}, func(i int) float64 {
			tb := buildTable(k, slices.Concat(ss[:i], ss[i+1:]), v.prior)
			return relErr(v.predictWith(tb, ss[i].op), ss[i].t)
		})...)
	}
	return kindStats(errs), nil
}

// kindStats summarises relative errors keyed by file kind, in file order.
func kindStats(errs map[string][]float64) []ErrorStats {
	var out []ErrorStats
	for _, kind := range ProfileKinds {
		if e, ok := errs[kind]; ok {
			out = append(out, Summarise(kind, e))
		}
	}
	return out
}

// HeldOut holds out each shape family in turn — every measurement of one
// GEMM (K, N), one expert block (hidden, inter), one attention head
// configuration, one RMSNorm width — refits the kind on the other families
// and predicts the held-out shapes, which must then come from the roofline
// and the nearest families. Kinds with a single family (MLA decode, routing)
// cannot be held out and are skipped. Errors are per file kind.
func (p *Profile) HeldOut() ([]ErrorStats, error) {
	v, err := newValidation(p)
	if err != nil {
		return nil, err
	}
	errs := map[string][]float64{}
	for k := GEMM; k <= Route; k++ {
		groups := map[famKey][]int{}
		var keys []famKey
		for i, s := range v.samples[k] {
			fk := famKeyOf(s.op)
			if groups[fk] == nil {
				keys = append(keys, fk)
			}
			groups[fk] = append(groups[fk], i)
		}
		if len(keys) < 2 {
			continue
		}
		for _, fk := range keys {
			v.holdOut(k, func(s sample) bool { return famKeyOf(s.op) == fk }, errs)
		}
	}
	return kindStats(errs), nil
}

// HeldOutByModel holds out every GEMM family a model uses (some are shared
// between models: Mixtral and Grok-1 attention, DeepSeek-V2 and V3 q_b and
// kv_b), refits on the other models' shapes and predicts the held-out ones.
// Only GEMM is reported: the other files have one family per model, which
// HeldOut already holds out.
func (p *Profile) HeldOutByModel() ([]ErrorStats, error) {
	v, err := newValidation(p)
	if err != nil {
		return nil, err
	}
	uses := map[string]map[famKey]bool{}
	var models []string
	for _, pt := range p.Points {
		if pt.Op.Kind != GEMM {
			continue
		}
		if uses[pt.Model] == nil {
			uses[pt.Model] = map[famKey]bool{}
			models = append(models, pt.Model)
		}
		uses[pt.Model][famKeyOf(normalize(pt.Op))] = true
	}
	errs := map[string][]float64{}
	if len(models) < 2 {
		return nil, errors.New("gpu: HeldOutByModel needs GEMM shapes of at least two models")
	}
	for _, name := range models {
		u := uses[name]
		v.holdOut(GEMM, func(s sample) bool { return u[famKeyOf(s.op)] }, errs)
	}
	return kindStats(errs), nil
}

// holdOut refits kind k without the samples out selects and records the
// relative errors of predicting them.
func (v *validation) holdOut(k OpKind, out func(sample) bool, errs map[string][]float64) {
	v.holdOutWhere(k, out, func(sample) bool { return true }, errs)
}

// HeldOutSweep holds out each value of the inner sweep coordinate in turn —
// every GEMM of one token count M, every expert block of one rows-per-expert
// count, every attention of one KV length — across all families of the kind
// at once, refits the kind on the other values and predicts the held-out
// measurements that lie strictly between the family's (and, for 2-D kinds,
// the row's) remaining measurements. No family then measured the held-out
// size, so the prediction is the model's alone between measured shapes: the
// case of a batch or context the profile skipped. Edge values are
// extrapolation and are left to [Profile.HeldOut]. Errors are per file kind.
func (p *Profile) HeldOutSweep() ([]ErrorStats, error) {
	v, err := newValidation(p)
	if err != nil {
		return nil, err
	}
	errs := map[string][]float64{}
	for k := GEMM; k <= Route; k++ {
		// The measured range of every row: family and outer coordinate.
		type rowKey struct {
			f  famKey
			x1 float64
		}
		lo, hi := map[rowKey]float64{}, map[rowKey]float64{}
		var xs []float64
		for _, s := range v.samples[k] {
			x1, x2 := sweepOf(s.op)
			rk := rowKey{famKeyOf(s.op), x1}
			if l, ok := lo[rk]; !ok || x2 < l {
				lo[rk] = x2
			}
			hi[rk] = max(hi[rk], x2)
			xs = append(xs, x2)
		}
		slices.Sort(xs)
		for _, x := range slices.Compact(xs) {
			v.holdOutWhere(k, func(s sample) bool { _, x2 := sweepOf(s.op); return x2 == x },
				func(s sample) bool {
					x1, x2 := sweepOf(s.op)
					rk := rowKey{famKeyOf(s.op), x1}
					return x2 > lo[rk] && x2 < hi[rk]
				}, errs)
		}
	}
	return kindStats(errs), nil
}

// holdOutWhere is holdOut recording only the held-out samples score selects.
func (v *validation) holdOutWhere(k OpKind, out, score func(sample) bool, errs map[string][]float64) {
	var rest, held []sample
	for _, s := range v.samples[k] {
		if out(s) {
			if score(s) {
				held = append(held, s)
			}
		} else {
			rest = append(rest, s)
		}
	}
	if len(held) == 0 || len(rest) == 0 {
		return
	}
	tb := buildTable(k, rest, v.prior)
	for _, s := range held {
		errs[v.file[k]] = append(errs[v.file[k]], relErr(v.predictWith(tb, s.op), s.t))
	}
}
