package gpu

import (
	"fmt"
	"strconv"

	"github.com/dashlab/dashlab/dash/unit"
)

// OpKind is the kind of a GPU operator.
type OpKind int

// The operator kinds the profile measures. The zero OpKind is not a kind:
// Predict answers it with the launch floor, marked Extrapolated.
const (
	// GEMM is X[M,K] @ W[K,N]: a projection over M tokens.
	GEMM OpKind = iota + 1
	// Grouped is one SwiGLU expert block for Experts active experts with Rows
	// token rows each: a batched gate+up matmul [r,Hidden]x[Hidden,2*Inter],
	// SiLU(gate)*up, and a batched down matmul [r,Inter]x[Inter,Hidden].
	Grouped
	// AttnPrefill is causal FlashAttention over QLen new tokens that attend
	// to KVLen cached ones (KVLen includes the new tokens), per request.
	AttnPrefill
	// AttnDecode is GQA attention of QLen (usually 1) query tokens per
	// request over a KV cache of KVLen tokens.
	AttnDecode
	// AttnDecodeMLA is DeepSeek multi-head latent attention in the absorbed
	// form: Heads query heads over one shared cached latent of width
	// LatentDim+RopeDim per token.
	AttnDecodeMLA
	// RMSNorm normalises M rows of Dim elements.
	RMSNorm
	// Route is router scoring: softmax over Experts scores per token and the
	// top-TopK selection, for M tokens.
	Route
)

var kindNames = map[OpKind]string{
	GEMM: "gemm", Grouped: "grouped", AttnPrefill: "attn-prefill", AttnDecode: "attn-decode",
	AttnDecodeMLA: "attn-decode-mla", RMSNorm: "rmsnorm", Route: "route",
}

// String returns the kind's lower-case name ("gemm", "attn-decode-mla").
func (k OpKind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return "OpKind(" + strconv.Itoa(int(k)) + ")"
}

