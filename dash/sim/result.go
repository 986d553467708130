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
	Name   string `json:"name"`
	Model  string `json:"model"`
	System string `json:"system"`
	GPU    string `json:"gpu"`
	// Batch, Prompt and Output are B, L_in and L_out.
	Batch  int `json:"batch"`
	Prompt int `json:"prompt_tokens"`
	Output int `json:"output_tokens"`

	// TTFT is the time to the first token (the end of the prefill pass).
	TTFT unit.Duration `json:"ttft_ns"`
	// E2E is the time to the last token.
	E2E unit.Duration `json:"e2e_ns"`
	// TPOT is the mean time per output token after the first.
	TPOT unit.Duration `json:"tpot_ns"`
	// Throughput is output tokens per second over E2E.
	Throughput float64 `json:"throughput_tok_s"`
	// DecodeThroughput is tokens per second during the decode phase.
	DecodeThroughput float64 `json:"decode_throughput_tok_s"`

	// Prefill and Decode break the GPU time down by operator class.
	Prefill Phase `json:"prefill"`
	Decode  Phase `json:"decode"`
	// Links is the traffic of each link direction that carried any.
	Links []LinkStats `json:"links"`
	// Routes is the traffic of each route, requested and delivered.
	Routes []RouteStats `json:"routes"`
	// HBF is the activity of each HBF stack's array and TSV.
	HBF []HBFStats `json:"hbf"`
	// Early is the early expert delivery into the GPU staging buffer.
	Early EarlyStats `json:"early"`
	// KV is where the KV cache ended up and what moved it there.
	KV KVStats `json:"kv"`
	// Flash is the HBF flash management: superblocks, erases, write
	// amplification, program-busy time.
	Flash FlashStats `json:"flash"`
	// Routing is what per-token routing did (kinds trace and synthetic;
	// nil for the formula kinds).
	Routing *RoutingStats `json:"routing,omitempty"`
	// Timeline is the traced layer, when Options.Trace asked for one.
	Timeline *Timeline `json:"timeline,omitempty"`
	// Extrapolated lists the operator shapes whose timing came from the GPU
	// model's fitted roofline, outside its measured range (sorted).
	Extrapolated []string `json:"extrapolated"`
	// Perf describes the simulation itself.
	Perf Perf `json:"perf"`
}

// EarlyStats describes early expert delivery (dash.ExecutionSpec.EarlyDelivery).
type EarlyStats struct {
	// Buffer is the GPU staging buffer's size (0: early delivery off).
	Buffer unit.Bytes `json:"buffer_bytes"`
	// Delivered counts the bytes that entered the buffer before their
	// operator started; Peak is the most it held at once (at most Buffer).
	Delivered unit.Bytes `json:"delivered_bytes"`
	Peak      unit.Bytes `json:"peak_bytes"`
}

// Phase is the time breakdown of the prefill or decode phase.
type Phase struct {
	// Duration is the phase's wall time (simulated).
	Duration unit.Duration `json:"duration_ns"`
	// Classes is the GPU time per operator class, in class order.
	Classes []ClassTime `json:"classes"`
}

// ClassTime is the GPU time of one operator class: Time is the sum of the
// operators' durations; Compute and Overhead the parts the GPU model
// predicts; Stall = Time - Compute - Overhead is time spent waiting for data
// beyond compute.
type ClassTime struct {
	// Class is the operator class (ClassExperts, ...; "experts" in JSON).
	Class OpClass `json:"class"`
	// Ops counts the operators run.
	Ops int64 `json:"ops"`
	// Time is the operators' total duration.
	Time unit.Duration `json:"time_ns"`
	// Compute and Overhead are the parts the GPU timing model predicts.
	Compute  unit.Duration `json:"compute_ns"`
	Overhead unit.Duration `json:"overhead_ns"`
	// Stall is Time - Compute - Overhead: waiting for data.
	Stall unit.Duration `json:"stall_ns"`
}

// LinkStats is the traffic on one link direction of one stack pair.
type LinkStats struct {
	// Pair is the stack pair.
	Pair int `json:"pair"`
	// Link is the direction ("GPU<-HBF", "HBF->HBM", ...).
	Link string `json:"link"`
	// Bytes is what the direction carried.
	Bytes unit.Bytes `json:"bytes"`
	// Busy is how long it was busy.
	Busy unit.Duration `json:"busy_ns"`
	// Utilization is Busy / E2E.
	Utilization float64 `json:"utilization"`
}

// RouteStats is the traffic of one route.
type RouteStats struct {
	// Route is the route (RouteRelay, ...; "relay" in JSON).
	Route Route `json:"route"`
	// Requested and Delivered are equal at the end of a run (conservation).
	Requested unit.Bytes `json:"requested_bytes"`
	Delivered unit.Bytes `json:"delivered_bytes"`
}

// HBFStats is the NAND-array activity of one HBF stack.
type HBFStats struct {
	// Stack is the HBF stack.
	Stack int `json:"stack"`
	// SenseBusy is the array's time sensing (t_R per wave).
	SenseBusy unit.Duration `json:"sense_busy_ns"`
	// ProgBusy is the array's time programming (t_PROG per wave, and t_RES
	// per resumption).
	ProgBusy unit.Duration `json:"prog_busy_ns"`
	// Waves counts the page waves sensed.
	Waves int64 `json:"waves"`
	// Programs counts the page waves programmed; Suspends the times a read
	// suspended a program (hbf.program_suspend).
	Programs int64 `json:"programs"`
	Suspends int64 `json:"suspends,omitempty"`
	// Flushes counts written waves programmed short of a page wave because
	// the transfer SRAM was full of such waves and nothing else could move.
	Flushes int64 `json:"flushes,omitempty"`
	// TSVBusy is the shared TSV's busy time.
	TSVBusy unit.Duration `json:"tsv_busy_ns"`
	// TSVBytes is what the TSV moved.
	TSVBytes unit.Bytes `json:"tsv_bytes"`
	// Resensed counts the sensed transfer chunks dropped from the page
	// registers so that a program could use the array, and sensed again
	// (when written KV filled the transfer SRAM while they waited for it).
	Resensed int64 `json:"resensed_chunks"`
}

