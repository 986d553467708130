package sim

import (
	"slices"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// Replayed segments give the same result as the event-by-event run, bit
// for bit, on decodes whose steps differ (growing context, chunked and
// global attention) under both readings, and the replays happen.
func TestSegmentReplayExact(t *testing.T) {
	for _, rd := range dash.Readings() {
		exp := build(t, "llama4-maverick", "dash", 1, 4096, 300, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
			return b.Lookahead(true).Reading(rd)
		})
		fast, slow := run(t, exp, Options{}), run(t, exp, Options{NoJump: true})
		if !sameResult(fast, slow) {
			t.Errorf("%v reading: with shortcuts E2E %v, event by event %v", rd, fast.E2E, slow.E2E)
		}
		if fast.Perf.ReplayedSegments == 0 {
			t.Errorf("%v reading: no segment replayed", rd)
		}
	}
}

// Capturing the engine's state and installing it again (with fresh stream
// ids, as a replay does) changes nothing: a pass that does so every few
// events, mid-transfer, ends exactly as one that does not.
func TestCaptureInstallIsIdentity(t *testing.T) {
	for _, sys := range []string{"dash", "relay-only"} {
		exp := build(t, "llama4-maverick", sys, 2, 1024, 64, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
			return b.Lookahead(true).TProg(2 * unit.Millisecond)
		})
		outcome := func(every int) (Time, []int64) {
			e := prefillAndStep(t, exp, func(e *engine, k, n int) {
				if every > 0 && n%every == k && !e.passEnded {
					e.install(e.capture(e.now, e.pc), e.now, e.pc)
				}
			})
			return e.now, e.globalCounters(nil)
		}
		t0, c0 := outcome(0)
		t1, c1 := outcome(7)
		if t0 != t1 || !slices.Equal(c0, c1) {
			t.Errorf("%s: end %v with capture and install, %v without", sys, t1, t0)
		}
	}
}

// stepEngine returns an engine that simulates event by event (no
// shortcut) and the program builder of an experiment.
func stepEngine(t *testing.T, exp dash.Experiment) (*engine, *programBuilder) {
	t.Helper()
	cfg, err := newConfig(exp)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(cfg)
	e.useShortcuts(false)
	return e, newProgramBuilder(exp)
}

// prefillAndStep simulates, event by event, a 1024-token prefill and one
// decode step of an experiment, calling after(e, k, n) after the n-th event
// (from 1) of pass k (0: the prefill, 1: the step); it returns the engine.
func prefillAndStep(t *testing.T, exp dash.Experiment, after func(e *engine, k, n int)) *engine {
	t.Helper()
	e, pb := stepEngine(t, exp)
	for k, p := range []pass{pb.build(false, 1024, 0), pb.build(true, 1024+1, 1)} {
		e.pass = &p
		e.ops = make([]opState, len(p.ops))
		e.streams, e.active = e.streams[:0], e.active[:0]
		e.pc, e.passEnded, e.writesPending, e.maxOp = 0, false, 0, 0
		e.startOp(0)
		for n := 1; !e.passEnded; n++ {
			ev := e.q.pop()
			e.now = ev.t
			e.st.events++
			e.handle(ev)
			after(e, k, n)
		}
	}
	return e
}

// The statistics read and added directly (statFields) are those the state
// walk visits as statistics, in its order: checked mid-pass, every few
// events of a prefill that writes KV and a decode step, on both systems.
func TestStatListIsTheWalk(t *testing.T) {
	for _, sys := range []string{"dash", "relay-only"} {
		exp := build(t, "llama4-maverick", sys, 2, 1024, 64, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
			return b.Lookahead(true)
		})
		checks := 0
		prefillAndStep(t, exp, func(e *engine, _, n int) {
			if n%97 != 0 {
				return
			}
			checks++
			direct, walked := e.globalCounters(nil), e.walkedCounters(nil)
			if !slices.Equal(direct, walked) {
				t.Fatalf("%s: statFields reads %v, the walk %v", sys, direct, walked)
			}
			delta := make([]int64, len(direct))
			for i := range delta {
				delta[i] = int64(i + 1)
			}
			e.addStats(delta, 2)
			after := e.walkedCounters(nil)
			for i := range after {
				if after[i] != walked[i]+2*delta[i] {
					t.Fatalf("%s: addStats moved statistic %d from %d to %d, not by %d", sys, i, walked[i], after[i], 2*delta[i])
				}
			}
			e.addStats(delta, -2)
		})
		if checks == 0 {
			t.Fatalf("%s: nothing checked", sys)
		}
	}
}
