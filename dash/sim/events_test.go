package sim

import (
	"math"
	"testing"
	"unsafe"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
)

// TestEventIndexFits checks what the event's int16 index (event.at) rests
// on: the topology's limits keep the HBF stacks, and every shipped
// system's routes keep their hops, far below its range; and the event
// stays 32 bytes.
func TestEventIndexFits(t *testing.T) {
	if got := unsafe.Sizeof(event{}); got != 32 {
		t.Errorf("an event takes %d bytes, want 32", got)
	}
	if dash.MaxPairs > math.MaxInt16 {
		t.Fatalf("dash.MaxPairs = %d: more HBF stacks than an event can name", dash.MaxPairs)
	}
	for _, id := range reference.SystemIDs() {
		c, err := newConfig(build(t, "qwen3-30b-a3b", id, 1, 16, 2))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range c.rt.routes {
			if len(r.hops) > 64 {
				t.Errorf("%s: a route of %d hops", id, len(r.hops))
			}
		}
	}
}
