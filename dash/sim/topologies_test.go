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

// TestSharedHBFAsymmetricLinks runs the topology that is one YAML file and
// nothing in the engine (reference/systems/shared-hbf-asym.yaml: one HBF
// stack shared by two HBM stacks, the GPU-HBF link at 1.2 TB/s and the
// second HBM-HBF link at half the first's rate) under the physical
// invariants of the random what-ifs (every resource at or below its rate
// over every interval, every byte read once), and checks that the split
// follows the links: the slow HBM-HBF link carries about half the bytes
// of the fast one in about the same busy time.
func TestSharedHBFAsymmetricLinks(t *testing.T) {
	exp := build(t, "qwen3-235b-a22b", "shared-hbf-asym", 4, 256, 5)
	a := &auditor{}
	r := run(t, exp, Options{audit: a})
	if err := a.Err(); err != nil {
		t.Fatal(err)
	}
	if err := inventoryMatches(exp, whatIf{batch: 4, prompt: 256, output: 5}); err != nil {
		t.Fatal(err)
	}
	links := map[string]LinkStats{}
	for _, l := range r.Links {
		links[l.Link] = l
	}
	fast, slow := links["HBF->HBM0"], links["HBF->HBM1"]
	if fast.Bytes == 0 || slow.Bytes == 0 {
		t.Fatalf("HBF->HBM0 %v, HBF->HBM1 %v: both relay links should carry data (%v)", fast.Bytes, slow.Bytes, r.Links)
	}
	if x := float64(slow.Bytes) / float64(fast.Bytes); x < 0.4 || x > 0.6 {
		t.Errorf("the 0.8 TB/s link carried %v, the 1.6 TB/s one %v (ratio %.3f, want about 0.5)", slow.Bytes, fast.Bytes, x)
	}
	if x := float64(slow.Busy) / float64(fast.Busy); x < 0.8 || x > 1.25 {
		t.Errorf("busy %v on the 0.8 TB/s link, %v on the 1.6 TB/s one: the split does not balance them", slow.Busy, fast.Busy)
	}
	if g := links["GPU<-HBF"]; g.Bytes == 0 || g.Busy > r.E2E {
		t.Errorf("GPU<-HBF: %v in %v (E2E %v)", g.Bytes, g.Busy, r.E2E)
	}
}
