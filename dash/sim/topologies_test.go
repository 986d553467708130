package sim

import (
	"errors"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
)

// TestEveryShippedSystemRuns runs every system of reference/systems (the
// paper's four and those beyond it: asymmetric links, a shared HBF stack,
// an HBM-only GPU) on a model that fits it: every route delivers what it
// was asked, the shortcuts change nothing, and a system without HBF moves
// no byte over an HBF route.
func TestEveryShippedSystemRuns(t *testing.T) {
	for _, id := range reference.SystemIDs() {
		sys := reference.MustSystem(id)
		model := "qwen3-235b-a22b"
		if sys.HBFCapacity() == 0 {
			model = "qwen3-30b-a3b"
		}
		exp := build(t, model, id, 4, 256, 5)
		r := run(t, exp, Options{})
		if len(r.Routes) == 0 {
			t.Fatalf("%s: no traffic", id)
		}
		for _, rt := range r.Routes {
			if rt.Requested != rt.Delivered {
				t.Errorf("%s: route %s requested %v, delivered %v", id, rt.Route, rt.Requested, rt.Delivered)
			}
			if sys.HBFCapacity() == 0 && rt.Route != RouteHBM && rt.Route != RouteHBMWrite {
				t.Errorf("%s (no HBF): %v over %s", id, rt.Delivered, rt.Route)
			}
		}
		if slow := run(t, exp, Options{NoJump: true}); !sameResult(r, slow) {
			t.Errorf("%s: the shortcuts change the result (E2E %v vs %v)", id, r.E2E, slow.E2E)
		}
	}
}

// TestHBMOnlyRefusesWhatDoesNotFit checks that an HBM-only GPU refuses a
// model larger than its HBM: there is no HBF to hold it.
func TestHBMOnlyRefusesWhatDoesNotFit(t *testing.T) {
	_, err := reference.Experiment("qwen3-235b-a22b", "h200").Build()
	var ce *dash.CapacityError
	if !errors.As(err, &ce) || ce.Memory != dash.MemoryHBM {
		t.Fatalf("Qwen3-235B (470 GB) on an H200 (144 GB, no HBF): %v", err)
	}
}
