package sim

import (
	"fmt"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
)

// BenchmarkWritebackDecode times long decodes of Qwen3-235B-A22B (B=4, 1K
// prompt) on DASH before and after HBM-to-HBF writeback starts (at step
// 42,744): the CPU per decode step of each regime (ns/step), with the
// segments replayed and the kernels resumed.
func BenchmarkWritebackDecode(b *testing.B) {
	for _, out := range []int{42_700, 60_000, 80_000} {
		b.Run(fmt.Sprintf("out=%d", out), func(b *testing.B) {
			m, err := reference.Model("qwen3-235b-a22b")
			if err != nil {
				b.Fatal(err)
			}
			m.MaxContext = 0 // past the model's 40,960 tokens: the decode's cost, not the model's use
			exp := build(b, "qwen3-235b-a22b", "dash", 4, 1024, out, func(x dash.ExperimentBuilder) dash.ExperimentBuilder { return x.Model(m) })
			for b.Loop() {
				r, err := Run(exp)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(r.Perf.ReplayedSegments), "segments")
				b.ReportMetric(float64(r.Perf.ResumedKernels), "resumed")
				b.ReportMetric(float64(r.Perf.Events), "events")
				b.ReportMetric(float64(r.KV.FirstWritebackStep), "first_wb_step")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(out-1), "ns/step")
		})
	}
}
