package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClusterRun(t *testing.T) {
	code, out, errs := dashlab("cluster", "run", "--model", "qwen3-30b-a3b", "--memory", "dash", "--ep", "8", "--batch", "16",
		"--prompt", "256", "--output", "4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r map[string]any
	if err := unmarshalResult([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r["gpus"].(float64) != 8 || r["tpot_ms"].(float64) <= 0 {
		t.Errorf("result %v", r)
	}
	code, out, errs = dashlab("cluster", "run", "--model", "qwen3-30b-a3b", "--memory", "dash", "--tp", "3")
	if code == 0 || !strings.Contains(errs, "parallel.tensor = 3") {
		t.Errorf("tp 3: exit %d: %s %s", code, out, errs)
	}
}

func TestClusterFileAndServe(t *testing.T) {
	f := filepath.Join(t.TempDir(), "e.yaml")
	os.WriteFile(f, []byte("cluster: hgx-h200\nmemory: dash\nmodel: qwen3-30b-a3b\nparallel: {data: 2}\n"), 0o644)
	code, out, errs := dashlab("cluster", "serve", "--file", f, "--rate", "2", "--requests", "24", "--warmup", "4",
		"--prompt-tokens", "512", "--output-tokens", "8", "--max-batch", "8", "--token-budget", "1024")
	if code != 0 || !strings.Contains(out, "2 GPUs") || !strings.Contains(out, "TPOT") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	os.WriteFile(f, []byte("cluster: hgx-h200\nmodel: qwen3-30b-a3b\nparalel: {data: 2}\n"), 0o644)
	code, _, errs = dashlab("cluster", "run", "--file", f)
	if code == 0 || !strings.Contains(errs, `unknown field "paralel"`) {
		t.Errorf("misspelled key: exit %d: %s", code, errs)
	}
	code, out, errs = dashlab("cluster", "serve", "--model", "qwen3-30b-a3b", "--memory", "dash", "--disagg", "--prefill-memory", "h200",
		"--rate", "1", "--requests", "12", "--warmup", "2", "--prompt-tokens", "512", "--output-tokens", "8", "--max-batch", "8", "--token-budget", "1024")
	if code != 0 || !strings.Contains(out, "KV moved") {
		t.Fatalf("disagg: exit %d: %s %s", code, out, errs)
	}
}

// Cluster experiments sweep through dashlab sweep (kind cluster): axes over
// the layout, the interconnect and every GPU's memory system, as override
// paths; shards merge into the whole sweep; a bad layout is refused at
// compile, naming the axis and value.
func TestClusterSweep(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "s.yaml")
	spec := `name: t
kind: cluster
cluster: {id: hgx-h200}
base: {model: qwen3-30b-a3b, system: dash, workload: {batch: 8, prompt: 256, output: 4}, overrides: {hbf.reading: paper}}
axes:
  - {path: overrides.parallel.expert, values: [1, 8]}
  - {path: overrides.interconnect.scale_up.rate, values: [450 GB/s, 900 GB/s]}
  - {path: system, values: [dash, h200]}
`
	os.WriteFile(f, []byte(spec), 0o644)
	whole := filepath.Join(dir, "whole.csv")
	if code, out, errs := dashlab("sweep", "--spec", f, "--out", whole, "--quiet"); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	data, _ := os.ReadFile(whole)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 9 || !strings.Contains(lines[0], "overrides.parallel.expert") || !strings.Contains(lines[0], "decode_throughput_per_gpu_tok_per_s") ||
		strings.Count(string(data), ",ok,") != 8 {
		t.Errorf("sweep CSV:\n%s", data)
	}
	var parts []string
	for i := range 2 {
		part := filepath.Join(dir, fmt.Sprintf("part-%d.csv", i))
		if code, _, errs := dashlab("sweep", "--spec", f, "--out", part, "--shard", fmt.Sprintf("%d/2", i), "--quiet"); code != 0 {
			t.Fatalf("shard %d: %s", i, errs)
		}
		parts = append(parts, part)
	}
	merged := filepath.Join(dir, "merged.csv")
	if code, _, errs := dashlab(append([]string{"sweep", "merge", merged}, parts...)...); code != 0 {
		t.Fatalf("merge: %s", errs)
	}
	os.WriteFile(f, []byte(strings.Replace(spec, "values: [1, 8]", "values: [1, 3]", 1)), 0o644)
	if code, _, errs := dashlab("sweep", "--spec", f, "--out", filepath.Join(dir, "bad.csv")); code == 0 ||
		!strings.Contains(errs, `overrides.parallel.expert value "3"`) || !strings.Contains(errs, "parallel.expert = 3") {
		t.Errorf("EP 3: exit %d: %s", code, errs)
	}
	os.WriteFile(f, []byte(strings.Replace(spec, "kind: cluster\ncluster: {id: hgx-h200}\n", "", 1)), 0o644)
	if code, _, errs := dashlab("sweep", "--spec", f, "--out", filepath.Join(dir, "fixed.csv")); code == 0 ||
		!strings.Contains(errs, "a knob of the cluster layout") {
		t.Errorf("a cluster knob in a fixed sweep: exit %d: %s", code, errs)
	}
	if code, _, errs := dashlab("cluster", "sweep", "--spec", f); code != 2 || !strings.Contains(errs, "dashlab sweep") {
		t.Errorf("cluster sweep: exit %d: %s", code, errs)
	}
}

// --set sets the cluster's knobs and every GPU's, and the run names them as
// what-ifs.
func TestClusterSet(t *testing.T) {
	code, out, errs := dashlab("cluster", "run", "--model", "qwen3-30b-a3b", "--memory", "dash", "--batch", "16", "--prompt", "256", "--output", "4",
		"--set", "parallel.expert=8", "--set", "interconnect.scale_up.rate=900GB/s", "--set", "hbf.t_read=5us")
	if code != 0 || !strings.Contains(out, "TP1 EP8") || !strings.Contains(out, "what-if: scale-up 450 -> 900 GB/s, t_R 3 -> 5 µs") {
		t.Errorf("exit %d: %s %s", code, out, errs)
	}
	if code, _, errs := dashlab("cluster", "run", "--model", "qwen3-30b-a3b", "--set", "parallel.expert=0"); code == 0 || !strings.Contains(errs, "parallel.expert = 0: outside the plausible range 1 .. 1024") {
		t.Errorf("EP 0: exit %d: %s", code, errs)
	}
}

// A parallel degree given as 0, by flag or in a file, is refused: a file
// that leaves a degree out gets 1, but a 0 someone wrote must not become 1
// unseen.
func TestClusterZeroDegree(t *testing.T) {
	for _, flag := range []string{"--tp", "--ep", "--pp", "--dp"} {
		code, out, errs := dashlab("cluster", "run", "--model", "qwen3-30b-a3b", flag, "0")
		if code == 0 || !strings.Contains(errs, "= 0: outside the plausible range 1 .. 1024 ("+flag+" 0: leave the flag out for 1)") {
			t.Errorf("%s 0: exit %d: %s %s", flag, code, out, errs)
		}
	}
	f := filepath.Join(t.TempDir(), "e.yaml")
	os.WriteFile(f, []byte("cluster: hgx-h200\nmodel: qwen3-30b-a3b\nparallel: {tensor: 1, expert: 0}\n"), 0o644)
	if code, _, errs := dashlab("cluster", "run", "--file", f); code == 0 || !strings.Contains(errs, "parallel.expert = 0: outside the plausible range 1 .. 1024 (leave it out for 1)") {
		t.Errorf("expert: 0 in a file: exit %d: %s", code, errs)
	}
}
