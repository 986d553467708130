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
//
// Why the writeback regime costs more per step. The exact decode loop
// (run.go) simulates each distinct step program once and replays it for
// the identical steps that follow. Without writeback a program lasts a
// paged-KV block (16 steps): out=42,700 and out=60,000 simulate 625
// programs per 10,000 steps and cost the same per step (linear). Once the
// decode KV fills its HBM budget, a page wave of one layer's oldest KV
// leaves for HBF about every 22 steps (1,710 waves by out=80,000), and each
// wave makes two new programs besides the block's: the step that writes the
// wave, and the rest of its block, whose layer now reads a wave more from
// HBF (the key's ledger version). That is 1,484 programs per 10,000 steps,
// each simulated at about the same cost as before (60 to 77 events), so the
// writeback regime costs a constant multiple per step, about the ratio of
// programs (measured: 2.0 to 2.6 times, CPU, load 25), not a growing one:
// the cost stays linear in the output within each regime. Bringing it
// nearer would take simulating a program from the previous one's state
// (only one layer differs); it is not done. Past this benchmark's range
// (outputs of 100,000 to 140,000) the events per simulated program grow
// (to about 290), a cost not yet explained.
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
