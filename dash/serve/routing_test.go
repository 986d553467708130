package serve

import (
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/routing"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
)

// Recorded routing in serving: each request replays its own trace request
// (its id), the shortcuts and a shared memo change nothing (every field of
// the run equals the event-by-event run's), and a trace too short for the
// requests is refused before the run.
func TestServingRecordedRouting(t *testing.T) {
	if testing.Short() {
		t.Skip("event-by-event passes")
	}
	for _, r := range []struct {
		routing dash.RoutingSpec
		cache   dash.ExpertCacheSpec
	}{
		{dash.RoutingSpec{Kind: dash.RoutingSynthetic, Seed: 2, ZipfS: 1, Repeat: routing.MixtralRepeat, Tasks: 2, TaskOverlap: 0.5}, dash.ExpertCacheSpec{}},
		{dash.RoutingSpec{Kind: dash.RoutingSynthetic, Seed: 3, ZipfS: 1.2}, dash.ExpertCacheSpec{Budget: 2 * unit.GB, Policy: routing.PolicyLFU}},
	} {
		exp, err := reference.Experiment("qwen3-30b-a3b", "dash").Routing(r.routing).Execution(dash.ExecutionSpec{ExpertCache: r.cache}).Build()
		if err != nil {
			t.Fatal(err)
		}
		reqs, err := Poisson(4, 16, Uniform(100, 400), Uniform(2, 10), 1)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Experiment: exp, Scheduler: Scheduler{MaxBatch: 8, TokenBudget: 1024, Chunk: 128, Mode: Mixed}, Series: true}
		fast := simulate(t, cfg, reqs)
		slow := cfg
		slow.NoJump = true
		exact := simulate(t, slow, reqs)
		if ok, field := sameRun(fast, exact); !ok {
			t.Errorf("%+v: %s differs with shortcuts from event by event", r.routing, field)
		}
		shared := cfg
		shared.Memo = sim.NewPassMemo(exp)
		_ = simulate(t, shared, reqs)
		again := simulate(t, shared, reqs)
		if ok, field := sameRun(again, exact); !ok {
			t.Errorf("%+v: %s differs with a shared memo from event by event", r.routing, field)
		}
	}
	tr, err := reference.RoutingTrace("mixtral-8x22b-synthetic.parquet")
	if err != nil {
		t.Fatal(err)
	}
	exp, err := reference.Experiment("mixtral-8x22b", "dash").RoutingTrace(tr, false).Build()
	if err != nil {
		t.Fatal(err)
	}
	reqs, _ := Poisson(2, 12, Uniform(100, 200), Uniform(2, 4), 1)
	if _, err := Simulate(t.Context(), Config{Experiment: exp, Scheduler: PaperScheduler()}, reqs, nil); err == nil {
		t.Error("12 requests served from an 8-request trace without wrap")
	}
}
