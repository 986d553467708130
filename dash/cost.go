package dash

import (
	"math"

	"github.com/dashlab/dashlab/dash/unit"
)

// CostModel is the paper's parametric nominal-capacity-per-cost comparison
// (§VI-G) of a memory system against an all-HBM reference with the same
// number of stacks. Costs are in units of one HBM stack: an HBF stack costs
// R, and the DASH-specific integration (extra PHYs, base-die logic,
// packaging, yield) costs Delta.
type CostModel struct {
	// R is the HBF-to-HBM per-stack cost ratio r (the paper's anchor: 1).
	R float64
	// Delta is the incremental integration cost δ >= 0 relative to one HBM
	// stack.
	Delta float64
}

// Capacity is the system's nominal memory capacity (HBM + HBF).
func Capacity(s SystemSpec) unit.Bytes { return s.HBMCapacity() + s.HBFCapacity() }

// ReferenceCapacity is the capacity of the all-HBM reference: as many HBM
// stacks as the system has stacks in all (DASH: 4 x 24 GB = 96 GB).
func ReferenceCapacity(s SystemSpec) unit.Bytes {
	return unit.Bytes(2*s.Topology.Pairs) * s.HBM.Capacity
}

// Gain is the reference-normalised nominal capacity per cost,
// G = (C / cost) / (C_ref / cost_ref): for DASH, 44.67 / (2 + 2r + δ).
func (c CostModel) Gain(s SystemSpec) float64 {
	n := float64(s.Topology.Pairs)
	cost := n + n*c.R + c.Delta
	refCost := 2 * n
	return (float64(Capacity(s)) / cost) / (float64(ReferenceCapacity(s)) / refCost)
}

// BreakevenR is the HBF-to-HBM cost ratio at which the gain falls to 1 for
// the model's Delta (DASH, δ = 0: 21.33).
func (c CostModel) BreakevenR(s SystemSpec) float64 {
	n := float64(s.Topology.Pairs)
	// Gain = 1  <=>  n + n r + δ = 2n C / C_ref.
	return (2*n*float64(Capacity(s))/float64(ReferenceCapacity(s)) - n - c.Delta) / n
}

// Breakeven is BreakevenR when a cost ratio breaks even: ok is false when
// the integration cost alone already costs more than the capacity is worth
// (BreakevenR <= 0: even a free HBF stack gives G < 1), so that no r > 0
// exists.
func (c CostModel) Breakeven(s SystemSpec) (r float64, ok bool) {
	r = c.BreakevenR(s)
	return r, r > 0 && !math.IsInf(r, 0)
}
