package sim

import (
	"fmt"
	"math"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// Read-pipeline depths under test: the physical reading (1), parts in
// between, and the paper reading (unbounded).
var testDepths = []dash.WaveDepth{1, 2, 3, 8, dash.ReadWavesUnbounded}

func depthName(d dash.WaveDepth) string { return d.String() }

func withDepth(d dash.WaveDepth, tr unit.Duration) func(dash.ExperimentBuilder) dash.ExperimentBuilder {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.ReadWaves(d).TRead(tr) }
}

// TestReadPipelineNoResourceAboveItsRate runs whole experiments at every
// depth and checks every resource against its rate: each link direction,
// each TSV, and the NAND array, which never has more than depth waves in
// flight (the sum of the waves' t_R is at most depth x the time the array
// was sensing at all).
func TestReadPipelineNoResourceAboveItsRate(t *testing.T) {
	for _, sys := range []string{"dash", "relay-only", "direct-only"} {
		for _, tr := range []unit.Duration{3 * unit.Microsecond, 32 * unit.Microsecond} {
			for _, d := range testDepths {
				exp := build(t, "qwen3-235b-a22b", sys, 16, 1024, 4, withDepth(d, tr))
				r := run(t, exp, Options{})
				name := fmt.Sprintf("%s t_R=%v depth=%s", sys, tr, depthName(d))
				link := exp.System().Link.Usable
				for _, l := range r.Links {
					if l.Busy < unit.TransferTime(l.Bytes, link)-unit.Duration(r.Perf.Events) || l.Busy > r.E2E {
						t.Errorf("%s pair %d %s: %v in %v busy over a %v run", name, l.Pair, l.Link, l.Bytes, l.Busy, r.E2E)
					}
				}
				for _, h := range r.HBF {
					if h.TSVBusy < unit.TransferTime(h.TSVBytes, exp.System().HBF.TSVBandwidth)-unit.Duration(h.Waves) || h.TSVBusy > r.E2E {
						t.Errorf("%s stack %d: TSV moved %v in %v", name, h.Stack, h.TSVBytes, h.TSVBusy)
					}
					if h.SenseBusy+h.ProgBusy > r.E2E {
						t.Errorf("%s stack %d: array busy %v longer than the run %v", name, h.Stack, h.SenseBusy+h.ProgBusy, r.E2E)
					}
					if d != dash.ReadWavesUnbounded && unit.Duration(h.Waves)*tr > unit.Duration(d)*h.SenseBusy {
						t.Errorf("%s stack %d: %d waves of %v sensed in %v: more than %d at once", name, h.Stack, h.Waves, tr, h.SenseBusy, d)
					}
				}
			}
		}
	}
}

