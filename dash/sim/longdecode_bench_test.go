package sim

import (
	"fmt"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
)

// BenchmarkWritebackDecode times long decodes of Qwen3-235B-A22B (B=4, 1K
// prompt) on DASH before and after HBM-to-HBF writeback starts (at step
// 42,744): the CPU per decode step of each run (ns/step), with the
// simulated programs and kernels (Perf.SimulatedKernels), the segments
// replayed and the kernels resumed.
//
// Why the writeback regime costs more per step. The exact decode loop
// (run.go) simulates each distinct step program once and replays it for
// the identical steps that follow; a simulated program mostly replays
// segments (segment.go) and simulates only its new attention kernels, each
// from the checkpoint of the same kernel a block earlier (fork.go). A
// program costs a fixed part f (the program set and signed, its segments
// chained and the pass closed) plus k for each kernel it simulates (the
// checkpoint installed, the kernel's last events, its end state captured
// and keyed), and k and f are alike in both regimes. Without writeback a
// program lasts a paged-KV block (16 steps) and simulates one kernel:
// 3,750 programs and 3,750 kernels up to out=60,000. Once the decode KV
// fills its HBM budget, a page wave of one layer's oldest KV leaves for
// HBF about every 22 steps (layers take turns), so the layers form two
// families that differ by a wave (a wave more in HBF, a wave less in HBM,
// their HBF KV split over Direct and Relay otherwise). A block then
// simulates two kernels, one per family; the step that writes a wave is a
// program of its own (the writing layer's kernel, with the writeback) and
// so is the rest of its block (no kernel: the layer joined the other
// family, whose kernel is known). Between out=60,000 and 80,000 (measured
// with counters, 2026-12-03): 1,191 block programs of two kernels (about
// 60 events), 918 writing programs of 1.13 kernels (85 events) and 860
// programs with no kernel: 2,969 programs and 3,400 kernels where the
// regime without writeback has 1,250 of each. Each of those kernels is new
// (a new context block, family or writeback, none ran before; the
// families read other bytes on every route from their first chunk, so
// neither is the other shifted), so no reuse of programs, segments or
// kernels removes them.
//
// The bound this sets. Up to out=80,000 the run simulates 8,203 programs
// and 9,039 kernels against 3,750 and 3,750 up to out=60,000. With any
// f, k >= 0 and a small fixed cost (the prefill), the cost per step of
// the 80,000-step run is between 0.75 x 8,203 / 3,750 = 1.64 (k = 0) and
// 0.75 x 9,039 / 3,750 = 1.81 (f = 0) times that of the 60,000-step run;
// measured: 1.80 (2,864 against 1,594 ns/step). Making programs or
// kernels cheaper moves both runs alike; only simulating fewer kernels
// would move the ratio toward 1.5, which needs an exact shortcut across
// context blocks (a family's kernel derived from its kernel a block
// earlier). The kernel's tail, from its checkpoint (when an HBM stream
// comes within two chunks of its end) to its end, is not the earlier
// tail shifted: the family's HBF streams run alongside its HBM reads and
// are a block's reading time further along at the later checkpoint, so
// the states there differ and the tail must be simulated. Nor does a tail
// recur a few blocks later, which a memo of tails would need: keyed at
// each checkpoint as a layer boundary is, but with every stream's size and
// progress and every operator's instants left out, the checkpoints that
// replaced an earlier one of the same kernel agreed with it 0 times in
// 229 (out=60,000) and 0 in 607 (out=80,000); the pending events differ in
// number, kind and time (measured 2026-12-03).
//
// Past 64,000 steps the segment after each writing kernel starts with the
// HBF arrays mid-sense at a phase that moves every wave; it settles after
// one operator, whose rest of the segment replays (segment.go). Past about
// 80,000 steps the events per simulated kernel rise (to 100 to 250): the
// HBF KV outgrows the HBM KV, so a kernel's HBF reads outlast its HBM
// reads and the end of the kernel after its checkpoint is a sequence of
// drains: the HBM chunks queued on the GPU-HBM link, the Relay stream's
// last chunks, then the Direct streams alone, of which only the last is
// periodic long enough for a periodic jump; between 80,000 and 92,000
// steps the Relay share of each family is under one transfer chunk and
// shrinks every block, so no kernel resumes from a checkpoint there.
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
				b.ReportMetric(float64(r.Perf.SimulatedKernels), "kernels")
				b.ReportMetric(float64(r.Perf.ResumedKernels), "resumed")
				b.ReportMetric(float64(r.Perf.Events), "events")
				b.ReportMetric(float64(r.KV.FirstWritebackStep), "first_wb_step")
				b.ReportMetric(float64(out-1-r.Perf.ReplayedPasses), "programs")
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(out-1), "ns/step")
		})
	}
}
