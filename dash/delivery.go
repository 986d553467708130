package dash

import "github.com/dashlab/dashlab/dash/unit"

// ExpertDelivery is the bound on how fast a system can deliver HBF-resident expert
// weights to the GPU: per stack, the lesser of what the NAND array senses
// (HBFSpec.ArrayReadBandwidth) and what its GPU-bound routes drain (one usable link rate
// each for Direct and Relay), times the stack count.
type ExpertDelivery struct {
	// Array is one stack's array read bandwidth, Routes what its routes drain, PerStack
	// the lesser of the two and Total PerStack times Stacks.
	Array, Routes, PerStack, Total unit.BytesPerSecond
	// RouteCount is the number of GPU-bound routes for HBF data (Direct, Relay); Stacks
	// the number of HBM/HBF pairs.
	RouteCount, Stacks int
	// ArrayBound says the array, not the links, sets the bound.
	ArrayBound bool
}

// ExpertDelivery computes the system's expert-delivery bound from its parts.
func (s SystemSpec) ExpertDelivery() ExpertDelivery {
	n := 0
	if s.Topology.Direct() {
		n++
	}
	if s.Topology.Relay() {
		n++
	}
	d := ExpertDelivery{Array: s.HBF.ArrayReadBandwidth(), Routes: unit.BytesPerSecond(n) * s.Link.Usable, RouteCount: n, Stacks: s.Topology.Pairs}
	d.PerStack = min(d.Array, d.Routes)
	d.ArrayBound = d.Array < d.Routes
	d.Total = unit.BytesPerSecond(d.Stacks) * d.PerStack
	return d
}

// TReadForRoutes is the longest t_R at which one stack's array keeps up with routes
// links of l draining at once (page wave / (routes x usable link rate)); DASH has two
// (Direct and Relay).
func (h HBFSpec) TReadForRoutes(l LinkSpec, routes int) unit.Duration {
	return unit.FromSeconds(float64(h.PageWave()) / (float64(routes) * float64(l.Usable)))
}
