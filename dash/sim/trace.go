package sim

// traceRec records the timeline of one layer (see Options.Trace).
type traceRec struct {
	layer int
	spans []Span
	ops   []OpSpan
}

// traceOp records an operator boundary when tracing its layer.
func (e *engine) traceOp(i int, what string) {
	if e.trace == nil || e.pass.ops[i].layer != e.trace.layer {
		return
	}
	spec := &e.pass.ops[i]
	if what == "end" {
		e.trace.ops = append(e.trace.ops, OpSpan{Class: spec.class, Start: e.ops[i].start, End: e.now,
			Compute: spec.compute})
	}
}

// traceSeg records a segment crossing a link (hop h of route r) when
// tracing.
func (e *engine) traceSeg(r *route, h *hop, start, end Time, sg seg) {
	if e.trace == nil {
		return
	}
	c := e.streams[sg.stream].op
	if e.pass.ops[c].layer != e.trace.layer {
		return
	}
	// The reservation may start after now (the link was busy).
	e.trace.spans = append(e.trace.spans, Span{Route: r.kind, Stack: int(r.pair), Link: e.cfg.rt.links[h.link].label,
		Start: max(start, e.now), End: end, Bytes: sg.bytes, Class: e.pass.ops[c].class})
}
