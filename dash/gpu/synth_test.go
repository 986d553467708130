package gpu

import (
	"sync/atomic"
	"testing"
)

// BenchmarkSynthCache times Predict on shapes of unmeasured families, whose
// synthesised families come from the table's cache on every call after the
// first: serially, and from all CPUs at once on one shared model (how
// parallel simulations use it). It is the benchmark that decides whether the
// cache needs anything beyond the standard library.
func BenchmarkSynthCache(b *testing.B) {
	m := shippedModel(b, H200SXM())
	ops := []Op{
		{Kind: GEMM, M: 300, K: 3584, N: 18944},
		{Kind: GEMM, M: 7, K: 2560, N: 9728},
		{Kind: Grouped, Experts: 8, Rows: 3, Hidden: 5120, Inter: 1536},
		{Kind: AttnDecode, Batch: 8, KVLen: 3000, Heads: 32, KVHeads: 8, HeadDim: 128},
	}
	for _, op := range ops {
		m.Predict(op) // synthesise once
	}
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			m.Predict(ops[i%len(ops)])
			i++
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		var seed atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			i := int(seed.Add(1))
			for pb.Next() {
				m.Predict(ops[i%len(ops)])
				i++
			}
		})
	})
	b.Run("lookup-only", func(b *testing.B) {
		tb := m.tables[GEMM].get()
		key := famKeyOf(normalize(ops[0]))
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if tb.synth.get(key) == nil {
					b.Fatal("miss")
				}
			}
		})
	})
}
