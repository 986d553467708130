package serve

import (
	"time"

	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

// Run is what one serving simulation (one trace) measured.
type Run struct {
	// Model and System are the catalogue ids; Mode the schedule.
	Model  string `json:"model"`
	System string `json:"system"`
	Mode   Mode   `json:"mode"`
	// Routing is what per-token routing did over the run's passes (kinds
	// trace and synthetic; nil for the formula kinds).
	Routing *sim.RoutingStats `json:"routing,omitempty"`
	// Requests is the trace's length; Completed and Rejected count the
	// requests that finished and those refused (never fitting).
	Requests  int `json:"requests"`
	Completed int `json:"completed"`
	// Measured holds the measured window's requests, in arrival order.
	Measured []RequestMetrics `json:"measured"`
	// GapsMS are every inter-token gap of the measured requests, in ms.
	GapsMS []float64 `json:"gaps_ms"`
	// Rejections lists the refused requests with the reason.
	Rejections []Rejection `json:"rejections"`
	// Iterations is the per-iteration series (Config.Series).
	Iterations []Iteration `json:"iterations,omitempty"`
	// WindowStart and WindowEnd are the arrivals of the first and last
	// measured requests; InSystem is the time integral of the number of
	// requests in the system over that window (request-seconds), and
	// CompletedInWindow the requests that finished within it.
	// WindowRequests is the number of measured requests that arrived in
	// the window (fewer than the window's size in an interrupted run, whose
	// window ends at the last arrival simulated).
	WindowRequests    int           `json:"window_requests"`
	WindowStart       unit.Duration `json:"window_start_ns"`
	WindowEnd         unit.Duration `json:"window_end_ns"`
	InSystem          float64       `json:"in_system_request_s"`
	CompletedInWindow int           `json:"completed_in_window"`
	// KVAllocated and KVFreed are the KV bytes written for requests and
	// released when they finished (equal at the end of a complete run).
	KVAllocated unit.Bytes `json:"kv_allocated_bytes"`
	KVFreed     unit.Bytes `json:"kv_freed_bytes"`
	// MaxActive, MaxRows and MaxTokens are the largest active set, pass
	// rows and iteration tokens seen (bounded by the scheduler).
	MaxActive int `json:"max_active"`
	MaxRows   int `json:"max_rows"`
	MaxTokens int `json:"max_tokens"`
	// Iters, Passes and Replays count iterations, passes simulated and
	// passes replayed from identical earlier ones.
	Iters   int `json:"iterations_run"`
	Passes  int `json:"passes"`
	Replays int `json:"replayed_passes"`
	// SharedReplays counts the other passes replayed from a shared memo
	// (Config.Memo): what other simulations measured first, so it varies
	// from run to run and is left out of JSON.
	SharedReplays int `json:"-"`
	// SimTime is the simulated time at the end; Wall the real time taken.
	SimTime unit.Duration `json:"sim_time_ns"`
	Wall    time.Duration `json:"wall_ns"`
	// Interrupted reports a run stopped early (context cancelled): the
	// measured values cover the requests finished so far.
	Interrupted bool `json:"interrupted"`
}

// RequestMetrics are one request's latencies.
type RequestMetrics struct {
	// ID is the request's index in arrival order.
	ID int `json:"id"`
	// Prompt and Output are its lengths.
	Prompt int `json:"prompt_tokens"`
	Output int `json:"output_tokens"`
	// Arrival is its arrival time.
	Arrival unit.Duration `json:"arrival_ns"`
	// Queue is the wait from arrival to its first scheduled chunk.
	Queue unit.Duration `json:"queue_ns"`
	// TTFT is arrival to first token (the end of the pass that completed
	// its prompt).
	TTFT unit.Duration `json:"ttft_ns"`
	// TPOT is (E2E - TTFT) / (Output - 1); 0 for one-token outputs.
	TPOT unit.Duration `json:"tpot_ns"`
	// E2E is arrival to last token.
	E2E unit.Duration `json:"e2e_ns"`
}

// Rejection is a request refused because it can never fit.
type Rejection struct {
	// ID is the request's index.
	ID int `json:"id"`
	// Reason says what does not fit.
	Reason string `json:"reason"`
}

// Iteration is one scheduler iteration (one pass in Mixed, a decode and a
// prefill pass in Serial).
type Iteration struct {
	// Start and Duration bound the iteration.
	Start    unit.Duration `json:"start_ns"`
	Duration unit.Duration `json:"duration_ns"`
	// DecodeRows and PrefillRows count its rows; Tokens its tokens.
	DecodeRows  int `json:"decode_rows"`
	PrefillRows int `json:"prefill_rows"`
	Tokens      int `json:"tokens"`
	// Active is the active set and Waiting the queue, after admission.
	Active  int `json:"active"`
	Waiting int `json:"waiting"`
	// ActiveExperts is the distinct routed experts of one MoE layer (the
	// largest over the iteration's passes).
	ActiveExperts int `json:"active_experts"`
	// HBMRead, DirectRead, RelayRead and Written are bytes per route.
	HBMRead    unit.Bytes `json:"hbm_read_bytes"`
	DirectRead unit.Bytes `json:"direct_read_bytes"`
	RelayRead  unit.Bytes `json:"relay_read_bytes"`
	Written    unit.Bytes `json:"written_bytes"`
	// LinkUtilization is the busiest link direction's busy share.
	LinkUtilization float64 `json:"link_utilization"`
}
