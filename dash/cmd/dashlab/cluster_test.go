package main

import (
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

func TestClusterSweep(t *testing.T) {
	f := filepath.Join(t.TempDir(), "s.yaml")
	os.WriteFile(f, []byte(`name: t
base: {cluster: hgx-h200, memory: dash, model: qwen3-30b-a3b, workload: {batch: 8, prompt: 256, output: 4}}
axes:
  - {path: parallel.expert, values: [1, 8, 3]}
  - {path: memory, values: [dash, compact-dash]}
`), 0o644)
	code, out, errs := dashlab("cluster", "sweep", "--spec", f, "--format", "csv", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 7 || !strings.Contains(lines[0], "axis_values") || !strings.Contains(out, "parallel.expert=8;memory=compact-dash") ||
		!strings.Contains(out, "parallel.expert = 3") {
		t.Errorf("sweep CSV:\n%s", out)
	}
}
