package serve

import (
	"context"
	"testing"

	"github.com/dashlab/dashlab/dash/sim"
)

// A prefilled request (prefill/decode disaggregation) decodes from its
// admission: its TTFT here is zero and its decode takes exactly the decode
// steps of the same request served whole (every pass starts with the
// memory system idle, so the steps are the same programs).
func TestPrefilledRequestDecodesOnly(t *testing.T) {
	exp := small(t, "dash")
	cfg := Config{Experiment: exp, Scheduler: PaperScheduler()}
	whole := simulate(t, cfg, []Request{{ID: 0, Prompt: 1024, Output: 16}})
	pre := simulate(t, cfg, []Request{{ID: 0, Prompt: 1024, Output: 16, Prefilled: true}})
	w, p := whole.Measured[0], pre.Measured[0]
	if p.TTFT != 0 || p.E2E != w.E2E-w.TTFT || p.TPOT != w.TPOT {
		t.Errorf("prefilled: TTFT %v E2E %v TPOT %v; whole: decode %v TPOT %v", p.TTFT, p.E2E, p.TPOT, w.E2E-w.TTFT, w.TPOT)
	}
	if pre.KVAllocated != whole.KVAllocated || pre.KVFreed != pre.KVAllocated {
		t.Errorf("KV: prefilled allocated %v freed %v, whole allocated %v", pre.KVAllocated, pre.KVFreed, whole.KVAllocated)
	}
	if _, err := Simulate(context.Background(), cfg, []Request{{ID: 0, Prompt: 10, Output: 1, Prefilled: true}}, nil); err == nil {
		t.Error("a prefilled request with nothing to decode was accepted")
	}
}

// SimulateOn with a single GPU's Passer and its plan's KV capacity is
// Simulate.
func TestSimulateOnIsSimulate(t *testing.T) {
	exp := small(t, "dash")
	cfg := Config{Experiment: exp, Scheduler: PaperScheduler(), Warmup: 2}
	reqs, err := Poisson(2, 12, Fixed(700), Fixed(9), 3)
	if err != nil {
		t.Fatal(err)
	}
	want := simulate(t, cfg, reqs)
	p, err := sim.NewPasser(exp, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := SimulateOn(context.Background(), cfg, passerEngine{p}, PlanKV(exp), reqs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.SimTime != want.SimTime || len(got.Measured) != len(want.Measured) || got.Measured[3] != want.Measured[3] {
		t.Errorf("SimulateOn: %v %+v, Simulate %v %+v", got.SimTime, got.Measured[3], want.SimTime, want.Measured[3])
	}
}

// A package without HBF keeps the prompts' KV in HBM too: admission
// reserves prompt and generated tokens' KV from the one HBM pool.
func TestHBMOnlyKVIsOnePool(t *testing.T) {
	exp := small(t, "dash")
	cfg := Config{Experiment: exp, Scheduler: PaperScheduler()}
	kv := PlanKV(exp)
	per := kv.PerToken
	reqs := []Request{{ID: 0, Prompt: 1000, Output: 4}}
	for _, c := range []struct {
		kv       KVCapacity
		rejected int
	}{
		{KVCapacity{HBF: 1000 * per, HBM: 3 * per, PerToken: per}, 0},                // prompt in HBF, 3 decode tokens in HBM
		{KVCapacity{HBM: 1002 * per, PerToken: per, HBMOnly: true}, 1},               // 1003 tokens in HBM do not fit
		{KVCapacity{HBM: 1003 * per, PerToken: per, HBMOnly: true}, 0},               // they do
		{KVCapacity{HBF: 1 << 40, HBM: 1002 * per, PerToken: per, HBMOnly: true}, 1}, // HBF unused
	} {
		p, err := sim.NewPasser(exp, sim.Options{})
		if err != nil {
			t.Fatal(err)
		}
		run, err := SimulateOn(context.Background(), cfg, passerEngine{p}, c.kv, reqs, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(run.Rejections) != c.rejected {
			t.Errorf("%+v: %d rejected, want %d (%v)", c.kv, len(run.Rejections), c.rejected, run.Rejections)
		}
	}
}
