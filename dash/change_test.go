package dash

import (
	"fmt"
	"testing"

	"github.com/dashlab/dashlab/dash/unit"
)

func testSystem() SystemSpec {
	return SystemSpec{
		ID:  "test",
		HBM: HBMSpec{Capacity: 24 * unit.GB, ArrayBandwidth: 1.2 * unit.TBps, RelaySRAM: SRAMSpec{Regions: 2, RegionSize: 4 * unit.MiB}},
		HBF: HBFSpec{Capacity: 512 * unit.GB, Dies: 16, PlanesPerDie: 32, SubarraysPerPlane: 4, PageSize: 4 * unit.KiB,
			TRead: 3 * unit.Microsecond, TProg: 100 * unit.Microsecond, ReadWavesInFlight: 1, TSVBandwidth: 3.2 * unit.TBps,
			SRAM: SRAMSpec{Regions: 2, RegionSize: 8 * unit.MiB}},
		Link:     LinkSpec{Modules: 4, LanesPerModule: 64, GTPerSecond: 64, Usable: 1.6 * unit.TBps},
		Topology: TopologySpec{Pairs: 2, GPUHBM: true, GPUHBF: true, HBMHBF: true},
	}
}

func ExampleDiffSystems() {
	ref := testSystem()
	s, err := NewExperiment().System(ref).LinkBandwidth(0.8 * unit.TBps).TRead(1 * unit.Microsecond).PageSize(16 * unit.KiB).ResolvedSystem()
	if err != nil {
		panic(err)
	}
	for _, c := range DiffSystems(ref, s) {
		fmt.Println(c)
	}
	// Output:
	// page 4 -> 16 KiB
	// t_R 3 -> 1 µs
	// link 1.6 -> 0.8 TB/s
}

func TestDiffSystemsKeepsWhatDoesNotFollow(t *testing.T) {
	ref := testSystem()
	if got := DiffSystems(ref, ref); len(got) != 0 {
		t.Fatalf("a system against itself: %v", got)
	}
	s := ref
	s.ID = "other"
	s.HBF.SRAM.RegionSize = 16 * unit.MiB // not the page wave: a change of its own
	s.Link.GTPerSecond = 32               // the usable rate kept: a change of its own
	got := DiffSystems(ref, s)
	want := []string{"hbf.sram.region_size 8 -> 16 MiB", "link.gt_per_second 64 -> 32"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i, c := range got {
		if c.String() != want[i] {
			t.Errorf("change %d: %q, want %q", i, c, want[i])
		}
	}
	x := DiffExecution(ExecutionSpec{}, ExecutionSpec{LaunchOnlyOverhead: true})
	if len(x) != 1 || x[0].String() != "execution.launch_only_overhead false -> true" {
		t.Errorf("execution: %v", x)
	}
}

func TestChangeStringLeavesNonQuantitiesWhole(t *testing.T) {
	for _, c := range []struct {
		c    Change
		want string
	}{
		{Change{Field: "L_in/L_out", From: "1K/128", To: "2K/128"}, "L_in/L_out 1K/128 -> 2K/128"},
		{Change{Field: "B", From: "1, 4, 16, 64", To: "64, 256"}, "B 1, 4, 16, 64 -> 64, 256"},
		{Change{Field: "link.usable", From: "1.6 TB/s", To: "800 GB/s"}, "link 1.6 -> 0.8 TB/s"},
		{Change{Field: "topology.pairs", From: "2", To: "4"}, "pairs 2 -> 4"},
		{Change{Field: "execution.early_delivery_buffer", From: "0 B", To: "50 MB"}, "execution.early_delivery_buffer 0 -> 50 MB"},
		{Change{Field: "hbf.t_read", From: "0ns", To: "2µs"}, "t_R 0 -> 2 µs"},
	} {
		if got := c.c.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.c, got, c.want)
		}
	}
}
