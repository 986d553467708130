package gpu

import (
	"errors"
	"fmt"
	"math"

	"github.com/dashlab/dashlab/dash/unit"
)

// HeldOutCheck is one measured operator and a prediction of it made by a timing model that
// did not see it.
type HeldOutCheck struct {
	Kind      string // operator kind: "gemm", "grouped", "attn-decode", ...
	Label     string // model, operator and shape, for the tooltip
	Measured  unit.Duration
	Predicted unit.Duration
	// HeldOut says what was left out of the fit: "family" (every measurement of the
	// operator's shape family) or "point" (kinds with a single family: the point alone).
	HeldOut string
}

// familyKey is the shape family of a measured operator, as package gpu's documentation
// defines it: the shape fields that are not swept.
func familyKey(op Op) string {
	kv := op.KVHeads
	if kv <= 0 {
		kv = op.Heads
	}
	switch op.Kind {
	case GEMM:
		return fmt.Sprintf("gemm %d %d", op.K, op.N)
	case Grouped:
		return fmt.Sprintf("grouped %d %d", op.Hidden, op.Inter)
	case AttnPrefill, AttnDecode:
		return fmt.Sprintf("%v %d %d %d", op.Kind, op.Heads, kv, op.HeadDim)
	case RMSNorm:
		return fmt.Sprintf("rmsnorm %d", op.Dim)
	case Route:
		return fmt.Sprintf("route %d %d", op.Experts, op.TopK)
	}
	return op.Kind.String() // MLA decode: one family
}

// HeldOutChecks predicts every measured point of p with a timing model for p's own
// GPU fitted on the rest of the profile without the point's shape family (for a kind with
// a single family, without the point alone), so the scatter shows how the model does on
// shapes it has not seen. It refits one model per family: a few seconds.
//
// HeldOut reports the same kind of study as statistics only (it refits just the held-out
// kind); this one keeps every prediction, for a predicted-vs-measured scatter. Its
// errors are close to, not identical with, HeldOut's.
func (p *Profile) HeldOutChecks() ([]HeldOutCheck, error) {
	if p == nil || len(p.Points) == 0 {
		return nil, errors.New("gpu: HeldOutChecks: empty profile")
	}
	target := p.GPU()
	groups := map[string][]int{}
	var keys []string
	families := map[OpKind]map[string]bool{}
	for i, pt := range p.Points {
		k := familyKey(pt.Op)
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
		if families[pt.Op.Kind] == nil {
			families[pt.Op.Kind] = map[string]bool{}
		}
		families[pt.Op.Kind][k] = true
	}
	var out []HeldOutCheck
	predict := func(leave []int, how string) error {
		skip := map[int]bool{}
		for _, i := range leave {
			skip[i] = true
		}
		sub := *p
		sub.Points = make([]Point, 0, len(p.Points))
		for i, pt := range p.Points {
			if !skip[i] {
				sub.Points = append(sub.Points, pt)
			}
		}
		m, err := NewModel(&sub, target)
		if err != nil {
			return err
		}
		for _, i := range leave {
			pt := p.Points[i]
			out = append(out, HeldOutCheck{Kind: pt.Op.Kind.String(), Label: pt.Description(), Measured: pt.Median,
				Predicted: m.Predict(pt.Op).Latency, HeldOut: how})
		}
		return nil
	}
	for _, k := range keys {
		idx := groups[k]
		if len(families[p.Points[idx[0]].Op.Kind]) > 1 {
			if err := predict(idx, "family"); err != nil {
				return nil, err
			}
			continue
		}
		for _, i := range idx {
			if err := predict([]int{i}, "point"); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// Description names a measured point for a tooltip: model, label and shape.
func (pt Point) Description() string {
	o := pt.Op
	var shape string
	switch o.Kind {
	case GEMM:
		shape = fmt.Sprintf("M=%d K=%d N=%d", o.M, o.K, o.N)
	case Grouped:
		shape = fmt.Sprintf("E=%d rows=%d hidden=%d inter=%d", o.Experts, o.Rows, o.Hidden, o.Inter)
	case AttnPrefill, AttnDecode, AttnDecodeMLA:
		shape = fmt.Sprintf("B=%d q=%d kv=%d heads=%d", o.Batch, o.QLen, o.KVLen, o.Heads)
	case RMSNorm:
		shape = fmt.Sprintf("M=%d dim=%d", o.M, o.Dim)
	case Route:
		shape = fmt.Sprintf("M=%d experts=%d k=%d", o.M, o.Experts, o.TopK)
	}
	return fmt.Sprintf("%s %s %s", pt.Model, pt.Label, shape)
}

// SummariseChecks summarises the relative errors of held-out checks as ErrorStats
// (median and 90th percentile), named kind.
func SummariseChecks(kind string, checks []HeldOutCheck) ErrorStats {
	var errs []float64
	for _, c := range checks {
		if c.Measured > 0 {
			errs = append(errs, math.Abs(float64(c.Predicted-c.Measured))/float64(c.Measured))
		}
	}
	return Summarise(kind, errs)
}
