package cluster

import (
	"errors"
	"math"

	"github.com/dashlab/dashlab/dash/unit"
)

// DispatchSpec is how the expert-parallel all-to-alls move tokens.
//
// Without deduplication every token-expert pair is a message row: a token
// whose k experts include three on one GPU is sent there three times, and
// three results come back (a plain all-to-all over the routed pairs, as
// Megatron's and vLLM's naive dispatchers do). With Dedup a token is sent
// once to each GPU holding at least one of its experts, and that GPU sends
// back one row, the weighted sum of its experts' outputs (DeepEP's
// dispatch and combine kernels; DeepSeek-V3 §3.2). DType fp8 sends the
// dispatched hidden states in FP8 with one FP32 scale per 128 channels
// (DeepSeek-V3 §3.3's fine-grained quantization, as DeepEP's FP8
// dispatch); the combine stays BF16 in every case.
//
// The expected number of distinct tokens a group sends to a GPU is the
// tokens times the probability that one token selects at least one of the
// GPU's experts: exactly 1 - C(E-s, k)/C(E, k) for balanced routing over
// E experts with s on the GPU, and 1 - prod(1 - q_x/c_x) otherwise (q_x = min(1,
// k share_x), c_x the expert's copies), clamped between the pairs over
// min(k, s) and the pairs.
type DispatchSpec struct {
	// Dedup sends a token once to each GPU holding any of its experts and
	// combines there before the way back.
	Dedup bool `yaml:"dedup,omitempty" knob:"| a token sent once to each GPU holding any of its experts (combined there before the way back) | | DeepEP (DeepSeek 2025); DeepSeek-V3 §3.2"`
	// DType is the dispatched hidden states' element type: bf16 (default)
	// or fp8 (with one FP32 scale per 128 channels).
	DType string `yaml:"dtype,omitempty" knob:"| element type of the dispatched hidden states (empty: bf16; the combine stays bf16) | bf16, fp8 | DeepSeek-V3 §3.3 (FP8 dispatch, 1x128 scales)"`
}

// Dispatch element types.
const (
	DispatchBF16 = "bf16"
	DispatchFP8  = "fp8"
)

// fp8Group is the channels one FP32 scale covers in FP8 dispatch.
const fp8Group = 128

func (d DispatchSpec) validate() error {
	if errs := rangeErrors(&Layout{Dispatch: d}, "parallel", "placement", "routing"); len(errs) > 0 {
		return errors.Join(errs...)
	}
	return nil
}

// tokenBytes is the size of one dispatched token of width hidden.
func (d DispatchSpec) tokenBytes(hidden int) unit.Bytes {
	if d.DType == DispatchFP8 {
		return unit.Bytes(hidden) + unit.Bytes((hidden+fp8Group-1)/fp8Group)*4
	}
	return unit.Bytes(hidden) * actBytes
}

// hitProb is, per GPU of the placement, the probability that one token
// selecting k experts selects at least one held by the GPU (a copy of an
// expert with c copies receives 1/c of its pairs).
func (lp *layerPlacement) hitProb(k int, balanced bool) []float64 {
	e := len(lp.copies)
	out := make([]float64, len(lp.gpus))
	for g, xs := range lp.gpus {
		if balanced && lp.single() {
			miss := 1.0 // C(E-s, k) / C(E, k)
			for i := range k {
				miss *= max(0, float64(e-len(xs)-i)) / float64(e-i)
			}
			out[g] = 1 - miss
			continue
		}
		miss := 1.0
		for _, x := range xs {
			q := min(1, float64(k)*lp.share[x])
			miss *= 1 - q/float64(len(lp.copies[x]))
		}
		out[g] = 1 - miss
	}
	return out
}

// single reports whether every expert has one copy.
func (lp *layerPlacement) single() bool {
	for _, c := range lp.copies {
		if len(c) != 1 {
			return false
		}
	}
	return true
}

// distinctTokens is how many distinct tokens carry pairs token-expert
// pairs of n tokens to a GPU with slots experts, each token hitting it
// with probability p: n p, within what the pairs allow.
func distinctTokens(n, pairs, k, slots int, p float64) int {
	if pairs <= 0 {
		return 0
	}
	lo := (pairs + min(k, slots) - 1) / min(k, slots)
	return min(pairs, n, max(lo, int(math.Round(float64(n)*p))))
}
