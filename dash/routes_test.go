package dash

import (
	"errors"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash/unit"
)

// paperSystem is DASH's parts (the reference package's dash.yaml) with a
// topology.
func paperSystem(t TopologySpec) SystemSpec {
	return SystemSpec{ID: "test",
		HBM: HBMSpec{Capacity: 24 * unit.GB, ArrayBandwidth: 1.2 * unit.TBps, RelaySRAM: SRAMSpec{Regions: 2, RegionSize: 4 * unit.MiB, ECCOverheadPct: 12.5}},
		HBF: HBFSpec{Capacity: 512 * unit.GB, Dies: 16, PlanesPerDie: 32, SubarraysPerPlane: 4, PageSize: 4 * unit.KiB,
			TRead: 3 * unit.Microsecond, TProg: 100 * unit.Microsecond, CacheRead: true, ReadWavesInFlight: 1, TSVBandwidth: 3.2 * unit.TBps,
			SRAM: SRAMSpec{Regions: 2, RegionSize: 8 * unit.MiB, ECCOverheadPct: 12.5}},
		Link:     LinkSpec{Modules: 4, LanesPerModule: 64, GTPerSecond: 64, Usable: 1.6 * unit.TBps, EnergyLow: 5e-13, EnergyHigh: 6e-13, ModuleWidthMM: 0.389},
		Topology: t,
	}
}

// kinds counts a table's routes by kind.
func kinds(rt RouteTable) map[RouteKind]int {
	n := map[RouteKind]int{}
	for _, r := range rt.Routes {
		n[r.Kind]++
	}
	return n
}

// TestPaperTopologiesAsRoutes checks that the paper's four systems, DASH
// with more pairs and a shared HBF stack compile to the routes their paths
// allow, every hop over a resource of the right kind.
func TestPaperTopologiesAsRoutes(t *testing.T) {
	for _, c := range []struct {
		name string
		topo TopologySpec
		want map[RouteKind]int
		res  int
	}{
		{"DASH", TopologySpec{Pairs: 2, GPUHBM: true, GPUHBF: true, HBMHBF: true},
			map[RouteKind]int{RouteHBM: 2, RouteHBMWrite: 2, RouteDirect: 2, RouteRelay: 2, RouteDirectWrite: 2, RouteRelayWrite: 2, RouteWriteback: 2}, 4 + 6 + 12},
		{"RelayOnly", TopologySpec{Pairs: 2, GPUHBM: true, HBMHBF: true},
			map[RouteKind]int{RouteHBM: 2, RouteHBMWrite: 2, RouteRelay: 2, RouteRelayWrite: 2, RouteWriteback: 2}, 4 + 6 + 8},
		{"DirectOnly", TopologySpec{Pairs: 2, GPUHBM: true, GPUHBF: true},
			map[RouteKind]int{RouteHBM: 2, RouteHBMWrite: 2, RouteDirect: 2, RouteDirectWrite: 4}, 2 + 6 + 8},
		{"Compact-DASH", TopologySpec{Pairs: 1, GPUHBM: true, GPUHBF: true, HBMHBF: true},
			map[RouteKind]int{RouteHBM: 1, RouteHBMWrite: 1, RouteDirect: 1, RouteRelay: 1, RouteDirectWrite: 1, RouteRelayWrite: 1, RouteWriteback: 1}, 2 + 3 + 6},
		{"dash-8", TopologySpec{Pairs: 8, GPUHBM: true, GPUHBF: true, HBMHBF: true},
			map[RouteKind]int{RouteHBM: 8, RouteHBMWrite: 8, RouteDirect: 8, RouteRelay: 8, RouteDirectWrite: 8, RouteRelayWrite: 8, RouteWriteback: 8}, 16 + 24 + 48},
		{"shared HBF", TopologySpec{Pairs: 1, HBMPerPair: 2, GPUHBM: true, GPUHBF: true, HBMHBF: true},
			map[RouteKind]int{RouteHBM: 2, RouteHBMWrite: 2, RouteDirect: 1, RouteRelay: 2, RouteDirectWrite: 1, RouteRelayWrite: 2, RouteWriteback: 2}, 4 + 3 + 10},
		{"HBM only", TopologySpec{Pairs: 6, GPUHBM: true, HBMOnly: true},
			map[RouteKind]int{RouteHBM: 6, RouteHBMWrite: 6}, 6 + 12},
	} {
		rt, err := paperSystem(c.topo).RouteTable()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got := kinds(rt)
		for k := range NumRouteKinds {
			if got[k] != c.want[k] {
				t.Errorf("%s: %d %v routes, want %d", c.name, got[k], k, c.want[k])
			}
		}
		if len(rt.Resources) != c.res {
			t.Errorf("%s: %d resources, want %d", c.name, len(rt.Resources), c.res)
		}
		for _, r := range rt.Routes {
			last := rt.Resources[r.Hops[len(r.Hops)-1].Resource]
			switch {
			case r.Reads() && (last.Kind != ResourceLink || last.To != gpuNode || !r.Hops[len(r.Hops)-1].IntoGPU):
				t.Errorf("%s: read %v %v -> %v ends with %s", c.name, r.Kind, r.From, r.To, last.Name)
			case r.To.Kind == NodeHBF && last.Kind != ResourceNAND:
				t.Errorf("%s: write %v to %v ends with %s, not a program", c.name, r.Kind, r.To, last.Name)
			case r.To.Kind == NodeHBM && last.Kind != ResourceDRAM:
				t.Errorf("%s: write %v to %v ends with %s", c.name, r.Kind, r.To, last.Name)
			}
		}
	}
}

