package offload

import (
	"math"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash/unit"
)

var (
	testVM = HostSpec{ID: "vm", Name: "a VM", Cores: 16, BaseClock: 2.1 * unit.GHz, AMXFLOPsPerCycle: 1024, Measured: true,
		Profile: "h200-host-offload", Source: "lscpu"}
	testXeon = HostSpec{ID: "xeon", Name: "a Xeon", Cores: 36, BaseClock: 2 * unit.GHz, MaxTurbo: 3.2 * unit.GHz, AMXFLOPsPerCycle: 1024,
		MemoryChannels: 8, MemoryMTs: 4800, DerivedFrom: "vm", Source: "ARK"}
)

// The derived host follows the formula written in its Derivation: the measured
// fit's per-core term scaled by the base clocks, its serial term replaced by the
// weights over the peak DRAM rate; every point is marked modelled; copies kept.
func TestDeriveHostScalesTheMeasuredFit(t *testing.T) {
	m := shipped(t)
	d, err := DeriveHost(m, testVM, testXeon)
	if err != nil {
		t.Fatal(err)
	}
	if d.Derived == nil || d.Derived.ClockScale != 1.05 || d.Derived.Memory != 307.2e9 {
		t.Fatalf("derivation %+v: want clock scale 2.1/2.0 = 1.05 and 8 x 4800 MT/s x 8 B = 307.2 GB/s", d.Derived)
	}
	if got := d.Threads(); got[len(got)-1] != 36 || got[len(got)-2] != 32 {
		t.Errorf("threads %v: want the measured caps, then 32 and the host's 36 cores", got)
	}
	if len(d.Copies) != len(m.Copies) || d.CopyTime(37700000, true) != m.CopyTime(37700000, true) {
		t.Error("copies are not the measured host's")
	}
	for _, b := range d.Derived.Batches {
		fit, _ := m.Fit(b.Batch)
		if b.PerCore != unit.Duration(math.Round(float64(fit.Parallel)*1.05)) {
			t.Errorf("B=%d: per-core term %v, want the fit's parallel %v x 1.05", b.Batch, b.PerCore, fit.Parallel)
		}
		if want := unit.TransferTime(b.Weights, 307.2e9); b.Shared != want || b.Weights != unit.Bytes(b.ActiveExperts)*testShape.ExpertBytes() {
			t.Errorf("B=%d: shared term %v for %v, want %v", b.Batch, b.Shared, b.Weights, want)
		}
		if b.AMX >= b.PerCore/10 {
			t.Errorf("B=%d: the AMX floor %v is not far below the per-core term %v", b.Batch, b.AMX, b.PerCore)
		}
		prev := unit.Duration(math.MaxInt64)
		for _, c := range d.Threads() {
			got, err := d.LayerTime(b.Batch, c)
			if err != nil || !got.Modelled || got.Latency != b.At(c) || got.Latency >= prev || got.Latency < b.Shared {
				t.Errorf("B=%d, %d cores: %+v, %v; want %v, modelled, falling with cores, above the shared term", b.Batch, c, got, err, b.At(c))
			}
			prev = got.Latency
			if c == 16 {
				measured, _ := m.LayerTime(b.Batch, 16)
				if r := got.Latency.Seconds() / measured.Latency.Seconds(); r > 1.2 || r < 0.3 {
					t.Errorf("B=%d at 16 cores: derived / measured = %.2f, out of a plausible range", b.Batch, r)
				}
			}
		}
	}
}

func TestDeriveHostRefusesBadSpecs(t *testing.T) {
	m := shipped(t)
	for name, c := range map[string]struct {
		from, to HostSpec
		want     string
	}{
		"not measured":    {func() HostSpec { s := testVM; s.Measured, s.DerivedFrom = false, "x"; return s }(), testXeon, "DRAM rate"},
		"wrong parent":    {testVM, func() HostSpec { s := testXeon; s.DerivedFrom = "other"; return s }(), "derived_from"},
		"no memory":       {testVM, func() HostSpec { s := testXeon; s.MemoryChannels, s.MemoryMTs = 0, 0; return s }(), "DRAM rate"},
		"half a memory":   {testVM, func() HostSpec { s := testXeon; s.MemoryMTs = 0; return s }(), "memory_channels/memory_mts"},
		"no clock":        {testVM, func() HostSpec { s := testXeon; s.BaseClock = 0; return s }(), "base_clock"},
		"turbo below":     {testVM, func() HostSpec { s := testXeon; s.MaxTurbo = unit.GHz; return s }(), "max_turbo"},
		"no source":       {testVM, func() HostSpec { s := testXeon; s.Source = ""; return s }(), "source"},
		"no cores":        {testVM, func() HostSpec { s := testXeon; s.Cores = 0; return s }(), "cores"},
		"measured target": {testVM, func() HostSpec { s := testXeon; s.Measured, s.DerivedFrom, s.Profile = true, "", "p"; return s }(), "measured"},
	} {
		if _, err := DeriveHost(m, c.from, c.to); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, c.want)
		}
	}
}