// ParseOpKind is the inverse of [OpKind.String].
func ParseOpKind(s string) (OpKind, error) {
	for k, n := range kindNames {
		if n == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("unknown operator kind %q (want gemm, grouped, attn-prefill, attn-decode, attn-decode-mla, rmsnorm or route)", s)
}

// DType is the stored element type of an operator's weights.
type DType int

// Weight storage types. The zero value is BF16, what the profile measures.
const (
	// BF16 weights (2 bytes), the measured case.
	BF16 DType = iota
	// FP8 e4m3 weights with 128x128 block scales (1 byte), as DeepSeek-V3
	// ships them. Computed on FP8 tensor cores where the GPU has them.
	FP8
	// INT8 weight-only quantisation (1 byte), as Grok-1 ships its weights:
	// dequantised to BF16 on chip, computed at the BF16 tensor rate.
	INT8
)

// Size is the bytes one stored weight occupies. The FP8 block scales (one
// float32 per 128x128 block, 0.02% of the weights) are not counted.
func (d DType) Size() float64 {
	if d == FP8 || d == INT8 {
		return 1
	}
	return 2
}

// String returns "bf16", "fp8" or "int8".
func (d DType) String() string {
	switch d {
	case BF16:
		return "bf16"
	case FP8:
		return "fp8"
	case INT8:
		return "int8"
	}
	return "DType(" + strconv.Itoa(int(d)) + ")"
}

// Op is one operator shape. Each kind reads only its own fields:
//
//	GEMM           M, K, N
//	Grouped        Experts, Rows (tokens per expert), Hidden, Inter (one expert's
//	               intermediate width; gate+up is 2*Inter wide)
//	AttnPrefill    Batch, QLen, KVLen (0: QLen), Heads, KVHeads (0: Heads), HeadDim
//	AttnDecode     Batch, QLen (0: 1), KVLen, Heads, KVHeads (0: Heads), HeadDim
//	AttnDecodeMLA  Batch, QLen (0: 1), KVLen, Heads, LatentDim, RopeDim; when
//	               LatentDim is 0, HeadDim is the cached width and RopeDim is 64
//	RMSNorm        M, Dim
//	Route          M, Experts (scores per token), TopK (0: 8)
//
// WeightDType applies to GEMM and Grouped. Batch defaults to 1. Sizes below
// 1 are taken as 1.
type Op struct {
	Kind OpKind

	M, K, N int

	Experts, Rows, Hidden, Inter int

	Batch, QLen, KVLen, Heads, KVHeads, HeadDim int
	LatentDim, RopeDim                          int

	Dim, TopK int

	// WeightDType is the stored dtype of the weights.
	WeightDType DType
}

// Prediction is the timing model's answer for one operator.
type Prediction struct {
	// Latency is the operator's time on the model's target GPU with its
	// operands in that GPU's own HBM (what the profile measures).
	Latency unit.Duration
	// Compute is the time once the operands are on chip: the memory-bound
	// floor removed, Overhead excluded.
	Compute unit.Duration
	// Overhead is the fixed per-op time that does not overlap the data
	// stream: kernel start inside a CUDA graph, plus, for a memory-bound
	// op, its pipeline fill and tail (see the package documentation).
	Overhead unit.Duration
	// LaunchFloor is the part of Overhead that is the kernel start alone (the
	// profile's launch floor): what a memory-bound op costs beyond its data
	// when pipeline fill and tail are assumed hidden
	// (dash.ExecutionSpec.LaunchOnlyOverhead). At most Overhead.
	LaunchFloor unit.Duration
	// WeightBytes, ActivationBytes and KVBytes are the bytes the op reads:
	// weights in their stored dtype, activations read and written, KV cache
	// read.
	WeightBytes, ActivationBytes, KVBytes unit.Bytes
	// FLOPs is the op's arithmetic (2 per multiply-add).
	FLOPs unit.FLOPs
	// Extrapolated is true when the shape is outside the measured range and
	// the answer comes from the fitted roofline rather than interpolation.
	Extrapolated bool
	// OutOfRange is true when the shape's time or bytes pass what the model
	// represents (MaxPredictedLatency, MaxPredictedBytes): the values are
	// held at those bounds and are no prediction.
	OutOfRange bool
}

// MaxPredictedLatency and MaxPredictedBytes bound a prediction's times and
// bytes (about 31.7 years; 1 EB): a shape beyond them is marked OutOfRange.
const (
	MaxPredictedLatency = unit.Duration(1e18)
	MaxPredictedBytes   = unit.Bytes(1e18)
)

// maxDim bounds every size so that absurd shapes stay finite.
const maxDim = 1 << 40

func clampDim(v, def int) int {
	if v <= 0 {
		v = def
	}
	if v < 1 {
		return 1
	}
	if v > maxDim {
		return maxDim
	}
	return v
}

// normalize fills defaults and clamps sizes to [1, maxDim].
func normalize(op Op) Op {
	switch op.Kind {
	case GEMM:
		op.M, op.K, op.N = clampDim(op.M, 1), clampDim(op.K, 1), clampDim(op.N, 1)
	case Grouped:
		op.Experts, op.Rows = clampDim(op.Experts, 1), clampDim(op.Rows, 1)
		op.Hidden, op.Inter = clampDim(op.Hidden, 1), clampDim(op.Inter, 1)
	case AttnPrefill, AttnDecode:
		op.Batch = clampDim(op.Batch, 1)
		def := 1
		if op.Kind == AttnPrefill {
			def = op.KVLen
		}
		op.QLen = clampDim(op.QLen, def)
		op.KVLen = clampDim(op.KVLen, op.QLen)
		if op.KVLen < op.QLen && op.Kind == AttnPrefill {
			op.KVLen = op.QLen
		}
		op.Heads = clampDim(op.Heads, 1)
		op.KVHeads = clampDim(op.KVHeads, op.Heads)
		op.HeadDim = clampDim(op.HeadDim, 1)
	case AttnDecodeMLA:
		op.Batch = clampDim(op.Batch, 1)
		op.QLen = clampDim(op.QLen, 1)
		op.KVLen = clampDim(op.KVLen, 1)
		op.Heads = clampDim(op.Heads, 1)
		if op.LatentDim <= 0 && op.HeadDim > 0 {
			op.RopeDim = 0
			if op.HeadDim > 64 {
				op.RopeDim = 64
			}
			op.LatentDim = op.HeadDim - op.RopeDim
		}
		op.LatentDim = clampDim(op.LatentDim, 1)
		if op.RopeDim < 0 {
			op.RopeDim = 0
		}
		if op.RopeDim > maxDim {
			op.RopeDim = maxDim
		}
		op.HeadDim = op.LatentDim + op.RopeDim
	case RMSNorm:
		op.M, op.Dim = clampDim(op.M, 1), clampDim(op.Dim, 1)
	case Route:
		op.M = clampDim(op.M, 1)
		op.Experts = clampDim(op.Experts, 1)
		op.TopK = clampDim(op.TopK, 8)
		if op.TopK > op.Experts {
			op.TopK = op.Experts
		}
	}
	return op
}

// work is an operator's arithmetic and traffic: FLOPs, weight bytes in the
// given stored dtype, activation bytes (read and written) and KV-cache bytes
// read. Every value is finite for a normalised op.
type work struct {
	flops, weight, act, kv float64
}

func (w work) bytes() float64 { return w.weight + w.act + w.kv }

const bf16 = 2 // bytes per activation and KV element

func workOf(op Op) work {
	f := func(v int) float64 { return float64(v) }
	wb := op.WeightDType.Size()
	switch op.Kind {
	case GEMM:
		m, k, n := f(op.M), f(op.K), f(op.N)
		return work{flops: 2 * m * k * n, weight: k * n * wb, act: (m*k + m*n) * bf16}
	case Grouped:
		e, r, h, i := f(op.Experts), f(op.Rows), f(op.Hidden), f(op.Inter)
		// x read, gate+up written and read, SiLU*up written and read, y written.
		return work{flops: 2 * e * r * 3 * h * i, weight: e * 3 * h * i * wb, act: e * r * (2*h + 6*i) * bf16}
	case AttnPrefill, AttnDecode:
		b, q, kv := f(op.Batch), f(op.QLen), f(op.KVLen)
		h, g, d := f(op.Heads), f(op.KVHeads), f(op.HeadDim)
		pairs := q * kv // query-key pairs per head
		if op.Kind == AttnPrefill {
			pairs = q*(kv-q) + q*(q+1)/2 // causal
		}
		return work{flops: 4 * b * h * d * pairs, act: 2 * b * q * h * d * bf16, kv: 2 * b * kv * g * d * bf16}
	case AttnDecodeMLA:
		b, q, kv := f(op.Batch), f(op.QLen), f(op.KVLen)
		h, lat, rope := f(op.Heads), f(op.LatentDim), f(op.RopeDim)
		return work{
			flops: 2 * b * q * h * kv * (2*lat + rope), // scores over latent+rope, values over latent
			act:   b * q * h * (2*lat + rope) * bf16,   // absorbed query read, latent output written
			kv:    b * kv * (lat + rope) * bf16,
		}
	case RMSNorm:
		m, d := f(op.M), f(op.Dim)
		return work{flops: 4 * m * d, weight: d * bf16, act: 2 * m * d * bf16}
	case Route:
		m, e, k := f(op.M), f(op.Experts), f(op.TopK)
		// read the scores, write float32 weights and int64 indices.
		return work{flops: 8 * m * e, act: m*e*bf16 + m*k*(4+8)}
	}
	return work{}
}
