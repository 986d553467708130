package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeJSONAndCSV(t *testing.T) {
	args := []string{"serve", "--model", "qwen3-30b-a3b", "--rate", "4", "--requests", "60", "--warmup", "10", "--prompt", "256..1024", "--output", "16"}
	code, out, errs := dashlab(append(args, "--format", "json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var env struct {
		Result struct {
			RateRPS float64 `json:"rate_rps"`
			Runs    []struct {
				Completed int `json:"completed"`
				Summary   struct {
					E2E struct {
						P90 float64 `json:"p90"`
					} `json:"e2e_s"`
				} `json:"summary"`
			} `json:"runs"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &env); err != nil {
		t.Fatal(err)
	}
	o := env.Result
	if o.RateRPS != 4 || len(o.Runs) != 1 || o.Runs[0].Completed != 60 || !(o.Runs[0].Summary.E2E.P90 > 0) {
		t.Fatalf("%s", out)
	}
	code, again, _ := dashlab(append(args, "--format", "json")...)
	if code != 0 || again != out {
		t.Error("two identical runs print different JSON")
	}
	code, out, errs = dashlab(append(args, "--format", "csv", "--seeds", "2")...)
	if code != 0 || len(strings.Split(strings.TrimSpace(out), "\n")) != 3 || !strings.HasPrefix(out, "model,system,mode,seed") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
}

func TestServeTrace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.csv")
	os.WriteFile(p, []byte("arrival_s,prompt_tokens,output_tokens\n0,300,4\n0.1,200,3\n"), 0o644)
	code, out, errs := dashlab("serve", "--model", "qwen3-30b-a3b", "--trace", p, "--warmup", "0")
	if code != 0 || !strings.Contains(out, "2/2") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	os.WriteFile(p, []byte("arrival_s,prompt_tokens,output_tokens\n0,300,4\n0.1,-2,3\n"), 0o644)
	code, _, errs = dashlab("serve", "--model", "qwen3-30b-a3b", "--trace", p, "--warmup", "0")
	if code != 1 || !strings.Contains(errs, "t.csv:3: prompt_tokens = -2") {
		t.Fatalf("exit %d: %s", code, errs)
	}
}

func TestServeUsage(t *testing.T) {
	for _, args := range [][]string{
		{"serve"}, // no rate, load or trace
		{"serve", "--rate", "1", "--load", "0.5"}, // two sources
		{"serve", "--rate", "1", "--mode", "both"},
		{"serve", "--rate", "1", "--format", "xml"},
		{"serve", "--rate", "1", "--prompt", "x"},
		{"serve", "--rate", "1", "--max-batch", "0"},
		{"serve", "--trace", "x.csv", "--seeds", "2"},
		{"serve", "--rate", "1", "extra"},
	} {
		if code, _, _ := dashlab(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
