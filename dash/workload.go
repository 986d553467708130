package dash

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dashlab/dashlab/dash/gpu"
	"github.com/dashlab/dashlab/dash/routing"
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
	// RoutingTrace replays recorded routing: the experts every token
	// selected at every MoE layer, read from File (package routing: JSON
	// Lines, Parquet or a vLLM capture). Experiment request i replays trace
	// request i; beyond the trace, Wrap decides.
	RoutingTrace = "trace"
	// RoutingSynthetic draws per-token routing with the properties real
	// traces show: a fixed per-layer popularity of Zipf exponent ZipfS,
	// temporal locality (Repeat), cross-layer correlation (LayerCorr) and a
	// per-request task mix (Tasks, TaskOverlap); see routing.Synthetic.
	RoutingSynthetic = "synthetic"
)

// RoutingSpec selects the expert-routing model. The zero value is the
// paper's balanced routing.
type RoutingSpec struct {
	// Kind is "balanced" (default), "uniform", "zipf", "trace" or
	// "synthetic".
	Kind string `yaml:"kind,omitempty" knob:" | expert-routing model (empty: balanced) | balanced, uniform, zipf, trace, synthetic | §VI-A (balanced); issue 28 (trace, synthetic)"`
	// Seed seeds the random kinds (ignored by balanced and trace).
	Seed int64 `yaml:"seed,omitempty" knob:" | seed of the random routing kinds | | "`
	// ZipfS is the Zipf exponent s for kind "zipf" (1.0 is a strong
	// skew; 0.5 mild) and the per-layer popularity skew of kind
	// "synthetic" (0 there: uniform). Range: 0 to 100; above 0 for zipf.
	ZipfS float64 `yaml:"zipf_s,omitempty" knob:" | Zipf exponent s of kinds zipf and synthetic | 0..100 | DeepSeek-V3 arXiv:2412.19437 §4.5.3 (relative expert load up to 10)"`
	// File is the routing trace of kind "trace": a .jsonl or .parquet
	// trace or a .vllm.jsonl capture (relative paths: to the experiment
	// file, or the working directory).
	File string `yaml:"file,omitempty" json:",omitempty" knob:" | routing trace file of kind trace (.jsonl, .parquet or .vllm.jsonl) | | issue 28"`
	// Wrap lets an experiment run past the trace: request i replays trace
	// request i mod R and token t its token t mod n. False refuses an
	// experiment that needs a request or token the trace lacks.
	Wrap bool `yaml:"wrap,omitempty" json:",omitempty" knob:" | requests and tokens beyond the trace wrap around (false: refused) | | issue 28"`
	// Repeat is kind synthetic's temporal locality: the probability that
	// a token's expert slot repeats the previous token's (0.16 gives
	// Mixtral's measured repetition: routing.MixtralRepeat). Range 0..1.
	Repeat float64 `yaml:"repeat,omitempty" json:",omitempty" knob:" | probability a token repeats the previous token's expert (synthetic) | 0..1 | Mixtral arXiv:2401.04088 Table 5"`
	// LayerCorr is kind synthetic's cross-layer correlation: the
	// probability that a slot follows the token's path from the previous
	// MoE layer. Range 0..1.
	LayerCorr float64 `yaml:"layer_corr,omitempty" json:",omitempty" knob:" | probability an expert follows the previous layer's path (synthetic) | 0..1 | ExFlow arXiv:2401.08383"`
	// Tasks is kind synthetic's number of tasks in the request mix (0 or
	// 1: one). Range 0..64.
	Tasks int `yaml:"tasks,omitempty" json:",omitempty" knob:" | tasks in the request mix (synthetic) | 0..64 | Mixtral §5 Fig. 7; DeepSeek-V3 §4.5.3"`
	// TaskOverlap is the share of a task's popularity common to all tasks
	// (synthetic): 1 one ranking, 0 a ranking per task. Range 0..1.
	TaskOverlap float64 `yaml:"task_overlap,omitempty" json:",omitempty" knob:" | popularity shared by the tasks (synthetic) | 0..1 | Mixtral §5 Fig. 7; DeepSeek-V3 §4.5.3"`
}

// EffectiveKind is Kind with the default applied.
func (r RoutingSpec) EffectiveKind() string {
	if r.Kind == "" {
		return RoutingBalanced
	}
	return r.Kind
}

