package dash

import (
	"fmt"
	"math"
)

// CostPoint is the capacity-per-cost gain at one (r, δ).
type CostPoint struct {
	// R is the HBF-to-HBM per-stack cost ratio; Delta the integration cost
	// in HBM-stack units.
	R, Delta float64
	// Gain is G(r, δ); above 1 the system beats the all-HBM reference.
	Gain float64
}

// Validate refuses a cost ratio that is not positive and finite and an
// integration cost that is negative or not finite.
func (c CostModel) Validate() error {
	if !(c.R > 0) || math.IsInf(c.R, 0) {
		return fmt.Errorf("cost r = %g: must be a positive finite HBF/HBM cost ratio", c.R)
	}
	if !(c.Delta >= 0) || math.IsInf(c.Delta, 0) {
		return fmt.Errorf("cost delta = %g: must be a finite integration cost >= 0", c.Delta)
	}
	return nil
}

// CostSweep evaluates G over every (r, δ) of the grid, r-major: for each r,
// every δ in order. It refuses a bad value of either axis.
func CostSweep(s SystemSpec, rs, deltas []float64) ([]CostPoint, error) {
	var out []CostPoint
	for _, r := range rs {
		for _, d := range deltas {
			c := CostModel{R: r, Delta: d}
			if err := c.Validate(); err != nil {
				return nil, err
			}
			out = append(out, CostPoint{R: r, Delta: d, Gain: c.Gain(s)})
		}
	}
	return out, nil
}

// BreakevenLine gives, for each δ, the r at which G = 1 (Gain 1 in each
// point). Beyond a δ at which even a free HBF stack cannot break even, R is
// negative: the line leaves the plane.
func BreakevenLine(s SystemSpec, deltas []float64) ([]CostPoint, error) {
	var out []CostPoint
	for _, d := range deltas {
		c := CostModel{R: 1, Delta: d}
		if err := c.Validate(); err != nil {
			return nil, err
		}
		out = append(out, CostPoint{R: c.BreakevenR(s), Delta: d, Gain: 1})
	}
	return out, nil
}
