package summary

import "sort"

// AssumedParameter is a parameter of the memory system the paper never states, and
// the value the reproduction assumes for it.
type AssumedParameter struct {
	// Path is the knob ("hbm.array_bandwidth"); Label names it; Default is the
	// assumed value, with its unit.
	Path, Label, Default string
	// Source says where the assumed value comes from.
	Source string
}

// AssumptionTable is every paper id computed by the memory system, under the checked
// reading of t_R, with its value when each assumed parameter is set to each factor of
// its assumed value: which results rest on assumptions.
type AssumptionTable struct {
	// Params are the assumed parameters; Factors the multiples of their assumed
	// value that ran (0.5, 2).
	Params  []AssumedParameter
	Factors []float64
	// Rows has one row per id, in the reproduction's order.
	Rows []AssumptionRow
}

// AssumptionRow is one id under the assumptions.
type AssumptionRow struct {
	// ID, Unit and Paper are the paper id's; Base the value at the assumed
	// parameters (the checked value).
	ID, Unit string
	Paper    float64
	Base     float64
	// Values[p][f] is the value with Params[p] at Factors[f] times its assumed
	// value (NaN: the run failed or did not give the id).
	Values [][]float64
	// PassBase and Pass[p][f] are whether each value lies within the paper's
	// tolerance.
	PassBase bool
	Pass     [][]bool
}

// Spread is the largest change of the row's value from Base over every parameter and
// factor, in the id's unit.
func (r AssumptionRow) Spread() float64 {
	m := 0.0
	for _, vs := range r.Values {
		for _, v := range vs {
			if d := v - r.Base; d == d { // not NaN
				m = max(m, abs(d))
			}
		}
	}
	return m
}

// RelSpread is Spread over |Base| (the change relative to the value), 0 for a zero Base.
func (r AssumptionRow) RelSpread() float64 {
	if r.Base == 0 {
		return 0
	}
	return r.Spread() / abs(r.Base)
}

// Movers are the rows sorted by their relative spread, largest first (n at most; 0:
// all).
func (t *AssumptionTable) Movers(n int) []AssumptionRow {
	out := append([]AssumptionRow(nil), t.Rows...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].RelSpread() > out[j].RelSpread() })
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}

// VerdictChanges counts the (row, parameter, factor) cells whose verdict differs from
// the row's at the assumed values.
func (t *AssumptionTable) VerdictChanges() int {
	n := 0
	for _, r := range t.Rows {
		for _, ps := range r.Pass {
			for _, p := range ps {
				if p != r.PassBase {
					n++
				}
			}
		}
	}
	return n
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
