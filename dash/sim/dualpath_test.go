package sim

import (
	"testing"

	"github.com/dashlab/dashlab/dash"
)

// With lookahead the selected experts are known before the shared experts
// are sensed ahead. Queued apart, an unbounded read pipeline (the paper
// reading) would sense the selected experts' whole route set first and the
// shared experts' after, so the two route sets drained one after the
// other and DASH ran slower than under the physical reading, whose only
// difference is a tighter read pipeline. Queued together, the array
// interleaves them: the paper reading is never the slower one.
func TestPaperReadingNotSlowerWithLookahead(t *testing.T) {
	for _, model := range []string{"llama4-maverick", "qwen3-235b-a22b"} {
		var e2e [2]Time
		for k, rd := range []dash.Reading{dash.ReadingPaper, dash.ReadingPhysical} {
			exp := build(t, model, "dash", 1, 4096, 64, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
				return b.Lookahead(true).Reading(rd)
			})
			e2e[k] = run(t, exp, Options{}).E2E
		}
		if e2e[0] > e2e[1] {
			t.Errorf("%s with lookahead: E2E %v under the paper reading, %v under the physical one", model, e2e[0], e2e[1])
		}
	}
}
