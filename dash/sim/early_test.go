package sim

import (
	"fmt"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

func withEarly(r dash.Reading, buf unit.Bytes) func(dash.ExperimentBuilder) dash.ExperimentBuilder {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		return b.Reading(r).Lookahead(true).EarlyDelivery(true, buf)
	}
}

// TestEarlyDeliveryBufferBound checks that the GPU staging buffer never
// holds more than its size, that early delivery is used where lookahead
// knows experts in advance, and that every byte requested is delivered.
func TestEarlyDeliveryBufferBound(t *testing.T) {
	for _, r := range dash.Readings() {
		for _, buf := range []unit.Bytes{4 * unit.MiB, 0, 1 * unit.GiB} {
			for _, c := range []struct {
				model, system string
				b             int
			}{{"qwen3-235b-a22b", "dash", 1}, {"deepseek-v2", "dash", 4}, {"mixtral-8x22b", "relay-only", 16}, {"qwen3-235b-a22b", "direct-only", 4}} {
				exp := build(t, c.model, c.system, c.b, 512, 6, withEarly(r, buf))
				res := run(t, exp, Options{})
				name := fmt.Sprintf("%v %s/%s B=%d buffer %v", r, c.model, c.system, c.b, buf)
				want := buf
				if buf == 0 {
					want = exp.Timing().GPU().L2
				}
				if res.Early.Buffer != want {
					t.Errorf("%s: buffer %v, want %v", name, res.Early.Buffer, want)
				}
				if res.Early.Peak > res.Early.Buffer || res.Early.Delivered == 0 || res.Early.Peak == 0 {
					t.Errorf("%s: peak %v of %v, %v delivered early", name, res.Early.Peak, res.Early.Buffer, res.Early.Delivered)
				}
				for _, rt := range res.Routes {
					if rt.Requested != rt.Delivered {
						t.Errorf("%s route %s: requested %v, delivered %v", name, rt.Route, rt.Requested, rt.Delivered)
					}
				}
			}
		}
	}
	// Off, or without lookahead's early selection (DeepSeek-V3's biased
	// router), nothing enters the GPU early.
	for _, exp := range []dash.Experiment{
		build(t, "qwen3-235b-a22b", "dash", 1, 512, 4),
		build(t, "deepseek-v3", "dash", 1, 512, 4, withEarly(dash.ReadingPaper, 0)),
	} {
		if res := run(t, exp, Options{}); res.Early.Delivered != 0 {
			t.Errorf("%s: %v delivered early", exp.Name(), res.Early.Delivered)
		}
	}
}

// TestEarlyDeliveryOnce runs passes chunk by chunk and checks, stream by
// stream, that every byte arrives exactly once (an expert delivered early
// is not delivered again when its operator starts), that nothing is left
// staged and that the buffer is empty between passes.
func TestEarlyDeliveryOnce(t *testing.T) {
	for _, r := range dash.Readings() {
		for _, model := range []string{"qwen3-235b-a22b", "deepseek-v2"} {
			exp := build(t, model, "dash", 2, 256, 3, withEarly(r, 24*unit.MiB))
			e, pb := stepEngine(t, exp)
			cfg := e.cfg
			for s, p := range []pass{pb.build(false, 256, 0), pb.build(true, 257, 1)} {
				if err := e.runPass(&p); err != nil {
					t.Fatal(err)
				}
				for id, st := range e.streams {
					if st.done != st.total || len(st.staged) != 0 {
						t.Errorf("%v %s pass %d stream %d (%s): %v of %v delivered, %d staged", r, model, s, id, e.cfg.rt.routes[st.route].kind, st.done, st.total, len(st.staged))
					}
				}
				if e.gpuStaged != 0 {
					t.Errorf("%v %s pass %d: %v left in the staging buffer", r, model, s, e.gpuStaged)
				}
			}
			if e.st.earlyBytes == 0 || e.st.earlyPeak > cfg.earlyBuf {
				t.Errorf("%v %s: %v early, peak %v of %v", r, model, e.st.earlyBytes, e.st.earlyPeak, cfg.earlyBuf)
			}
		}
	}
}

// TestEarlyDeliveryShortcutsAreExact compares the shortcuts with the
// chunk-by-chunk run with early delivery on.
func TestEarlyDeliveryShortcutsAreExact(t *testing.T) {
	for _, r := range dash.Readings() {
		for _, model := range []string{"qwen3-235b-a22b", "deepseek-v2"} {
			exp := build(t, model, "dash", 4, 1024, 12, withEarly(r, 0))
			fast := run(t, exp, Options{})
			slow := run(t, exp, Options{NoJump: true})
			if !sameResult(fast, slow) {
				t.Errorf("%v %s: shortcuts change the result: E2E %v vs %v", r, model, fast.E2E, slow.E2E)
			}
		}
	}
}
