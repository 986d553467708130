package gpu

import (
	"testing"
)

func TestStudySanity(t *testing.T) {
	p, _ := LoadProfileDir("../../reference/profiles/h200-sxm")
	m, _ := NewModel(p, H200SXM())
	h, _ := NewModel(p, H100PCIe())
	for _, op := range []Op{
		{Kind: GEMM, M: 1, K: 4096, N: 9216},
		{Kind: GEMM, M: 256, K: 4096, N: 9216},
		{Kind: GEMM, M: 4096, K: 4096, N: 9216},
		{Kind: GEMM, M: 65536, K: 4096, N: 9216},
		{Kind: GEMM, M: 4096, K: 4096, N: 151936},
		{Kind: GEMM, M: 1, K: 7168, N: 4096, WeightDType: FP8},
		{Kind: GEMM, M: 1, K: 7168, N: 4096},
		{Kind: GEMM, M: 8192, K: 7168, N: 4096, WeightDType: FP8},
		{Kind: GEMM, M: 8192, K: 7168, N: 4096},
		{Kind: Grouped, Experts: 8, Rows: 1, Hidden: 4096, Inter: 1536},
		{Kind: Grouped, Experts: 256, Rows: 1, Hidden: 7168, Inter: 2048, WeightDType: FP8},
		{Kind: Grouped, Experts: 8, Rows: 1, Hidden: 5120, Inter: 1536},
		{Kind: AttnDecode, Batch: 4, KVLen: 1000, Heads: 64, KVHeads: 4, HeadDim: 128},
		{Kind: AttnDecode, Batch: 128, KVLen: 200000, Heads: 64, KVHeads: 4, HeadDim: 128},
		{Kind: AttnDecodeMLA, Batch: 4, KVLen: 1000, Heads: 128, LatentDim: 512, RopeDim: 64},
		{Kind: AttnPrefill, Batch: 4, QLen: 512, Heads: 64, KVHeads: 4, HeadDim: 128},
		{Kind: AttnPrefill, Batch: 1, QLen: 1024, Heads: 64, KVHeads: 4, HeadDim: 128},
		{Kind: RMSNorm, M: 4, Dim: 4096},
		{Kind: Route, M: 4, Experts: 256, TopK: 8},
		{Kind: Route, M: 4, Experts: 128, TopK: 8},
	} {
		pr := m.Predict(op)
		ph := h.Predict(op)
		mem := float64(pr.WeightBytes+pr.ActivationBytes+pr.KVBytes) / float64(m.MemBandwidth()) * 1e9
		t.Logf("%v M=%d K=%d N=%d E=%d r=%d B=%d L=%d %v: lat=%v comp=%v ovh=%v mem=%.0fns ex=%v | h100 lat=%v comp=%v ovh=%v", op.Kind, op.M, op.K, op.N, op.Experts, op.Rows, op.Batch, op.KVLen, op.WeightDType, pr.Latency, pr.Compute, pr.Overhead, mem, pr.Extrapolated, ph.Latency, ph.Compute, ph.Overhead)
	}
}
