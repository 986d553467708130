package sim

import (
	"testing"

	"github.com/dashlab/dashlab/dash/unit"
)

// TestBalancedRelay checks the makespan split of the HBF KV: half each
// without HBM KV, none over Relay when the HBM KV is as large as the HBF
// KV, the links balanced in between, always within [0, f], and on the grid
// from one grain up.
func TestBalancedRelay(t *testing.T) {
	const mib = unit.MiB
	if got := balancedRelay(0, 100*mib, 1); got != 50*mib {
		t.Errorf("h=0: relay %v, want half, %v", got, 50*mib)
	}
	if got := balancedRelay(0, 101, 1); got != 50 {
		t.Errorf("h=0, odd f: relay %v, want 50 (direct 51)", got)
	}
	for _, h := range []unit.Bytes{100 * mib, 1 << 50} {
		if got := balancedRelay(h, 100*mib, 1); got != 0 {
			t.Errorf("h=%v >= f: relay %v, want 0", h, got)
		}
	}
	// The two links carry the same bytes: h+R = f-R.
	if h, f := 14*mib, 100*mib; h+balancedRelay(h, f, 1) != f-balancedRelay(h, f, 1) {
		t.Errorf("h=%v f=%v: relay %v, links unbalanced", h, f, balancedRelay(h, f, 1))
	}
	for _, grain := range []unit.Bytes{1, 4 * mib, 32 * mib, 1 << 40} {
		for _, f := range []unit.Bytes{0, 1, 3 * mib, 100*mib + 7, 1 << 45} {
			for _, h := range []unit.Bytes{0, 1, 5 * mib, 99 * mib, 1 << 46} {
				r := balancedRelay(h, f, grain)
				if r < 0 || r > f {
					t.Fatalf("h=%v f=%v grain=%v: relay %v outside [0, f]", h, f, grain, r)
				}
				if grain > 1 && r >= grain && r%grain != 0 && r != f {
					t.Errorf("h=%v f=%v grain=%v: relay %v off the grid", h, f, grain, r)
				}
				exact := max(0, (f-h)/2)
				if d := r - exact; (d > grain/2 || -d > grain/2) && r != f {
					t.Errorf("h=%v f=%v grain=%v: relay %v, more than half a grain from %v", h, f, grain, r, exact)
				}
			}
		}
	}
}

// TestKVSplitConserves checks that the KV split loses no byte and keeps the
// single-route topologies' static split.
func TestKVSplitConserves(t *testing.T) {
	for _, c := range []config{
		{pairs: 8, nHBF: 8, seg: 4 * unit.MiB, gh: 1.6e12, gf: 1.6e12, fh: 1.6e12, hbmRate: 1.2e12, arrayRead: 2e12, direct: true, relay: true},
		{pairs: 8, nHBF: 8, seg: 4 * unit.MiB, gh: 1.6e12, gf: 1.6e12, fh: 1.6e12, hbmRate: 1.2e12, arrayRead: 2e12, direct: true},
		{pairs: 8, nHBF: 8, seg: 4 * unit.MiB, gh: 1.6e12, gf: 1.6e12, fh: 1.6e12, hbmRate: 1.2e12, arrayRead: 2e12, relay: true},
	} {
		for _, kv := range [][2]unit.Bytes{{0, 0}, {0, 12345}, {1 << 30, 7 << 30}, {7 << 30, 1 << 30}, {3, 1<<33 + 5}} {
			spec := opSpec{kvHBM: kv[0], kvHBF: kv[1]}
			d, r := c.kvSplit(&spec)
			if d+r != spec.kvHBF || d < 0 || r < 0 {
				t.Errorf("direct %v relay %v: split %v + %v of %v", c.direct, c.relay, d, r, spec.kvHBF)
			}
			if (!c.direct && d != 0) || (!c.relay && r != 0) {
				t.Errorf("direct %v relay %v: a missing route carries KV (%v, %v)", c.direct, c.relay, d, r)
			}
		}
	}
}