// Timeline is the traced layer: operator spans on the GPU and segment
// transfers on the links (the paper's Fig. 6, drawn from the simulation).
type Timeline struct {
	// Pass and Layer say what was traced (pass 0 is the prefill).
	Pass  int `json:"pass"`
	Layer int `json:"layer"`
	// Ops are the GPU operators of the layer, in order.
	Ops []OpSpan `json:"ops"`
	// Spans are the segments that crossed a link for the layer's operators.
	Spans []Span `json:"spans"`
}

// OpSpan is one GPU operator.
type OpSpan struct {
	// Class is the operator class.
	Class OpClass `json:"class"`
	// Start and End bound the operator on the GPU.
	Start unit.Duration `json:"start_ns"`
	End   unit.Duration `json:"end_ns"`
	// Compute is its predicted compute time.
	Compute unit.Duration `json:"compute_ns"`
}

// Span is one segment crossing one link.
type Span struct {
	// Route, Link and Class name the route, the link direction and the
	// class of the operator the data belong to.
	Route Route   `json:"route"`
	Link  string  `json:"link"`
	Class OpClass `json:"class"`
	// Stack is the stack pair whose link it crossed.
	Stack int `json:"stack"`
	// Start and End bound the crossing.
	Start unit.Duration `json:"start_ns"`
	End   unit.Duration `json:"end_ns"`
	// Bytes is the segment's size.
	Bytes unit.Bytes `json:"bytes"`
}

// Perf describes the cost of the simulation.
type Perf struct {
	// Events is the number of events handled one by one; SkippedEvents
	// the events that periodic jumps advanced in closed form.
	Events        int64 `json:"events"`
	SkippedEvents int64 `json:"skipped_events"`
	// Jumps counts periodic jumps.
	Jumps int64 `json:"jumps"`
	// ReplayedPasses counts the decode steps whose program had run before.
	ReplayedPasses int `json:"replayed_passes"`
	// SampledPasses counts the decode passes a sampled decode
	// (Options.DecodeSample) simulated; the other steps were interpolated.
	SampledPasses int `json:"sampled_passes"`
	// SkippedLayers counts layers advanced by layer-level jumps.
	SkippedLayers int64 `json:"skipped_layers"`
	// ReplayedSegments counts decode-pass segments (from one attention
	// kernel to the next) replayed from an earlier step (segment.go).
	ReplayedSegments int64 `json:"replayed_segments"`
	// ReplayedRests counts, of ReplayedSegments, the rests of segments
	// replayed from an operator boundary within them (segment.go).
	ReplayedRests int64 `json:"replayed_rests"`
	// SimulatedKernels counts the attention kernels of segment-replaying
	// passes that ran never before in the same state and so were simulated
	// (segment.go); what such a pass costs grows with them.
	SimulatedKernels int64 `json:"simulated_kernels"`
	// ResumedKernels counts, of SimulatedKernels, the kernels that started
	// from the checkpoint of an earlier kernel reading less from HBM
	// (fork.go).
	ResumedKernels int64 `json:"resumed_kernels"`
	// Passes is the number of forward passes (1 + L_out - 1).
	Passes int `json:"passes"`
	// Wall is the real time the simulation took. It is left out of JSON so
	// that a result is the same, byte for byte, on every run.
	Wall time.Duration `json:"-"`
}

// KVStats is the KV-cache placement at the end of a run (§V-A): the prompt's
// KV in HBF, the decode KV in HBM up to the package-wide budget and the
// rest written back to HBF in page waves (§V-B).
type KVStats struct {
	// PrefillHBF is the prompt's KV, written directly to HBF.
	PrefillHBF unit.Bytes `json:"prefill_hbf_bytes"`
	// DecodeHBM and DecodeHBF are the generated tokens' KV left in HBM and
	// written back to HBF.
	DecodeHBM unit.Bytes `json:"decode_hbm_bytes"`
	DecodeHBF unit.Bytes `json:"decode_hbf_bytes"`
	// BudgetHBM is the package-wide decode-KV budget in HBM.
	BudgetHBM unit.Bytes `json:"budget_hbm_bytes"`
	// WritebackWaves counts the page waves (one layer's oldest KV, every
	// stack's part) written back; FirstWritebackStep is the decode step of
	// the first (0: none).
	WritebackWaves     int64 `json:"writeback_waves"`
	FirstWritebackStep int   `json:"first_writeback_step"`
}

// HBM is the KV resident in HBM; HBF the KV in HBF; Total both.
func (k KVStats) HBM() unit.Bytes { return k.DecodeHBM }

// HBF is the KV resident in HBF (prompt and written-back decode KV).
func (k KVStats) HBF() unit.Bytes { return k.PrefillHBF + k.DecodeHBF }

// Total is the whole KV cache.
func (k KVStats) Total() unit.Bytes { return k.HBM() + k.HBF() }
