package reproduce

import (
	"fmt"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// computeFig9Bound computes the bound argument that opens Fig. 9 (see
// summary.Fig9Bound) for the paper's systems under r.
func computeFig9Bound(r dash.Reading) (summary.Fig9Bound, error) { return ComputeFig9BoundOf(r, nil) }

// ComputeFig9BoundOf computes the bound argument for the systems knobs make of
// the paper's (a notebook's knobs: the same its sweep sets; none for the
// paper's parts), so that the bound is that of the parts simulated. Its WhatIf
// lists the parts changed.
func ComputeFig9BoundOf(r dash.Reading, knobs []dash.Setting) (summary.Fig9Bound, error) {
	var b summary.Fig9Bound
	b.Reading = r
	if _, ok := r.ReadWaves(); !ok {
		return b, fmt.Errorf("reading %v: not a named reading", r)
	}
	for _, id := range Fig9Systems {
		paper, err := reference.System(id)
		if err != nil {
			return b, err
		}
		base := dash.NewExperiment().System(paper).Reading(r)
		ref, err := base.ResolvedSystem()
		if err != nil {
			return b, err
		}
		s := ref
		if len(knobs) > 0 {
			if s, err = base.With(knobs...).ResolvedSystem(); err != nil {
				return b, err
			}
			if err := s.Validate(); err != nil {
				return b, err
			}
		}
		b.WhatIf = b.WhatIf.Add(dash.DiffSystems(ref, s)...)
		h := s.HBF
		b.Array, b.TSV, b.Link = h.ArrayReadBandwidth(), h.TSVBandwidth, s.Link.Usable
		sb := summary.SystemBound{System: id, Stacks: s.Topology.Pairs}
		if s.Topology.Direct() {
			sb.Routes++
		}
		if s.Topology.Relay() {
			sb.Routes++
		}
		// A route carries chunks at the link's rate, or under the serial reading at
		// chunk / (t_R + chunk / link).
		routes := unit.BytesPerSecond(sb.Routes) * h.ChunkReadRate(sim.TransferChunk(s), s.Link.Usable)
		sb.PerStack, sb.Binding = routes, "links"
		if h.SerialRead {
			sb.Binding = "links with serial t_R"
		}
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
