package gpu

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system time so far: on a shared machine
// the benchmark reports it per op beside the wall time (cpu-ns/op).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loopCPU runs body b.N times (b.Loop) and reports its CPU time per op.
func loopCPU(b *testing.B, body func()) {
	b.ReportAllocs()
	start := cpuTime()
	n := 0
	for b.Loop() {
		body()
		n++
	}
	if n > 0 {
		b.ReportMetric(float64(cpuTime()-start)/float64(n), "cpu-ns/op")
	}
}

// BenchmarkStartup times what a process pays before its first simulation:
// reading the shipped profile, making the timing model of the paper's GPU
// (derived from the profile) and one Predict of every kind a GQA MoE run
// uses, which builds those kinds' tables. "refit" fits the rooflines afresh,
// as before they were stored in fitted_roofs.go.
func BenchmarkStartup(b *testing.B) {
	fsys := os.DirFS(shipped)
	ops := []Op{
		{Kind: GEMM, M: 4, K: 6144, N: 8192},
		{Kind: Grouped, Experts: 2, Rows: 4, Hidden: 6144, Inter: 16384},
		{Kind: AttnPrefill, QLen: 1024, Heads: 48, KVHeads: 8, HeadDim: 128},
		{Kind: AttnDecode, Batch: 4, KVLen: 1100, Heads: 48, KVHeads: 8, HeadDim: 128},
		{Kind: RMSNorm, M: 4, Dim: 6144},
		{Kind: Route, M: 4, Experts: 8, TopK: 2},
	}
	b.Run("load-profile", func(b *testing.B) {
		loopCPU(b, func() {
			if _, err := withCatalogue(LoadProfile(fsys)); err != nil {
				b.Fatal(err)
			}
		})
	})
	p, err := withCatalogue(LoadProfile(fsys))
	if err != nil {
		b.Fatal(err)
	}
	model := func(b *testing.B) {
		loopCPU(b, func() {
			m, err := NewModel(p, H100PCIe())
			if err != nil {
				b.Fatal(err)
			}
			for _, op := range ops {
				m.Predict(op)
			}
		})
	}
	b.Run("model", model)
	b.Run("model-refit", func(b *testing.B) {
		stored := fittedRoofs
		fittedRoofs = nil
		defer func() { fittedRoofs = stored }()
		model(b)
	})
}