// TestLinkRatesPerKindAndPerLink checks that every link direction carries
// its own usable rate: a kind's rate over the part's, a named link's over
// its kind's.
func TestLinkRatesPerKindAndPerLink(t *testing.T) {
	topo := TopologySpec{Pairs: 2, GPUHBM: true, GPUHBF: true, HBMHBF: true, HBMHBFUsable: 0.8 * unit.TBps,
		LinkUsable: "gpu-hbf1=1.2 TB/s"}
	s := paperSystem(topo)
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	rt, _ := s.RouteTable()
	want := map[string]unit.BytesPerSecond{
		"gpu<-hbm0": 1.6 * unit.TBps, "hbm0<-gpu": 1.6 * unit.TBps, "gpu<-hbf0": 1.6 * unit.TBps,
		"gpu<-hbf1": 1.2 * unit.TBps, "hbf1<-gpu": 1.2 * unit.TBps, "hbm1<-hbf1": 0.8 * unit.TBps, "hbf0<-hbm0": 0.8 * unit.TBps,
	}
	seen := 0
	for _, r := range rt.Resources {
		if w, ok := want[r.Name]; ok {
			seen++
			if r.Rate != w {
				t.Errorf("%s at %v, want %v", r.Name, r.Rate, w)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("found %d of the %d links", seen, len(want))
	}
	if s.Topology.Symmetric(s.Link.Usable) {
		t.Error("a topology with one slower GPU-HBF link reported symmetric")
	}
}

// TestRouteTableBadInput checks the Build-time errors: a memory the GPU
// cannot reach, a hop with zero rate, a link faster than its raw rate and
// a cycle, each naming the field.
func TestRouteTableBadInput(t *testing.T) {
	dash := TopologySpec{Pairs: 2, GPUHBM: true, GPUHBF: true, HBMHBF: true}
	for _, c := range []struct {
		name   string
		modify func(*SystemSpec)
		field  string
	}{
		{"HBM unreachable", func(s *SystemSpec) { s.Topology.GPUHBM = false }, "topology.gpu_hbm"},
		{"HBF unreachable", func(s *SystemSpec) { s.Topology.GPUHBF, s.Topology.HBMHBF = false, false }, "topology"},
		{"HBM-only with an HBF path", func(s *SystemSpec) { s.Topology.HBMOnly = true }, "topology.hbm_only"},
		{"zero-rate link", func(s *SystemSpec) { s.Topology.LinkUsable = "hbm1-hbf1=0 B/s" }, "topology.link_usable: hbm1-hbf1"},
		{"unknown link", func(s *SystemSpec) { s.Topology.LinkUsable = "gpu-hbf2=1 TB/s" }, "topology.link_usable: gpu-hbf2"},
		{"rate without a unit", func(s *SystemSpec) { s.Topology.LinkUsable = "gpu-hbf1=1.2" }, "topology.link_usable: gpu-hbf1"},
		{"no rate", func(s *SystemSpec) { s.Topology.LinkUsable = "gpu-hbf1" }, "topology.link_usable"},
		{"link faster than raw", func(s *SystemSpec) { s.Topology.GPUHBFUsable = 3 * unit.TBps }, "topology.gpu_hbf_usable"},
		{"one link faster than raw", func(s *SystemSpec) { s.Topology.LinkUsable = "gpu-hbm1=2.1 TB/s" }, "topology.link_usable"},
		{"negative kind rate", func(s *SystemSpec) { s.Topology.HBMHBFUsable = -1 }, "topology.hbm_hbf_usable"},
		{"too many HBM stacks a pair", func(s *SystemSpec) { s.Topology.HBMPerPair = 5 }, "topology.hbm_per_pair"},
	} {
		s := paperSystem(dash)
		c.modify(&s)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: got %v, want an error naming %s", c.name, err, c.field)
		}
	}
	// A zero-rate resource and a cycle cannot come from a topology spec
	// (its ranges and its routes prevent them); a table built by hand is
	// checked alike.
	rt, err := paperSystem(dash).RouteTable()
	if err != nil {
		t.Fatal(err)
	}
	zero := rt.Clone()
	zero.Resources[0].Rate = 0
	var rte *RouteTableError
	if err := zero.Validate(); !errors.As(err, &rte) || !strings.Contains(err.Error(), "zero rate") || rte.Field != zero.Resources[0].Field {
		t.Errorf("zero rate: %v", err)
	}
	cyc := rt.Clone()
	for i, r := range cyc.Routes {
		if r.Kind == RouteRelay { // HBF -> HBM -> GPU -> back to the HBM stack
			for k, res := range cyc.Resources {
				if res.Kind == ResourceLink && res.From == gpuNode && res.To == r.Via {
					cyc.Routes[i].Hops = append(cyc.Routes[i].Hops, Hop{Resource: k})
				}
			}
			break
		}
	}
	if err := cyc.Validate(); !errors.As(err, &rte) || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("cycle: %v", err)
	}
	dead := rt.Clone()
	for i, r := range dead.Routes {
		if r.Kind == RouteRelayWrite { // take the relay SRAM before the HBF SRAM
			h := &dead.Routes[i].Hops[0]
			h.Take[0], h.Take[1] = h.Take[1], h.Take[0]
		}
	}
	if err := dead.Validate(); !errors.As(err, &rte) || !strings.Contains(err.Error(), "deadlock") {
		t.Errorf("pools taken in both orders: %v", err)
	}
}

// TestLinkUsableReadsBack checks that the single-link rates written by
// WithLinkUsable read back exactly.
func TestLinkUsableReadsBack(t *testing.T) {
	in := map[string]unit.BytesPerSecond{"gpu-hbf1": 1.2 * unit.TBps, "hbm0-hbf0": 1234567890123.4567, "gpu-hbm0": 17 * unit.GBps}
	out, err := TopologySpec{LinkUsable: WithLinkUsable(in)}.SingleLinks()
	if err != nil || len(out) != len(in) {
		t.Fatalf("%q: %v, %v", WithLinkUsable(in), out, err)
	}
	for k, v := range in {
		if out[k] != v {
			t.Errorf("%s: %v read back as %v (%q)", k, v, out[k], WithLinkUsable(in))
		}
	}
}