// Recorded reports whether the routing is per token (kinds trace and
// synthetic): the engine asks package routing which experts each token
// selects.
func (r RoutingSpec) Recorded() bool {
	k := r.EffectiveKind()
	return k == RoutingTrace || k == RoutingSynthetic
}

// Synthetic is the generator's parameters of kind synthetic.
func (r RoutingSpec) Synthetic() routing.Synthetic {
	return routing.Synthetic{Seed: uint64(r.Seed), Skew: r.ZipfS, Repeat: r.Repeat, LayerCorr: r.LayerCorr, Tasks: r.Tasks, TaskOverlap: r.TaskOverlap}
}

// Validate reports every bad field of the workload.
func (w WorkloadSpec) Validate() error {
	errs := w.limits()
	r := w.Routing
	kind := r.EffectiveKind()
	if kind == RoutingZipf && !(r.ZipfS > 0) {
		errs = append(errs, fmt.Errorf("workload.routing.zipf_s = %v: must be above 0 and at most %d for kind zipf", r.ZipfS, MaxZipfS))
	}
	if kind == RoutingTrace && r.File == "" {
		errs = append(errs, errors.New("workload.routing.file: kind trace needs a routing trace file (.jsonl, .parquet or .vllm.jsonl)"))
	}
	only := func(field string, set bool, kinds ...string) {
		if set && !slices.Contains(kinds, kind) {
			errs = append(errs, fmt.Errorf("workload.routing.%s is set, but it applies to kind %s only (kind is %s)", field, strings.Join(kinds, " or "), kind))
		}
	}
	only("file", r.File != "", RoutingTrace)
	only("wrap", r.Wrap, RoutingTrace)
	only("repeat", r.Repeat != 0, RoutingSynthetic)
	only("layer_corr", r.LayerCorr != 0, RoutingSynthetic)
	only("tasks", r.Tasks != 0, RoutingSynthetic)
	only("task_overlap", r.TaskOverlap != 0, RoutingSynthetic)
	only("zipf_s", r.ZipfS != 0, RoutingZipf, RoutingSynthetic)
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
	// HBMWhileProgramming turns on the §V-B mode in which an operator's
	// replicated weights are read from HBM alone when it issues its reads
	// while an HBF stack programs (or KV is on its way to be programmed):
	// "the current layer's output-projection weights can be fetched from HBM
	// while HBF programming overlaps the attention computation". Off (the
	// default), the split of replicated weights counts how long their HBF
	// share would wait for the programs ahead of it, past the operator's
	// earliest start, and that share waits for them as other reads do.
	HBMWhileProgramming bool `yaml:"hbm_while_programming,omitempty" json:",omitempty" knob:" | replicated weights read from HBM alone while a stack programs (§V-B direct prefill write) | | §V-B"`
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
	// ExpertCache keeps the hottest routed experts in HBM, a policy the
	// paper does not explore (its placement keeps every expert in HBF
	// only). The zero value is no cache: the paper's placement.
	ExpertCache ExpertCacheSpec `yaml:"expert_cache,omitempty" json:",omitempty"`
}

// ExpertCacheSpec is the HBM expert cache: Budget bytes of HBM hold copies
// of routed experts (taken from the decode-KV budget, so a larger cache
// spills decode KV to HBF sooner); a selected expert the cache holds is
// read from HBM when its operator starts instead of from HBF, and a missed
// one may be filled (written into HBM as it arrives) under the policy.
type ExpertCacheSpec struct {
	// Budget is the HBM the cache holds, package-wide; it holds
	// floor(Budget / expert size) experts. 0: no cache.
	Budget unit.Bytes `yaml:"budget,omitempty" json:",omitempty" knob:" | HBM held for hot experts, taken from the decode-KV budget | 0 B..1000 TB | issue 28 (not in the paper)"`
	// Policy is the replacement policy (empty: lru): static pins the
	// experts the routing selects most (an offline profile of the trace, or
	// of the run's own draws), lru fills every miss evicting the least
	// recently used, lfu fills a miss only when it was selected more often
	// than the least frequently selected expert held.
	Policy string `yaml:"policy,omitempty" json:",omitempty" knob:" | expert cache replacement policy (empty: lru) | static, lru, lfu | issue 28"`
}

// Enabled reports whether the cache holds any HBM.
func (c ExpertCacheSpec) Enabled() bool { return c.Budget > 0 }

// EffectivePolicy is Policy with the default applied.
func (c ExpertCacheSpec) EffectivePolicy() string {
	if c.Policy == "" {
		return routing.PolicyLRU
	}
	return c.Policy
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
