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
// the identical steps that follow; a simulated program itself mostly
// replays segments (segment.go) and simulates only its new attention
// kernels, each from the checkpoint of the same kernel a block earlier
// (fork.go). Its cost is a fixed part (the program's kernels set and
// signed, its segments chained: about 6 us, the whole cost of a program
// that simulates no kernel) and about 10 us per kernel it simulates, of
// which the events are a small part below 80,000 steps (20 to 40 a
// kernel): the states copied to and from the memos, the keys and the
// counters. Without writeback a program lasts a paged-KV block (16 steps)
// and simulates one kernel: 625 programs and 625 kernels per 10,000 steps
// (out=42,700 and out=60,000 cost the same per step). Once the decode KV
// fills its HBM budget (step 42,744 at out=80,000), a page wave of one
// layer's oldest KV leaves for HBF about every 22 steps (layers take
// turns), so the layers form two families that differ by a wave (those
// written back once more read a wave more from HBF and a wave less from
// HBM, and split their HBF KV over Direct and Relay otherwise). Each block
// then simulates two kernels, one per family, and each wave adds two
// programs: the step that writes it (one kernel: the writing layer's, with
// the writeback) and the rest of its block (no kernel: the layer has
// joined the other family, whose kernel is known). Per wave that is 3.4
// programs and 3.75 simulated kernels against 1.4 and 1.4 without
// writeback (1,475 programs and 1,709 kernels per 10,000 steps). Each of
// those kernels is a new one (a new context block, family or writeback:
// none ran before; the families read other bytes on every route, HBM,
// Direct and Relay, from their first chunk, so neither is the other
// shifted), so no reuse of programs, segments or kernels removes them,
// and a cheaper program or kernel cheapens both regimes alike: the ratio
// stays between 2.4 (programs) and 2.7 (kernels). Past 64,000 steps the
// segment after each writing kernel starts with the HBF arrays mid-sense
// at a phase that moves every wave; it settles after one operator, whose
// rest of the segment replays (segment.go).
// Past about 80,000 steps the events per simulated kernel rise (to 100 to
// 250): the HBF KV outgrows the HBM KV, so a kernel's HBF reads outlast
// its HBM reads and the end of the kernel after its checkpoint (near the
// HBM reads' end) is a sequence of drains: the HBM chunks queued on the
// GPU-HBM link, the Relay stream's last chunks, then the Direct streams
// alone, of which only the last is periodic long enough for a periodic
// jump; between 80,000 and 92,000 steps the Relay share of each family is
// under one transfer chunk and shrinks every block, so no kernel resumes
// from a checkpoint there.
func BenchmarkWritebackDecode(b *testing.B) {
	for _, out := range []int{42_700, 60_000, 80_000, 110_000, 140_000} {
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
				b.ReportMetric(float64(out-1-r.Perf.ReplayedPasses), "programs")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(out-1), "ns/step")
		})
	}
}
