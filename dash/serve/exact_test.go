package serve

import (
	"context"
	"reflect"
	"testing"

	"github.com/dashlab/dashlab/dash/sim"
)

// sameRun reports whether two runs measured the same, field by field, but
// for what describes the simulation rather than the served system (the
// wall time, the passes replayed), and names the first field that differs.
func sameRun(a, b *Run) (bool, string) {
	x, y := *a, *b
	x.Wall, y.Wall = 0, 0
	x.Replays, y.Replays = 0, 0
	x.SharedReplays, y.SharedReplays = 0, 0
	vx, vy := reflect.ValueOf(x), reflect.ValueOf(y)
	for i := range vx.NumField() {
		if !reflect.DeepEqual(vx.Field(i).Interface(), vy.Field(i).Interface()) {
			return false, vx.Type().Field(i).Name
		}
	}
	return true, ""
}

// The shortcuts change no serving result: traces of both modes, with and
// without a memo shared between them, against event-by-event passes
// (NoJump), every field of every run (per-request metrics, gaps and the
// per-iteration series).
func TestServingShortcutsExact(t *testing.T) {
	if testing.Short() {
		t.Skip("event-by-event passes")
	}
	for _, sys := range []string{"dash", "relay-only"} {
		exp := small(t, sys)
		memo := sim.NewPassMemo(exp)
		shared := 0
		for seed := range uint64(3) {
			for _, mode := range []Mode{Mixed, Serial} {
				reqs, err := Poisson(4, 24, Uniform(200, 700), Uniform(2, 12), seed+1)
				if err != nil {
					t.Fatal(err)
				}
				cfg := Config{Experiment: exp, Scheduler: Scheduler{MaxBatch: 8, TokenBudget: 1024, Chunk: 256, Mode: mode}, Series: true}
				own := simulate(t, cfg, reqs)
				slow := cfg
				slow.NoJump = true
				exact := simulate(t, slow, reqs)
				withMemo := cfg
				withMemo.Memo = memo
				sharing := simulate(t, withMemo, reqs)
				if ok, field := sameRun(own, exact); !ok {
					t.Errorf("%s seed %d %v: %s differs with shortcuts from event by event", sys, seed+1, mode, field)
				}
				if ok, field := sameRun(sharing, exact); !ok {
					t.Errorf("%s seed %d %v: %s differs with a shared memo from event by event", sys, seed+1, mode, field)
				}
				if own.Replays != sharing.Replays {
					t.Errorf("%s seed %d %v: replays %d alone, %d sharing: they must not depend on the memo", sys, seed+1, mode, own.Replays, sharing.Replays)
				}
				shared += sharing.SharedReplays
			}
		}
		if shared == 0 {
			t.Errorf("%s: no pass replayed from the shared memo", sys)
		}
	}
}

// A memo holds one experiment's passes: a Passer of another refuses it.
func TestPassMemoOfAnotherExperiment(t *testing.T) {
	cfg := Config{Experiment: small(t, "dash"), Scheduler: PaperScheduler(), Memo: sim.NewPassMemo(small(t, "relay-only"))}
	if _, err := Simulate(context.Background(), cfg, []Request{{ID: 0, Prompt: 100, Output: 2}}, nil); err == nil {
		t.Error("a memo of another experiment was accepted")
	}
}
