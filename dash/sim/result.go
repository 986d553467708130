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
	// Name is the experiment's name; Model, System and GPU its catalogue ids.
	Name, Model, System, GPU string
	// Batch, Prompt and Output are B, L_in and L_out.
	Batch, Prompt, Output int

	// TTFT is the time to the first token (the end of the prefill pass).
	TTFT unit.Duration
	// E2E is the time to the last token.
	E2E unit.Duration
	// TPOT is the mean time per output token after the first.
	TPOT unit.Duration
	// Throughput is output tokens per second over E2E.
	Throughput float64
	// DecodeThroughput is tokens per second during the decode phase.
	DecodeThroughput float64

	// Prefill and Decode break the GPU time down by operator class.
	Prefill, Decode Phase
	// Links is the traffic of each link direction that carried any.
	Links []LinkStats
	// Routes is the traffic of each route, requested and delivered.
	Routes []RouteStats
	// HBF is the activity of each HBF stack's array and TSV.
	HBF []HBFStats
	// Early is the early expert delivery into the GPU staging buffer.
	Early EarlyStats
	// KV is where the KV cache ended up and what moved it there.
	KV KVStats
	// Flash is the HBF flash management: superblocks, erases, write
	// amplification, program-busy time.
	Flash FlashStats
	// Timeline is the traced layer, when Options.Trace asked for one.
	Timeline *Timeline
	// Extrapolated lists the operator shapes whose timing came from the GPU
	// model's fitted roofline, outside its measured range (sorted).
	Extrapolated []string
	// Perf describes the simulation itself.
	Perf Perf
}

// EarlyStats describes early expert delivery (dash.ExecutionSpec.EarlyDelivery).
type EarlyStats struct {
	// Buffer is the GPU staging buffer's size (0: early delivery off).
	Buffer unit.Bytes
	// Delivered counts the bytes that entered the buffer before their
	// operator started; Peak is the most it held at once (at most Buffer).
	Delivered, Peak unit.Bytes
}

// Phase is the time breakdown of the prefill or decode phase.
type Phase struct {
	// Duration is the phase's wall time (simulated).
	Duration unit.Duration
	// Classes is the GPU time per operator class, in class order.
	Classes []ClassTime
}

// ClassTime is the GPU time of one operator class: Time is the sum of the
// operators' durations; Compute and Overhead the parts the GPU model
// predicts; Stall = Time - Compute - Overhead is time spent waiting for data
// beyond compute.
type ClassTime struct {
	// Class is the operator class ("experts", "attn_proj", ...).
	Class string
	// Ops counts the operators run.
	Ops int64
	// Time is the operators' total duration.
	Time unit.Duration
	// Compute and Overhead are the parts the GPU timing model predicts.
	Compute, Overhead unit.Duration
	// Stall is Time - Compute - Overhead: waiting for data.
	Stall unit.Duration
}

// LinkStats is the traffic on one link direction of one stack pair.
type LinkStats struct {
	// Pair is the stack pair.
	Pair int
	// Link is the direction ("GPU<-HBF", "HBF->HBM", ...).
	Link string
	// Bytes is what the direction carried.
	Bytes unit.Bytes
	// Busy is how long it was busy.
	Busy unit.Duration
	// Utilization is Busy / E2E.
	Utilization float64
}

// RouteStats is the traffic of one route.
type RouteStats struct {
	// Route is "hbm", "direct", "relay", "direct_write", "relay_write",
	// "hbm_write" or "writeback".
	Route string
	// Requested and Delivered are equal at the end of a run (conservation).
	Requested, Delivered unit.Bytes
}

// HBFStats is the NAND-array activity of one HBF stack.
type HBFStats struct {
	// Stack is the HBF stack.
	Stack int
	// SenseBusy is the array's time sensing (t_R per wave).
	SenseBusy unit.Duration
	// ProgBusy is the array's time programming (t_PROG per wave).
	ProgBusy unit.Duration
	// Waves counts the page waves sensed.
	Waves int64
	// Programs counts the page waves programmed.
	Programs int64
	// TSVBusy is the shared TSV's busy time.
	TSVBusy unit.Duration
	// TSVBytes is what the TSV moved.
	TSVBytes unit.Bytes
}

// Timeline is the traced layer: operator spans on the GPU and segment
// transfers on the links (the paper's Fig. 6, drawn from the simulation).
type Timeline struct {
	// Pass and Layer say what was traced (pass 0 is the prefill).
	Pass, Layer int
	// Ops are the GPU operators of the layer, in order.
	Ops []OpSpan
	// Spans are the segments that crossed a link for the layer's operators.
	Spans []Span
}

// OpSpan is one GPU operator.
type OpSpan struct {
	// Class is the operator class.
	Class string
	// Start and End bound the operator on the GPU.
	Start, End unit.Duration
	// Compute is its predicted compute time.
	Compute unit.Duration
}

// Span is one segment crossing one link.
type Span struct {
	// Route, Link and Class name the route, the link direction and the
	// class of the operator the data belong to.
	Route, Link, Class string
	// Stack is the stack pair whose link it crossed.
	Stack int
	// Start and End bound the crossing.
	Start, End unit.Duration
	// Bytes is the segment's size.
	Bytes unit.Bytes
}

// Perf describes the cost of the simulation.
type Perf struct {
	// Events is the number of events handled one by one; SkippedEvents
	// the events that periodic jumps advanced in closed form.
	Events, SkippedEvents int64
	// Jumps counts periodic jumps.
	Jumps int64
	// ReplayedPasses counts the decode steps whose program had run before.
	ReplayedPasses int
	// SampledPasses counts the decode passes a sampled decode
	// (Options.DecodeSample) simulated; the other steps were interpolated.
	SampledPasses int
	// SkippedLayers counts layers advanced by layer-level jumps.
	SkippedLayers int64
	// Passes is the number of forward passes (1 + L_out - 1).
	Passes int
	// Wall is the real time the simulation took. It is left out of JSON so
	// that a result is the same, byte for byte, on every run.
	Wall time.Duration `json:"-"`
}

// KVStats is the KV-cache placement at the end of a run (§V-A): the prompt's
// KV in HBF, the decode KV in HBM up to the package-wide budget and the
// rest written back to HBF in page waves (§V-B).
type KVStats struct {
	// PrefillHBF is the prompt's KV, written directly to HBF.
	PrefillHBF unit.Bytes
	// DecodeHBM and DecodeHBF are the generated tokens' KV left in HBM and
	// written back to HBF.
	DecodeHBM, DecodeHBF unit.Bytes
	// BudgetHBM is the package-wide decode-KV budget in HBM.
	BudgetHBM unit.Bytes
	// WritebackWaves counts the page waves (one layer's oldest KV, every
	// stack's part) written back; FirstWritebackStep is the decode step of
	// the first (0: none).
	WritebackWaves     int64
	FirstWritebackStep int
}

// HBM is the KV resident in HBM; HBF the KV in HBF; Total both.
func (k KVStats) HBM() unit.Bytes { return k.DecodeHBM }

// HBF is the KV resident in HBF (prompt and written-back decode KV).
func (k KVStats) HBF() unit.Bytes { return k.PrefillHBF + k.DecodeHBF }

// Total is the whole KV cache.
func (k KVStats) Total() unit.Bytes { return k.HBM() + k.HBF() }
