package reference

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

func TestSystemsAreFiles(t *testing.T) {
	ids := SystemIDs()
	for _, want := range []string{"dash", "relay-only", "direct-only", "compact-dash"} {
		s, err := System(want)
		if err != nil || s.ID != want {
			t.Errorf("System(%q) = %v, %v", want, s.ID, err)
		}
		found := false
		for _, id := range ids {
			found = found || id == want
		}
		if !found {
			t.Errorf("SystemIDs() = %v lacks %s", ids, want)
		}
		f, err := SystemInfo(want)
		if err != nil || f.Name == "" || len(f.Sources) == 0 {
			t.Errorf("%s: name %q, %d sources, %v", want, f.Name, len(f.Sources), err)
		}
	}
	d, r := MustSystem("dash"), MustSystem("relay-only")
	if d.HBF != r.HBF || d.Link != r.Link || d.HBM != r.HBM || r.Topology.Direct() || !r.Topology.Relay() {
		t.Errorf("relay-only is not DASH's parts without Direct: %+v", r)
	}
	if c := MustSystem("compact-dash"); c.Topology.Pairs != 1 || c.HBFCapacity() != 512*unit.GB {
		t.Errorf("compact-dash: %+v", c.Topology)
	}
}

func TestPairFamilies(t *testing.T) {
	s, err := System("relay-only-3")
	if err != nil || s.ID != "relay-only-3" || s.Topology.Pairs != 3 || s.Topology.Direct() {
		t.Errorf("relay-only-3 = %+v, %v", s.Topology, err)
	}
	for _, bad := range []string{"compact-dash-2", "dash-0", "nosuch", "nosuch-2", "../models/grok-1", "dash-x"} {
		if _, err := System(bad); err == nil {
			t.Errorf("System(%q) accepted", bad)
		}
	}
	var u *UnknownError
	if _, err := System("nosuch"); !errors.As(err, &u) || u.ID != "nosuch" || !strings.Contains(err.Error(), "dash-N") {
		t.Errorf("unknown system error: %v", err)
	}
}

func TestExperimentReportsLookupErrors(t *testing.T) {
	// An unknown model or system is reported by name, without a second "not set".
	_, err := Experiment("qwen3-235b", "dash").Build()
	if err == nil || !strings.Contains(err.Error(), `unknown model "qwen3-235b"`) || strings.Contains(err.Error(), "not set") {
		t.Errorf("unknown model: %v", err)
	}
	_, err = Experiment("mixtral-8x22b", "nosuch").Build()
	if err == nil || !strings.Contains(err.Error(), `system: unknown system "nosuch"`) || strings.Contains(err.Error(), "not set") {
		t.Errorf("unknown system: %v", err)
	}
}

func TestKnobsApplyInAnyOrder(t *testing.T) {
	a, err := dash.NewExperiment().Catalogue(Catalogue).TRead(7 * unit.Microsecond).PageSize(16 * unit.KiB).
		ModelID("mixtral-8x22b").SystemID("dash").GPU(DefaultGPU).Build()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Experiment("mixtral-8x22b", "dash").PageSize(16 * unit.KiB).TRead(7 * unit.Microsecond).Build()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.System(), b.System()) || a.System().HBF.TRead != 7*unit.Microsecond || a.System().HBF.SRAM.RegionSize != a.System().HBF.PageWave() {
		t.Errorf("knobs depend on order: %+v vs %+v", a.System().HBF, b.System().HBF)
	}
}

func TestOverridePageSizeFollowsTheBuilderRule(t *testing.T) {
	src := "model: mixtral-8x22b\nworkload: {batch: 4, prompt: 1024, output: 128}\noverrides:\n  hbf: {page_size: 16 KiB}\n"
	e, err := DecodeExperiment(strings.NewReader(src), "page.yaml", ".")
	if err != nil {
		t.Fatal(err)
	}
	b, err := Experiment("mixtral-8x22b", "dash").PageSize(16 * unit.KiB).Build()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(e.System(), b.System()) {
		t.Errorf("override %+v, builder %+v", e.System(), b.System())
	}
	// Explicit region sizes win over the rule.
	src = "model: mixtral-8x22b\nworkload: {batch: 4, prompt: 1024, output: 128}\noverrides:\n  hbf: {page_size: 16 KiB, sram: {region_size: 64 MiB}}\n"
	e, err = DecodeExperiment(strings.NewReader(src), "page.yaml", ".")
	if err != nil || e.System().HBF.SRAM.RegionSize != 64*unit.MiB || e.System().HBM.RelaySRAM.RegionSize != b.System().HBM.RelaySRAM.RegionSize {
		t.Errorf("explicit region: %+v, %v", e.System(), err)
	}
}

func TestSystemChanges(t *testing.T) {
	s := MustSystem("dash")
	if got := SystemChanges(s); len(got) != 0 {
		t.Errorf("the paper's DASH: %v", got)
	}
	s.HBF.TRead *= 2
	if got := SystemChanges(s); len(got) != 1 || got[0].String() != "t_R 3 -> 6 µs" {
		t.Errorf("t_R doubled: %v", got)
	}
	if got := SystemChanges(MustSystem("dash-4")); len(got) != 1 || got[0].String() != "pairs 2 -> 4" {
		t.Errorf("dash-4: %v", got)
	}
	s.ID = "mine"
	if got := SystemChanges(s); len(got) != 1 || got[0].Field != "system" {
		t.Errorf("an unknown id: %v", got)
	}
}

// TestRouteTableErrorsFromFiles checks that an experiment file whose
// overrides leave the route table unable to carry the model fails at Build
// with an error naming the field: a memory the GPU cannot reach, a link
// faster than its raw rate, a single link unknown or without a rate.
func TestRouteTableErrorsFromFiles(t *testing.T) {
	for _, c := range []struct{ overrides, field string }{
		{"{topology: {gpu_hbm: false}}", "topology.gpu_hbm"},
		{"{topology: {gpu_hbf: false, hbm_hbf: false}}", "topology"},
		{"{topology: {gpu_hbf_usable: 3 TB/s}}", "topology.gpu_hbf_usable"},
		{"{topology: {link_usable: \"gpu-hbf9=1 TB/s\"}}", "topology.link_usable: gpu-hbf9"},
		{"{topology: {link_usable: \"hbm0-hbf0=0 B/s\"}}", "topology.link_usable: hbm0-hbf0"},
		{"{topology: {hbm_only: true}}", "topology.hbm_only"},
	} {
		src := "model: qwen3-235b-a22b\nsystem: dash\nworkload: {batch: 4, prompt: 1024, output: 8}\noverrides: " + c.overrides + "\n"
		_, err := DecodeExperiment(strings.NewReader(src), "routes.yaml", ".")
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("overrides %s: got %v, want an error naming %s", c.overrides, err, c.field)
		}
	}
}
