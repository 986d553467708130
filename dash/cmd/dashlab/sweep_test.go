package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSweepCommand(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	os.WriteFile(spec, []byte(`name: cli
base: {model: qwen3-235b-a22b, system: dash, workload: {batch: 2, prompt: 256, output: 8}}
axes:
  - {path: system, values: [dash, relay-only]}
  - {path: overrides.hbf.t_read, values: [3us, 6us]}
`), 0o644)
	whole := filepath.Join(dir, "whole.csv")
	code, out, errs := dashlab("sweep", "--spec", spec, "--out", whole, "--quiet")
	if code != 0 || !strings.Contains(out, "4 run") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	var parts []string
	for _, i := range []string{"0", "1"} {
		part := filepath.Join(dir, "part"+i+".jsonl")
		t.Setenv("JOB_COMPLETION_INDEX", i)
		if code, out, errs := dashlab("sweep", "--spec", spec, "--out", part, "--shard", "auto/2"); code != 0 {
			t.Fatalf("shard %s: exit %d: %s %s", i, code, out, errs)
		}
		parts = append(parts, part)
	}
	merged := filepath.Join(dir, "merged.csv")
	if code, out, errs := dashlab(append([]string{"sweep", "merge", merged}, parts...)...); code != 0 {
		t.Fatalf("merge: exit %d: %s %s", code, out, errs)
	}
	a, _ := os.ReadFile(whole)
	b, _ := os.ReadFile(merged)
	if string(a) != string(b) {
		t.Errorf("merged shards differ from the unsharded run")
	}
	if code, _, errs := dashlab("sweep", "merge", merged, parts[0]); code != 1 || !strings.Contains(errs, "missing") {
		t.Errorf("merge of one shard of two: exit %d: %s", code, errs)
	}
	if code, _, errs := dashlab("sweep", "--spec", spec, "--out", filepath.Join(dir, "x.txt")); code != 1 || !strings.Contains(errs, ".csv, .jsonl or .parquet") {
		t.Errorf("unknown format: exit %d: %s", code, errs)
	}
	if code, _, errs := dashlab("sweep", "--spec", spec, "--out", whole, "--shard", "3/2"); code != 2 || !strings.Contains(errs, "--shard") {
		t.Errorf("bad shard: exit %d: %s", code, errs)
	}
	if code, out, _ := dashlab("sweep", "--spec", spec, "--dry-run"); code != 0 || !strings.Contains(out, "4 points") {
		t.Errorf("dry run: exit %d: %s", code, out)
	}
}
