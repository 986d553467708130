package dash

import (
	"fmt"

	"github.com/dashlab/dashlab/dash/unit"
)

// PairScaling is a system of n HBM-HBF pairs (§VI-G): its links, capacity,
// expert-delivery bandwidth, GPU-edge beachfront and link power, next to
// the all-HBM reference with the same 2n GPU-facing stacks.
type PairScaling struct {
	// Pairs is n.
	Pairs int
	// GPUFacingLinks are the links that end at the GPU (2n for DASH);
	// PairLocalLinks the HBM-HBF links (n); LogicalLinks their sum (3n).
	GPUFacingLinks, PairLocalLinks, LogicalLinks int
	// Capacity is HBM + HBF; ReferenceCapacity the 2n-HBM reference's.
	Capacity, ReferenceCapacity unit.Bytes
	// ExpertBandwidth is the usable rate at which HBF-resident experts can
	// reach the GPU: the direct links plus the relay routes (each relay
	// route is bounded by its two links' usable rate).
	ExpertBandwidth unit.BytesPerSecond
	// BeachfrontMM is the GPU die edge the GPU-facing links' UCIe modules
	// take (one endpoint each).
	BeachfrontMM float64
	// LinkPowerLow and LinkPowerHigh are the power of every logical link
	// fully used in one direction, at the low and high energy targets.
	LinkPowerLow, LinkPowerHigh unit.Watts
}

// ScalePairs evaluates the system's topology with 1..maxPairs pairs (the
// same paths, stacks and links per pair).
func ScalePairs(s SystemSpec, maxPairs int) ([]PairScaling, error) {
	if maxPairs < 1 || maxPairs > 1024 {
		return nil, fmt.Errorf("pairs %d: want 1 to 1024", maxPairs)
	}
	var out []PairScaling
	for n := 1; n <= maxPairs; n++ {
		t := s.Topology
		t.Pairs = n
		v := s
		v.Topology = t
		if err := v.Validate(); err != nil {
			return nil, err
		}
		p := PairScaling{Pairs: n, GPUFacingLinks: t.GPUFacingLinks(), LogicalLinks: t.Links(),
			Capacity: Capacity(v), ReferenceCapacity: ReferenceCapacity(v)}
		p.PairLocalLinks = p.LogicalLinks - p.GPUFacingLinks
		routes := 0
		if t.Direct() {
			routes += n
		}
		if t.Relay() {
			routes += n
		}
		p.ExpertBandwidth = unit.BytesPerSecond(routes) * s.Link.Usable
		p.BeachfrontMM = float64(p.GPUFacingLinks) * s.Link.EdgeWidthMM()
		lo, hi := s.Link.PowerRange()
		p.LinkPowerLow, p.LinkPowerHigh = unit.Watts(p.LogicalLinks)*lo, unit.Watts(p.LogicalLinks)*hi
		out = append(out, p)
	}
	return out, nil
}
