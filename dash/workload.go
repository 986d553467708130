package dash

import (
	"errors"
	"fmt"
	"github.com/dashlab/dashlab/dash/gpu"
	"github.com/dashlab/dashlab/dash/unit"
)

// WorkloadSpec is a fixed-batch inference job: Batch requests, each with a
// Prompt-token prefill followed by Output generated tokens.
type WorkloadSpec struct {
	// Batch is the number of requests processed together (B). Range 1..65,536.
	Batch int `yaml:"batch" knob:"B | requests per batch | 1..65536 | §VI-A"`
	// Prompt is the prompt length in tokens (L_in). Range: at least 1;
	// Prompt + Output at most 16,777,216 (MaxTokens).
	Prompt int `yaml:"prompt" knob:"L_in | prompt tokens per request | 1..16777216 | §VI-A"`
	// Output is the number of generated tokens per request (L_out). Range:
	// at least 1 (see Prompt).
	Output int `yaml:"output" knob:"L_out | generated tokens per request | 1..16777216 | §VI-A"`
	// Routing chooses how tokens select experts.
	Routing RoutingSpec `yaml:"routing"`
}

// Routing kinds.
const (
	// RoutingBalanced is the paper's "analytical routing with balanced
	// per-expert rows": the B*k selections of a pass are spread over
	// min(E, B*k) distinct experts with equal rows (±1). Deterministic.
	RoutingBalanced = "balanced"
	// RoutingUniform draws each token's k experts uniformly without
	// replacement (seeded).
	RoutingUniform = "uniform"
	// RoutingZipf draws each token's k experts from a Zipf(s) popularity over
	// a seeded random permutation of the experts (seeded).
	RoutingZipf = "zipf"
)

// RoutingSpec selects the expert-routing model. The zero value is the
// paper's balanced routing.
type RoutingSpec struct {
	// Kind is "balanced" (default), "uniform" or "zipf".
	Kind string `yaml:"kind,omitempty" knob:" | expert-routing model (empty: balanced) | balanced, uniform, zipf | §VI-A (balanced)"`
	// Seed seeds the random kinds (ignored by balanced).
	Seed int64 `yaml:"seed,omitempty" knob:" | seed of the random routing kinds | | "`
	// ZipfS is the Zipf exponent s > 0 for kind "zipf" (1.0 is a strong
	// skew; 0.5 mild). Range: above 0, at most 100.
	ZipfS float64 `yaml:"zipf_s,omitempty" knob:" | Zipf exponent s of kind zipf | 0..100 | "`
}

// EffectiveKind is Kind with the default applied.
func (r RoutingSpec) EffectiveKind() string {
	if r.Kind == "" {
		return RoutingBalanced
	}
	return r.Kind
}

// Validate reports every bad field of the workload.
func (w WorkloadSpec) Validate() error {
	errs := w.limits()
	if w.Routing.EffectiveKind() == RoutingZipf && !(w.Routing.ZipfS > 0) {
		errs = append(errs, fmt.Errorf("workload.routing.zipf_s = %v: must be above 0 and at most %d for kind zipf", w.Routing.ZipfS, MaxZipfS))
	}
	return errors.Join(errs...)
}

// ExecutionSpec holds the execution-mode switches of the paper's section V.
// The zero value is the paper's default execution for the fixed-batch study:
// every mode the topology supports, conventional (late) expert selection.
type ExecutionSpec struct {
	// Lookahead enables early expert determination (§V-C): the routing
	// logits are split into a term of the layer input (computed before
	// attention) and a term of the attention output through the derived
	// matrix W_out diag(gamma) W_r (computed as soon as attention ends), so
	// the selected experts are known, and their HBF reads start, before the
	// output projection. It applies to routers without an expert-specific
	// additive bias (ModelSpec.LookaheadEligible); others keep conventional
	// selection, as in the paper. False is conventional selection.
	Lookahead bool `yaml:"lookahead,omitempty" knob:" | early expert determination | | §V-C"`
	// NoDualPath forces each expert onto a single route even when both
	// Direct and Relay exist (an ablation of the dual-path HBF read).
	NoDualPath bool `yaml:"no_dual_path,omitempty" knob:" | ablation: each expert on one route | | §V-B"`
	// NoParallelRead reads replicated weights and KV only from HBM (an
	// ablation of the parallel HBM/HBF read).
	NoParallelRead bool `yaml:"no_parallel_read,omitempty" knob:" | ablation: replicated data read from HBM only | | §V-B"`
	// KVBlockTokens is the paged-KV block: the cache is allocated, and the
	// attention kernel reads it, in blocks of this many tokens (0: 16, vLLM's
	// default). The last, partly filled block is read whole. Range
	// 0..16,777,216.
	KVBlockTokens int `yaml:"kv_block_tokens,omitempty" knob:" | paged-KV block in tokens (0: 16) | 0..16777216 | vLLM default 16"`
	// LaunchOnlyOverhead charges a memory-bound operator only the GPU's
	// kernel-launch floor on top of its delivery, instead of the fixed part
	// of its measured latency (launch, memory-pipeline fill and tail on the
	// profiled GPU's own HBM). The measured part is the default: it is what
	// the profile shows; part of it (the HBM ramp) the DASH memory model
	// already accounts for, so this switch bounds the effect from below.
	LaunchOnlyOverhead bool `yaml:"launch_only_overhead,omitempty" knob:" | memory-bound operators pay the launch floor only | | an engine bound"`
	// EarlyDelivery lets selected experts known before their operator starts
	// (with Lookahead) cross to the GPU ahead of it, into a bounded GPU-side
	// staging buffer, "allowing HBF read startup and weight delivery to
	// overlap with the following output projection computation" (§VI-D).
	// Early segments share the links with the running operators' own data
	// chunk by chunk, in arrival order (no priority either way); a segment
	// that finds the buffer full waits in base-die SRAM, as without early
	// delivery. The room is held until the experts' operator ends. False:
	// nothing enters the GPU before its operator starts.
	EarlyDelivery bool `yaml:"early_delivery,omitempty" knob:" | selected experts cross to the GPU before their operator | | §VI-D"`
	// EarlyDeliveryBuffer is the staging buffer's size (0: the GPU's L2
	// cache, gpu.Spec.L2, 50 MB on the H100: staged weights must stay on the
	// GPU die until their GEMM starts, and the L2 is the only on-die store
	// that large; staging in HBM instead would cost a write and a read of
	// the HBM array the early transfer is meant to save).
	EarlyDeliveryBuffer unit.Bytes `yaml:"early_delivery_buffer,omitempty" knob:" | GPU staging buffer of early delivery (0: the GPU L2) | 0 B..1000 TB | §VI-D"`
}

// EarlyDeliveryBufferFor is the staging buffer of early expert delivery on
// a GPU: EarlyDeliveryBuffer, or the GPU's L2 when that is 0.
func (x ExecutionSpec) EarlyDeliveryBufferFor(g gpu.Spec) unit.Bytes {
	if x.EarlyDeliveryBuffer > 0 {
		return x.EarlyDeliveryBuffer
	}
	return g.L2
}

// DefaultKVBlockTokens is the paged-KV block size when none is set.
const DefaultKVBlockTokens = 16

// BlockTokens is KVBlockTokens with the default applied.
func (x ExecutionSpec) BlockTokens() int {
	if x.KVBlockTokens <= 0 {
		return DefaultKVBlockTokens
	}
	return x.KVBlockTokens
}

// Validate reports bad execution switches.
func (x ExecutionSpec) Validate() error {
	return errors.Join(checkKnobs(KnobTarget{Execution: &x}, "execution.")...)
}
