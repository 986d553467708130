package reproduce

import (
	"fmt"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/reference/summary"
)

// ComputeFig9Bound computes the bound argument that opens Fig. 9 (see
// summary.Fig9Bound) for the paper's systems under r.
func ComputeFig9Bound(r dash.Reading) (summary.Fig9Bound, error) {
	var b summary.Fig9Bound
	b.Reading = r
	waves, ok := r.ReadWaves()
	if !ok {
		return b, fmt.Errorf("reading %v: not a named reading", r)
	}
	for _, id := range Fig9Systems {
		s, err := reference.System(id)
		if err != nil {
			return b, err
		}
		s.HBF.ReadWavesInFlight = waves
		h := s.HBF
		b.Array, b.TSV, b.Link = h.ArrayReadBandwidth(), h.TSVBandwidth, s.Link.Usable
		sb := summary.SystemBound{System: id, Stacks: s.Topology.Pairs}
		if s.Topology.Direct() {
			sb.Routes++
		}
		if s.Topology.Relay() {
			sb.Routes++
		}
		routes := unit.BytesPerSecond(sb.Routes) * s.Link.Usable
		sb.PerStack, sb.Binding = routes, "links"
		if h.TSVBandwidth < sb.PerStack {
			sb.PerStack, sb.Binding = h.TSVBandwidth, "TSV"
		}
		if b.Array < sb.PerStack {
			sb.PerStack, sb.Binding = b.Array, "array"
		}
		sb.Total = unit.BytesPerSecond(sb.Stacks) * sb.PerStack
		b.Systems = append(b.Systems, sb)
	}
	return b, nil
}
