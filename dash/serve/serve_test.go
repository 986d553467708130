package serve

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/reference"
)

// small is a quick experiment: Qwen3-30B-A3B on a system.
func small(t testing.TB, system string) dash.Experiment {
	t.Helper()
	e, err := reference.Experiment("qwen3-30b-a3b", system).Batch(1).Prompt(2048).Output(1).Build()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func simulate(t testing.TB, cfg Config, reqs []Request) *Run {
	t.Helper()
	r, err := Simulate(context.Background(), cfg, reqs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func saturation(t testing.TB, cfg Config) float64 {
	t.Helper()
	c := cfg
	c.Warmup, c.Measure = 32, 128
	s, err := MeasureSaturation(context.Background(), c, Fixed(1024), Fixed(32), 1)
	if err != nil {
		t.Fatal(err)
	}
	return s.RPS
}

// One request alone, with a chunk as long as its prompt, is the fixed-batch
// runner's B=1 experiment: the same TTFT and E2E, exactly.
func TestSingleRequestIsFixedBatch(t *testing.T) {
	for _, sys := range []string{"dash", "relay-only", "direct-only"} {
		exp, err := reference.Experiment("qwen3-235b-a22b", sys).Batch(1).Prompt(1024).Output(24).Build()
		if err != nil {
			t.Fatal(err)
		}
		want, err := sim.Run(exp)
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []Mode{Mixed, Serial} {
			cfg := Config{Experiment: exp, Scheduler: Scheduler{MaxBatch: 4, TokenBudget: 2048, Chunk: 1024, Mode: mode}}
			run := simulate(t, cfg, []Request{{ID: 0, Prompt: 1024, Output: 24}})
			m := run.Measured[0]
			if m.TTFT != want.TTFT || m.E2E != want.E2E || m.TPOT != want.TPOT {
				t.Errorf("%s %v: TTFT %v E2E %v TPOT %v, fixed batch %v %v %v", sys, mode, m.TTFT, m.E2E, m.TPOT, want.TTFT, want.E2E, want.TPOT)
			}
		}
	}
}

// Little's law on the measured window, and completed throughput equal to
// the offered load below saturation.
func TestLittlesLawAndThroughput(t *testing.T) {
	exp := small(t, "dash")
	cfg := Config{Experiment: exp, Scheduler: PaperScheduler(), Warmup: 100, Measure: 600}
	sat := saturation(t, cfg)
	for _, load := range []float64{0.5, 0.8} {
		reqs, err := Poisson(load*sat, 700, Uniform(512, 1536), Uniform(16, 48), 7)
		if err != nil {
			t.Fatal(err)
		}
		s := simulate(t, cfg, reqs).Summarize()
		if d := math.Abs(s.MeanInSystem/s.LittleLambdaW - 1); d > 0.03 {
			t.Errorf("load %v: mean in system %.3f, lambda x W %.3f (%.1f%% apart)", load, s.MeanInSystem, s.LittleLambdaW, 100*d)
		}
		if d := math.Abs(s.ThroughputRPS/s.OfferedRPS - 1); d > 0.03 {
			t.Errorf("load %v: throughput %.4f req/s, offered %.4f", load, s.ThroughputRPS, s.OfferedRPS)
		}
	}
}

// Under overload with mixed lengths, the scheduler keeps to B_max and the
// budget, every request produces exactly its output, and KV is conserved.
func TestSchedulerInvariants(t *testing.T) {
	for _, mode := range []Mode{Mixed, Serial} {
		sc := Scheduler{MaxBatch: 6, TokenBudget: 700, Chunk: 256, Mode: mode}
		cfg := Config{Experiment: small(t, "relay-only"), Scheduler: sc, Series: true}
		reqs, err := Poisson(50, 150, Uniform(1, 1500), Uniform(1, 40), 3)
		if err != nil {
			t.Fatal(err)
		}
		run := simulate(t, cfg, reqs)
		if run.Completed != len(reqs) || len(run.Measured) != len(reqs) {
			t.Fatalf("%v: %d of %d completed", mode, run.Completed, len(reqs))
		}
		for _, it := range run.Iterations {
			if it.Active > sc.MaxBatch || it.DecodeRows+it.PrefillRows > sc.MaxBatch || it.Tokens > sc.TokenBudget {
				t.Fatalf("%v: iteration %+v exceeds B_max %d or budget %d", mode, it, sc.MaxBatch, sc.TokenBudget)
			}
		}
		if run.MaxActive != sc.MaxBatch || run.MaxTokens != sc.TokenBudget {
			t.Errorf("%v: overload never filled the batch (%d) or the budget (%d)", mode, run.MaxActive, run.MaxTokens)
		}
		gaps, kv := 0, int64(0)
		per := int64(cfg.Experiment.Plan().KV.BytesPerToken)
		for _, r := range reqs {
			gaps += r.Output - 1
			kv += int64(r.Prompt+r.Output-1) * per
		}
		if len(run.GapsMS) != gaps {
			t.Errorf("%v: %d tokens after the first, want %d", mode, len(run.GapsMS), gaps)
		}
		if int64(run.KVAllocated) != kv || run.KVFreed != run.KVAllocated {
			t.Errorf("%v: KV allocated %v, freed %v, want %v", mode, run.KVAllocated, run.KVFreed, kv)
		}
		for _, m := range run.Measured {
			if m.Queue < 0 || m.TTFT < m.Queue || m.E2E < m.TTFT {
				t.Fatalf("%v: request %+v out of order", mode, m)
			}
		}
	}
}

// Identical seeds give identical results, byte for byte.
func TestDeterministic(t *testing.T) {
	cfg := Config{Experiment: small(t, "dash"), Scheduler: PaperScheduler(), Warmup: 10, Measure: 100, Series: true}
	var out [2][]byte
	for i := range out {
		reqs, _ := Poisson(3, 110, Uniform(100, 2000), Fixed(20), 42)
		run := simulate(t, cfg, reqs)
		run.Wall = 0
		b, err := json.Marshal(struct {
			Run     *Run
			Summary Summary
		}{run, run.Summarize()})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	if string(out[0]) != string(out[1]) {
		t.Fatal("two runs with the same seed differ")
	}
	a, _ := Poisson(3, 50, Fixed(10), Fixed(10), 1)
	b, _ := Poisson(3, 50, Fixed(10), Fixed(10), 2)
	if a[49].Arrival == b[49].Arrival {
		t.Error("different seeds, same arrivals")
	}
}

// A request that can never fit is rejected with a reason and counted.
func TestNeverFittingRejected(t *testing.T) {
	cfg := Config{Experiment: small(t, "dash"), Scheduler: PaperScheduler()}
	reqs := []Request{{ID: 0, Prompt: 100, Output: 4}, {ID: 1, Arrival: 1, Prompt: 100, Output: MaxTokens}, {ID: 2, Arrival: 2, Prompt: 50, Output: 3}}
	run := simulate(t, cfg, reqs)
	if run.Completed != 2 || len(run.Rejections) != 1 || run.Rejections[0].ID != 1 || !strings.Contains(run.Rejections[0].Reason, "HBM") {
		t.Fatalf("completed %d, rejections %+v", run.Completed, run.Rejections)
	}
}

// Cancelling stops the run cleanly with what was measured so far.
func TestInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cfg := Config{Experiment: small(t, "dash"), Scheduler: PaperScheduler()}
	reqs, _ := Poisson(2, 200, Fixed(500), Fixed(30), 1)
	run, err := Simulate(ctx, cfg, reqs, func(p Progress) {
		if p.Done >= 20 {
			cancel()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !run.Interrupted || run.Completed < 20 || run.Completed == len(reqs) {
		t.Fatalf("interrupted %v after %d", run.Interrupted, run.Completed)
	}
}

// Mixed serves more than Serial when backlogged, and DASH more than
// RelayOnly.
func TestSaturationOrder(t *testing.T) {
	rate := map[string]float64{}
	for _, sys := range []string{"dash", "relay-only"} {
		for _, m := range []Mode{Mixed, Serial} {
			sc := PaperScheduler()
			sc.Mode = m
			rate[sys+m.String()] = saturation(t, Config{Experiment: small(t, sys), Scheduler: sc})
		}
	}
	if !(rate["dashmixed"] > rate["dashserial"] && rate["relay-onlymixed"] > rate["relay-onlyserial"] && rate["dashmixed"] > rate["relay-onlymixed"]) {
		t.Errorf("backlogged rates %v", rate)
	}
}

// The approximate pass model stays within 1% of the exact one on P90s.
func TestApproxError(t *testing.T) {
	exp := small(t, "relay-only")
	cfg := Config{Experiment: exp, Scheduler: PaperScheduler(), Warmup: 50, Measure: 300}
	reqs, _ := Poisson(0.75*saturation(t, cfg), 350, Fixed(1024), Fixed(64), 5)
	exact := simulate(t, cfg, reqs)
	cfg.Approx = Approx{KVQuantum: 128}
	approx := simulate(t, cfg, reqs)
	se, sa := exact.Summarize(), approx.Summarize()
	for _, c := range []struct {
		name string
		e, a float64
	}{{"TPOT P90", se.TPOTms.P90, sa.TPOTms.P90}, {"E2E P90", se.E2Es.P90, sa.E2Es.P90}, {"TTFT P90", se.TTFTs.P90, sa.TTFTs.P90}} {
		if d := math.Abs(c.a/c.e - 1); d > 0.01 {
			t.Errorf("%s: exact %v, approx %v (%.2f%%)", c.name, c.e, c.a, 100*d)
		}
	}
	if approx.Replays <= exact.Replays {
		t.Errorf("approx replays %d, exact %d", approx.Replays, exact.Replays)
	}
}

func TestTraceFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, err := ReadTrace(write("ok.csv", "prompt_tokens,arrival_s,output_tokens\n100,0,5\n200,0.5,7\n"))
	if err != nil || len(good) != 2 || good[1].Prompt != 200 || good[1].Output != 7 || good[1].Arrival.Seconds() != 0.5 {
		t.Fatalf("%+v %v", good, err)
	}
	j, err := ReadTrace(write("ok.jsonl", `{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 2}`+"\n\n"+`{"arrival_s": 1.5, "prompt_tokens": 3, "output_tokens": 1}`+"\n"))
	if err != nil || len(j) != 2 || j[1].Arrival.Seconds() != 1.5 {
		t.Fatalf("%+v %v", j, err)
	}
	var buf strings.Builder
	if err := WriteTraceCSV(&buf, good); err != nil {
		t.Fatal(err)
	}
	back, err := DecodeTraceCSV(strings.NewReader(buf.String()), "x.csv")
	if err != nil || len(back) != 2 || back[1] != good[1] {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	for _, c := range []struct{ name, body, want string }{
		{"unsorted.csv", "arrival_s,prompt_tokens,output_tokens\n1,10,2\n0.5,10,2\n", ":3: arrival_s = 0.5 is before"},
		{"neg.csv", "arrival_s,prompt_tokens,output_tokens\n0,-3,2\n", ":2: prompt_tokens = -3"},
		{"frac.csv", "arrival_s,prompt_tokens,output_tokens\n0,3.5,2\n", `:2: prompt_tokens = "3.5": not an integer`},
		{"missing.csv", "arrival_s,prompt_tokens\n0,3\n", `:1: missing column "output_tokens"`},
		{"nan.csv", "arrival_s,prompt_tokens,output_tokens\nNaN,3,2\n", ":2: arrival_s = NaN"},
		{"short.csv", "arrival_s,prompt_tokens,output_tokens\n0,3\n", ":2: wrong number of fields"},
		{"empty.csv", "arrival_s,prompt_tokens,output_tokens\n", "no requests"},
		{"key.jsonl", `{"arrival_s": 0, "prompt_tokens": 1}` + "\n", `:1: missing key "output_tokens"`},
		{"extra.jsonl", `{"arrival_s": 0, "prompt_tokens": 1, "output_tokens": 1, "x": 1}` + "\n", `:1: unknown key "x"`},
		{"bad.jsonl", "{\"arrival_s\": 0, \"prompt_tokens\": 1, \"output_tokens\": 1}\nnot json\n", ":2: not a JSON object"},
		{"trace.txt", "", "unknown trace format"},
	} {
		_, err := ReadTrace(write(c.name, c.body))
		var te *TraceError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), c.name+c.want) && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.want)
		}
	}
	big := filepath.Join(dir, "big.csv")
	f, _ := os.Create(big)
	f.Truncate(MaxTraceBytes + 1)
	f.Close()
	if _, err := ReadTrace(big); err == nil || !strings.Contains(err.Error(), "limit") {
		t.Errorf("huge file: %v", err)
	}
}

func TestValidation(t *testing.T) {
	bad := Scheduler{MaxBatch: 0, TokenBudget: 0, Chunk: -1, Mode: 9}
	err := bad.Validate()
	for _, want := range []string{"max_batch = 0", "token_budget = 0", "chunk_tokens = -1", "mode = Mode(9)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
	if _, err := Poisson(0, 10, Fixed(1), Fixed(1), 1); err == nil {
		t.Error("rate 0 accepted")
	}
	if _, err := Poisson(1, 10, Uniform(5, 2), Fixed(1), 1); err == nil {
		t.Error("max < min accepted")
	}
	if _, err := NewStudy().Build(); err == nil || !strings.Contains(err.Error(), "systems") {
		t.Errorf("empty study: %v", err)
	}
	if _, err := NewStudy().System(small(t, "dash")).Build(); err == nil || !strings.Contains(err.Error(), "baseline") {
		t.Errorf("study without its baseline: %v", err)
	}
	if _, err := ParseMode("both"); err == nil {
		t.Error("mode both accepted")
	}
}
