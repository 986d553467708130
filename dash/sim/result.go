package sim

import (
	"time"

	"github.com/dashlab/dashlab/dash/unit"
)

// Result is what one fixed-batch simulation measured.
//
// Definitions: TTFT is the end of the prefill pass, which produces each
// request's first token. Each of the L_out - 1 decode steps produces one
// more token per request; TPOT is their mean duration, (E2E - TTFT) /
// (L_out - 1). Throughput is output tokens per second of the whole run,
// B x L_out / E2E; DecodeThroughput counts the decode phase only,
// B x (L_out - 1) / (E2E - TTFT), and is the throughput the paper's Fig. 9
// compares (see the reproduce package).
type Result struct {
	Name, Model, System, GPU string
	Batch, Prompt, Output    int

	TTFT, E2E, TPOT  unit.Duration
	Throughput       float64 // output tokens/s over E2E
	DecodeThroughput float64 // tokens/s during decode

	// Prefill and Decode break the GPU time down by operator class.
	Prefill, Decode Phase
	// Links, Routes and HBF report traffic and utilisation.
	Links  []LinkStats
	Routes []RouteStats
	HBF    []HBFStats
	// Timeline is the traced layer, when Options.Trace asked for one.
	Timeline *Timeline
	// Extrapolated lists the operator shapes whose timing came from the GPU
	// model's fitted roofline, outside its measured range (sorted).
	Extrapolated []string
	// Perf describes the simulation itself.
	Perf Perf
}

// Phase is the time breakdown of the prefill or decode phase.
type Phase struct {
	Duration unit.Duration
	Classes  []ClassTime
}

// ClassTime is the GPU time of one operator class: Time is the sum of the
// operators' durations; Compute and Overhead the parts the GPU model
// predicts; Stall = Time - Compute - Overhead is time spent waiting for data
// beyond compute.
type ClassTime struct {
	Class                          string
	Ops                            int64
	Time, Compute, Overhead, Stall unit.Duration
}

// LinkStats is the traffic on one link direction of one stack pair.
type LinkStats struct {
	Pair        int
	Link        string
	Bytes       unit.Bytes
	Busy        unit.Duration
	Utilization float64 // Busy / E2E
}

// RouteStats is the traffic of one route.
type RouteStats struct {
	Route                string
	Requested, Delivered unit.Bytes
}

// HBFStats is the NAND-array activity of one HBF stack.
type HBFStats struct {
	Stack               int
	SenseBusy, ProgBusy unit.Duration
	Waves, Programs     int64
	TSVBusy             unit.Duration
	TSVBytes            unit.Bytes
}

// Timeline is the traced layer: operator spans on the GPU and segment
// transfers on the links (the paper's Fig. 6, drawn from the simulation).
type Timeline struct {
	Pass, Layer int
	Ops         []OpSpan
	Spans       []Span
}

// OpSpan is one GPU operator.
type OpSpan struct {
	Class      string
	Start, End unit.Duration
	Compute    unit.Duration
}

// Span is one segment crossing one link.
type Span struct {
	Route, Link, Class string
	Stack              int
	Start, End         unit.Duration
	Bytes              unit.Bytes
}

// Perf describes the cost of the simulation.
type Perf struct {
	// Events is the number of events handled one by one; SkippedEvents
	// the events that periodic jumps advanced in closed form.
	Events, SkippedEvents int64
	// Jumps counts periodic jumps; ReplayedPasses the decode steps whose
	// program had run before (see RunWith).
	Jumps          int64
	ReplayedPasses int
	// SkippedLayers counts layers advanced by layer-level jumps.
	SkippedLayers int64
	Passes        int
	Wall          time.Duration
}
