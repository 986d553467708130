package serve

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/reference"
)

// FuzzTrace reads arbitrary CSV and JSON Lines traces and serves every one
// that reads (up to a budget of tokens, so that each input runs in well
// under a second) on Qwen3-30B-A3B with DASH: every input ends in a
// *TraceError or a run, never a panic or a hang, and a run is sane
// (every request completed or rejected, KV freed as allocated, latencies
// ordered). Seeds: good traces and issue 26's hostile ones.
func FuzzTrace(f *testing.F) {
	const h = "arrival_s,prompt_tokens,output_tokens\n"
	for _, s := range []string{
		h + "0,300,4\n0.1,200,3\n", "prompt_tokens,arrival_s,output_tokens\n100,0,5\n200,0.5,7\n",
		h + "\"0,1,1\n", h + "0,1,1\n\"1,1,1\n", "\ufeff" + h + "0,10,2\n1,10,2\n", h + "0,10,2\n0,10,2\n0,10,2\n",
		h + "0,16000000,2\n", h + "0,100000,2\n1,10,2\n", h + "1e9,1,1\n", h + "NaN,1,1\n", h + "0,1e3,1\n",
	} {
		f.Add(false, s)
	}
	for _, s := range []string{
		`{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 2}` + "\n\n" + `{"arrival_s": 1.5, "prompt_tokens": 3, "output_tokens": 1}` + "\n",
		`{"arrival_s":0,"prompt_tokens":10,"output_tokens":2,"output_tokens":3}`, `{"ARRIVAL_S":0,"prompt_tokens":10,"output_tokens":2}`,
		"\ufeff" + `{"arrival_s": 0, "prompt_tokens": 10, "output_tokens": 2}`, `{"arrival_s": null}`, `[1,2,3]`,
	} {
		f.Add(true, s)
	}
	exp, err := reference.Experiment("qwen3-30b-a3b", "dash").Batch(1).Prompt(2048).Output(1).Build()
	if err != nil {
		f.Fatal(err)
	}
	sched := Scheduler{MaxBatch: 8, TokenBudget: 2048, Chunk: 512, Mode: Mixed}
	f.Fuzz(func(t *testing.T, jsonl bool, s string) {
		var reqs []Request
		var err error
		if jsonl {
			reqs, err = DecodeTraceJSONL(strings.NewReader(s), "fuzz.jsonl")
		} else {
			reqs, err = DecodeTraceCSV(strings.NewReader(s), "fuzz.csv")
		}
		if err != nil {
			var te *TraceError
			if !errors.As(err, &te) {
				t.Fatalf("not a *TraceError: %v", err)
			}
			if len(err.Error()) > 400 {
				t.Fatalf("an error of %d bytes", len(err.Error()))
			}
			return
		}
		tokens := 0
		for i, r := range reqs {
			if r.ID != i || r.Prompt < 1 || r.Prompt > MaxTokens || r.Output < 1 || r.Output > MaxTokens || r.Arrival < 0 || i > 0 && r.Arrival < reqs[i-1].Arrival {
				t.Fatalf("request %d read as %+v", i, r)
			}
			tokens += r.Prompt + r.Output
		}
		if len(reqs) > 16 || tokens > 40_000 {
			return // the budget: served traces stay small
		}
		run, err := Simulate(context.Background(), Config{Experiment: exp, Scheduler: sched}, reqs, nil)
		if err != nil {
			t.Fatalf("simulate %+v: %v", reqs, err)
		}
		if run.Completed+len(run.Rejections) != len(reqs) || run.KVAllocated != run.KVFreed {
			t.Fatalf("completed %d + rejected %d of %d; KV allocated %v, freed %v", run.Completed, len(run.Rejections), len(reqs), run.KVAllocated, run.KVFreed)
		}
		for _, m := range run.Measured {
			if m.TTFT <= 0 || m.E2E < m.TTFT || m.TPOT < 0 || m.Queue < 0 {
				t.Fatalf("request %+v", m)
			}
		}
		sum := run.Summarize()
		if sum.OfferedRPS < 0 || sum.ThroughputRPS < 0 || sum.TTFTs.Mean < 0 {
			t.Fatalf("summary %+v", sum)
		}
	})
}
