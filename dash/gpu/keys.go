package gpu

import "math"

// numKinds bounds the OpKind values, which index the model's tables.
const numKinds = int(Route) + 1

// famKey identifies a shape family: the shape fields that are not swept.
type famKey [3]int

// famKeyOf returns op's family: GEMM (K, N); Grouped (Hidden, Inter);
// attention (Heads, KVHeads, HeadDim); MLA (Heads, LatentDim, RopeDim);
// RMSNorm (Dim); Route (Experts, TopK).
func famKeyOf(op Op) famKey {
	switch op.Kind {
	case GEMM:
		return famKey{op.K, op.N}
	case Grouped:
		return famKey{op.Hidden, op.Inter}
	case AttnPrefill, AttnDecode:
		return famKey{op.Heads, op.KVHeads, op.HeadDim}
	case AttnDecodeMLA:
		return famKey{op.Heads, op.LatentDim, op.RopeDim}
	case RMSNorm:
		return famKey{op.Dim}
	case Route:
		return famKey{op.Experts, op.TopK}
	}
	return famKey{}
}

// withKey returns op with its family fields set to k.
func withKey(op Op, k famKey) Op {
	switch op.Kind {
	case GEMM:
		op.K, op.N = k[0], k[1]
	case Grouped:
		op.Hidden, op.Inter = k[0], k[1]
	case AttnPrefill, AttnDecode:
		op.Heads, op.KVHeads, op.HeadDim = k[0], k[1], k[2]
	case AttnDecodeMLA:
		op.Heads, op.LatentDim, op.RopeDim = k[0], k[1], k[2]
		op.HeadDim = k[1] + k[2]
	case RMSNorm:
		op.Dim = k[0]
	case Route:
		op.Experts, op.TopK = k[0], k[1]
	}
	return op
}

// coordOf places a family for the nearest-family search: the logarithms of
// its key sizes.
func coordOf(k famKey) [3]float64 {
	var c [3]float64
	for i, v := range k {
		if v > 0 {
			c[i] = math.Log(float64(v))
		}
	}
	return c
}

// is2D reports whether a kind's families are swept over two coordinates.
func is2D(k OpKind) bool { return k == Grouped || k == AttnDecode || k == AttnDecodeMLA }

// sweepOf returns op's position within its family: x1 is the outer
// coordinate of a 2-D sweep (Experts or Batch; 0 for 1-D) and x2 the inner
// one (M, rows per expert, or KV length).
func sweepOf(op Op) (x1, x2 float64) {
	switch op.Kind {
	case GEMM, RMSNorm, Route:
		return 0, float64(op.M)
	case Grouped:
		return float64(op.Experts), float64(op.Rows)
	case AttnPrefill:
		return 0, float64(op.KVLen)
	case AttnDecode, AttnDecodeMLA:
		return float64(op.Batch), float64(op.KVLen)
	}
	return 0, 1
}

// withSweep returns op moved to position (x1, x2) of its family.
func withSweep(op Op, x1, x2 float64) Op {
	n := func(x float64) int { return clampDim(int(math.Round(math.Min(x, maxDim))), 1) }
	switch op.Kind {
	case GEMM, RMSNorm, Route:
		op.M = n(x2)
	case Grouped:
		op.Experts, op.Rows = n(x1), n(x2)
	case AttnPrefill:
		op.Batch, op.QLen, op.KVLen = 1, n(x2), n(x2)
	case AttnDecode, AttnDecodeMLA:
		op.Batch, op.KVLen = n(x1), n(x2)
	}
	return op
}
