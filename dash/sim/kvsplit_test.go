package sim

import (
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// kvParts is the split of an attention kernel's HBF KV (f) beside h bytes of
// HBM KV, by route, on exp's memory system.
func kvParts(t *testing.T, exp dash.Experiment, h, f unit.Bytes) (*engine, []unit.Bytes) {
	t.Helper()
	cfg, err := newConfig(exp)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(cfg)
	return e, e.readParts(&opSpec{class: ClassAttention, kvHBM: h, kvHBF: f}, false, 0)
}

// TestKVSplitBalancesTheGPUFacingLinks checks the makespan split of DASH's
// HBF KV, today's balanced relay as the symmetric case of the one rule: on
// each stack the relayed part R = (f - h)/2 of its f bytes beside h of HBM
// KV (both links then carry (f + h)/2), none when h >= f, on the grid of
// one transfer chunk from one chunk up, and every byte read.
func TestKVSplitBalancesTheGPUFacingLinks(t *testing.T) {
	const mib = unit.MiB
	exp := build(t, "qwen3-235b-a22b", "dash", 1, 64, 2)
	for _, c := range []struct{ h, f unit.Bytes }{
		{0, 100 * mib}, {0, 101}, {100 * mib, 100 * mib}, {1 << 40, 100 * mib}, {14 * mib, 100 * mib},
		{0, 1}, {3, 1<<33 + 5}, {5 * mib, 3 * mib}, {99 * mib, 1 << 45}, {1, 7 << 30},
	} {
		e, parts := kvParts(t, exp, 2*c.h, 2*c.f) // two stacks
		rt := &e.cfg.rt
		grain := e.cfg.seg
		for stack := range rt.nHBF {
			d, r := parts[rt.hbfRead[stack][0]], parts[rt.hbfRead[stack][1]]
			if d+r != c.f || d < 0 || r < 0 {
				t.Fatalf("h=%v f=%v: %v + %v of %v", c.h, c.f, d, r, c.f)
			}
			exact := max(0, (c.f-c.h)/2)
			want := exact
			if want >= grain {
				want = (want + grain/2) / grain * grain
			}
			want = min(want, c.f)
			if r != want {
				t.Errorf("h=%v f=%v stack %d: relay %v, want %v ((f-h)/2 = %v on the grid of %v)", c.h, c.f, stack, r, want, exact, grain)
			}
		}
	}
}

// TestKVSplitConserves checks on every topology and link rate that the KV
// split loses no byte and uses only the routes that exist: the HBF KV of
// RelayOnly is read whatever the link rate (issue 21: it was dropped when
// the HBM array was as fast as the link).
func TestKVSplitConserves(t *testing.T) {
	for _, sys := range []string{"dash", "direct-only", "relay-only", "shared-hbf", "dash-asym-3"} {
		for _, hbm := range []unit.BytesPerSecond{1.2 * unit.TBps, 1.6 * unit.TBps, 3 * unit.TBps} {
			exp := build(t, "qwen3-235b-a22b", sys, 1, 64, 2, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
				return b.Modify(func(s *dash.SystemSpec) { s.HBM.ArrayBandwidth = hbm })
			})
			for _, kv := range [][2]unit.Bytes{{0, 0}, {0, 12345}, {1 << 30, 7 << 30}, {7 << 30, 1 << 30}, {3, 1<<33 + 5}} {
				e, parts := kvParts(t, exp, kv[0], kv[1])
				var sum unit.Bytes
				for r, b := range parts {
					if b < 0 || (b > 0 && e.cfg.rt.routes[r].sense < 0) {
						t.Errorf("%s: route %d (%v) carries %v of HBF KV", sys, r, e.cfg.rt.routes[r].kind, b)
					}
					sum += b
				}
				if sum != kv[1] {
					t.Errorf("%s HBM %v h=%v f=%v: split %v of %v", sys, hbm, kv[0], kv[1], sum, kv[1])
				}
			}
		}
	}
}
