package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestRoutingListAndAnalyze(t *testing.T) {
	code, out, errs := dashlab("routing", "list")
	if code != 0 || !strings.Contains(out, "mixtral-8x22b-synthetic.parquet") {
		t.Fatalf("list: exit %d: %s %s", code, out, errs)
	}
	code, out, errs = dashlab("routing", "analyze", "mixtral-8x22b-synthetic.parquet", "--model", "mixtral-8x22b", "--format", "json")
	if code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, errs)
	}
	var a map[string]any
	if err := unmarshalResult([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	if n := len(a["layers"].([]any)); n != 56 {
		t.Errorf("%d layers, want Mixtral's 56", n)
	}
	// the shipped trace's temporal locality is Mixtral's (Table 5: first choice 0.236..0.284 at layer 15, random 0.125)
	if x := a["first_choice_repeat_mean"].(float64); x < 0.2 || x > 0.32 || a["first_choice_repeat_uniform"].(float64) != 0.125 {
		t.Errorf("first-choice repetition %v (uniform %v)", x, a["first_choice_repeat_uniform"])
	}
	code, _, errs = dashlab("routing", "analyze", "mixtral-8x22b-synthetic.parquet", "--model", "qwen3-235b-a22b")
	if code == 0 || !strings.Contains(errs, "mixtral-8x22b-synthetic.parquet") {
		t.Errorf("a trace of another model: exit %d: %s", code, errs)
	}
	code, _, errs = dashlab("routing", "analyze", "nosuch.jsonl")
	if code == 0 || !strings.Contains(errs, "nosuch.jsonl") {
		t.Errorf("missing file: exit %d: %s", code, errs)
	}
	if code, _, _ = dashlab("routing", "nosuch"); code != 2 {
		t.Errorf("unknown subcommand: exit %d", code)
	}
}

// A generated trace reads back, and its skew shows in analyze.
func TestRoutingGenerate(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"skew.parquet", "skew.jsonl"} {
		f := filepath.Join(dir, name)
		code, out, errs := dashlab("routing", "generate", "--model", "qwen3-30b-a3b", "--requests", "2", "--tokens", "64", "--zipf-s", "1.5", "--out", f)
		if code != 0 || !strings.Contains(out, "2 requests of 64 tokens") {
			t.Fatalf("generate %s: exit %d: %s %s", name, code, out, errs)
		}
		code, out, errs = dashlab("routing", "analyze", "--model", "qwen3-30b-a3b", "--format", "json", f)
		if code != 0 {
			t.Fatalf("analyze %s: exit %d: %s", name, code, errs)
		}
		var a map[string]any
		if err := unmarshalResult([]byte(out), &a); err != nil {
			t.Fatal(err)
		}
		if x := a["hot_expert_load_mean"].(float64); x < 3 { // Zipf 1.5 over 128 experts: far from balanced
			t.Errorf("%s: hottest expert's load %v under Zipf 1.5", name, x)
		}
	}
	code, _, errs := dashlab("routing", "generate", "--model", "qwen3-30b-a3b", "--out", filepath.Join(dir, "x.csv"))
	if code != 2 || !strings.Contains(errs, "x.csv") {
		t.Errorf("csv output: exit %d: %s", code, errs)
	}
	code, _, errs = dashlab("routing", "generate", "--model", "qwen3-30b-a3b", "--repeat", "2", "--out", filepath.Join(dir, "x.jsonl"))
	if code == 0 || !strings.Contains(errs, "repeat") {
		t.Errorf("repeat 2: exit %d: %s", code, errs)
	}
}

// The study runs its cases: the balanced reference, the trace with and
// without the cache; the cache holds experts and leaves less decode KV.
func TestRoutingStudy(t *testing.T) {
	code, out, errs := dashlab("routing", "study", "--systems", "dash", "--zipf-s", "none", "--batch", "4", "--prompt", "64", "--output", "8", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Cases []map[string]any `json:"cases"`
	}
	if err := unmarshalResult([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Cases) != 3 {
		t.Fatalf("%d cases, want balanced, trace, trace with cache", len(r.Cases))
	}
	ids := []string{"balanced", "trace", "trace_cache"}
	for i, c := range r.Cases {
		if c["case"] != ids[i] || c["tpot_ms"].(float64) <= 0 {
			t.Errorf("case %d: %v", i, c)
		}
	}
	if c := r.Cases[2]; c["cache_hit_pct"].(float64) <= 0 || c["kv_budget_gb"].(float64) >= r.Cases[1]["kv_budget_gb"].(float64) {
		t.Errorf("cached case %v against %v", c, r.Cases[1])
	}
	code, _, errs = dashlab("routing", "study", "--cache-budget", "500 GB", "--zipf-s", "none", "--systems", "dash")
	if code == 0 || !strings.Contains(errs, "expert_cache") {
		t.Errorf("a cache the HBM cannot hold: exit %d: %s", code, errs)
	}
}

// A shipped trace named by a knob (--set) resolves as in an experiment
// file, and serving prints what per-token routing did.
func TestRoutingShippedTraceBySetting(t *testing.T) {
	code, out, errs := dashlab("serve", "--model", "mixtral-8x22b", "--system", "dash", "--rate", "1", "--requests", "4", "--warmup", "0",
		"--prompt", "128", "--output", "8",
		"--set", "workload.routing.kind=trace", "--set", "workload.routing.file=mixtral-8x22b-synthetic.parquet")
	if code != 0 || !strings.Contains(out, "routing (trace, mixtral-8x22b-synthetic.parquet)") || strings.Contains(out, "decode step P50 0ns") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
}
