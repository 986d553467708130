package sim

import (
	"testing"

	"github.com/dashlab/dashlab/dash"
)

// Forked kernels give the same result as the event-by-event run, bit for
// bit: decodes whose attention kernels read several HBM chunks per stack
// (Llama 4 at B=8, 32 KiB of KV per token and layer), so that each new
// context block's kernels start from the checkpoint of the block before,
// on DASH under both readings and on RelayOnly (where the relayed HBF
// reads share the GPU-HBM link with the HBM reads), and the resumes
// happen.
func TestForkedKernelsExact(t *testing.T) {
	if testing.Short() {
		t.Skip("event-by-event runs of 400-step decodes")
	}
	cases := []struct {
		system string
		rd     dash.Reading
	}{{"dash", dash.ReadingPaper}, {"dash", dash.ReadingPhysical}, {"relay-only", dash.ReadingPaper}}
	for _, c := range cases {
		exp := build(t, "llama4-maverick", c.system, 8, 1024, 400, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
			return b.Reading(c.rd)
		})
		fast, slow := run(t, exp, Options{}), run(t, exp, Options{NoJump: true})
		if !sameResult(fast, slow) {
			t.Errorf("%s, %v reading: with shortcuts E2E %v, event by event %v", c.system, c.rd, fast.E2E, slow.E2E)
		}
		if fast.Perf.ResumedKernels == 0 {
			t.Errorf("%s, %v reading: no kernel resumed from a checkpoint", c.system, c.rd)
		}
	}
}