// TestReadPipelineStreamRate checks the steady rate of one long HBF stream
// per stack at every depth against the slowest stage of its pipeline: the
// array (depth x page wave / t_R; no limit when unbounded), the TSV and the
// links of its routes. The stream never beats it, and takes longer than at
// that rate by no more than the pipeline's start-up: one t_R, one chunk
// over the TSV and two link hops. Every SRAM slot is returned.
func TestReadPipelineStreamRate(t *testing.T) {
	const total = 1 << 30 // 1 GiB per stack
	for _, sys := range []string{"dash", "direct-only", "relay-only"} {
		for _, tr := range []unit.Duration{3 * unit.Microsecond, 32 * unit.Microsecond} {
			for _, d := range testDepths {
				exp := build(t, "qwen3-235b-a22b", sys, 1, 64, 2, withDepth(d, tr))
				cfg, err := newConfig(exp)
				if err != nil {
					t.Fatal(err)
				}
				h := exp.System().HBF
				routes := float64(len(cfg.setRate)) // the experts' route sets
				want := math.Min(float64(h.ArrayReadBandwidth()), math.Min(float64(h.TSVBandwidth), routes*float64(cfg.gf)))
				for _, jump := range []bool{false, true} {
					e := newEngine(cfg)
					e.useShortcuts(jump)
					p := pass{ops: []opSpec{{class: ClassExperts, layer: 0, routedN: 2, expertSize: total}}}
					if err := e.runPass(&p); err != nil {
						t.Fatal(err)
					}
					bytes := 2 * total / unit.Bytes(cfg.pairs)
					atRate := unit.TransferTime(bytes, unit.BytesPerSecond(want))
					startup := tr + unit.TransferTime(cfg.seg, cfg.tsv) + 2*unit.TransferTime(cfg.seg, cfg.gf) + unit.Microsecond
					if e.now < atRate-unit.Duration(e.st.events) || e.now > atRate+startup {
						t.Errorf("%s t_R=%v depth=%s jump=%v: %v per stack in %v, want %v at %.4g TB/s plus at most %v",
							sys, tr, depthName(d), jump, bytes, e.now, atRate, want/1e12, startup)
					}
					if err := poolsReturned(e); err != nil {
						t.Errorf("%s depth=%s: %v", sys, depthName(d), err)
					}
					for _, s := range e.hbf {
						if len(s.sensing)+len(s.dataReg) != 0 {
							t.Errorf("%s depth=%s: %d waves left in the array", sys, depthName(d), len(s.sensing)+len(s.dataReg))
						}
					}
				}
			}
		}
	}
}

// TestReadPipelineConservation checks that every byte requested on every
// route is delivered, at every depth.
func TestReadPipelineConservation(t *testing.T) {
	for _, sys := range []string{"dash", "relay-only", "direct-only", "compact-dash"} {
		for _, d := range testDepths {
			r := run(t, build(t, "deepseek-v2", sys, 4, 512, 5, withDepth(d, 3*unit.Microsecond)), Options{})
			for _, rt := range r.Routes {
				if rt.Requested != rt.Delivered {
					t.Errorf("%s depth=%s route %s: requested %v, delivered %v", sys, depthName(d), rt.Route, rt.Requested, rt.Delivered)
				}
			}
		}
	}
}

// TestReadPipelineMonotoneInDepth checks that a deeper read pipeline never
// makes a run slower, and that the paper reading is the fastest.
func TestReadPipelineMonotoneInDepth(t *testing.T) {
	for _, sys := range []string{"dash", "relay-only", "direct-only"} {
		for _, tr := range []unit.Duration{3 * unit.Microsecond, 32 * unit.Microsecond} {
			var prev unit.Duration
			for i, d := range testDepths {
				r := run(t, build(t, "qwen3-235b-a22b", sys, 4, 512, 9, withDepth(d, tr)), Options{})
				if i > 0 && r.E2E > prev {
					t.Errorf("%s t_R=%v: depth %s gives %v, slower than %v with a shallower pipeline", sys, tr, depthName(d), r.E2E, prev)
				}
				prev = r.E2E
			}
		}
	}
}

// TestReadPipelineShortcutsAreExact compares the shortcuts with the
// chunk-by-chunk run at depths other than the default.
func TestReadPipelineShortcutsAreExact(t *testing.T) {
	for _, d := range []dash.WaveDepth{2, dash.ReadWavesUnbounded} {
		for _, c := range []struct {
			model, system string
			b             int
		}{{"qwen3-235b-a22b", "dash", 16}, {"deepseek-v2", "relay-only", 4}, {"mixtral-8x22b", "direct-only", 1}} {
			exp := build(t, c.model, c.system, c.b, 1024, 12, withDepth(d, 3*unit.Microsecond))
			fast := run(t, exp, Options{})
			slow := run(t, exp, Options{NoJump: true})
			if !sameResult(fast, slow) {
				t.Errorf("%s/%s depth=%s: shortcuts change the result: E2E %v vs %v", c.model, c.system, depthName(d), fast.E2E, slow.E2E)
			}
		}
	}
}
