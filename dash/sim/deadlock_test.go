package sim

import (
	"fmt"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

func withTRead(d unit.Duration) func(dash.ExperimentBuilder) dash.ExperimentBuilder {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.TRead(d) }
}

// TestRelayWriteNoDeadlock is the case that deadlocked: on a relay-only
// system the prefill KV writes went into relay SRAM and then waited for an
// HBF SRAM slot, while relay reads held every HBF SRAM slot waiting for a
// relay slot. Relay writes now reserve their HBF slot first.
func TestRelayWriteNoDeadlock(t *testing.T) {
	for _, b := range []int{16, 64} {
		exp := build(t, "llama4-maverick", "relay-only", b, 1024, 2, withTRead(10*unit.Microsecond))
		fast := run(t, exp, Options{})
		slow := run(t, exp, Options{NoJump: true})
		if !sameResult(fast, slow) {
			t.Errorf("B=%d: the shortcuts change the result", b)
		}
		var written unit.Bytes
		for _, r := range fast.Routes {
			if r.Route == RouteRelayWrite {
				written = r.Delivered
			}
		}
		if written == 0 {
			t.Errorf("B=%d: no relay write delivered; the case no longer exercises relay writes", b)
		}
	}
}

// TestNoDeadlockSweep runs MoE models over t_R and batch on the three
// topologies (prefill and one decode step): every run must complete.
func TestNoDeadlockSweep(t *testing.T) {
	treads := []int{1, 3, 7, 10, 13, 20, 29, 40}
	if !testing.Short() {
		treads = nil
		for us := 1; us <= 40; us++ {
			treads = append(treads, us)
		}
	}
	for _, model := range []string{"llama4-maverick", "qwen3-30b-a3b"} {
		for _, system := range []string{"relay-only", "direct-only", "dash"} {
			for _, b := range []int{1, 4, 16, 64} {
				for _, us := range treads {
					name := fmt.Sprintf("%s/%s/B=%d/tR=%dus", model, system, b, us)
					exp := build(t, model, system, b, 1024, 2, withTRead(unit.Duration(us)*unit.Microsecond))
					if _, err := RunWith(exp, Options{}); err != nil {
						t.Errorf("%s: %v", name, err)
					}
				}
			}
		}
	}
}
