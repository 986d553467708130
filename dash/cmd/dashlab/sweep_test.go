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

// Issue 26's hostile sweep commands: bounded shards, the same file given
// as output and part, a merge of two sweeps' shards.
func TestSweepHostileCommands(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "s.yaml")
	os.WriteFile(spec, []byte("name: cli\nbase: {model: qwen3-235b-a22b, system: dash, workload: {batch: 2, prompt: 256, output: 8}}\naxes:\n  - {path: overrides.hbf.t_read, values: [3us, 6us]}\n"), 0o644)
	other := filepath.Join(dir, "o.yaml")
	os.WriteFile(other, []byte("name: cli\nbase: {model: qwen3-235b-a22b, system: relay-only, workload: {batch: 2, prompt: 256, output: 8}}\naxes:\n  - {path: overrides.hbf.t_read, values: [3us, 6us]}\n"), 0o644)
	if code, _, errs := dashlab("sweep", "--spec", spec, "--dry-run", "--shard", "0/100000000"); code != 2 || !strings.Contains(errs, "want an integer from 1 to 100000") {
		t.Errorf("--shard 0/100000000: exit %d: %s", code, errs)
	}
	a := filepath.Join(dir, "a.csv")
	b := filepath.Join(dir, "b.csv")
	if code, _, errs := dashlab("sweep", "--spec", spec, "--out", a, "--shard", "0/2", "--quiet"); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := dashlab("sweep", "--spec", other, "--out", b, "--shard", "1/2", "--quiet"); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := dashlab("sweep", "merge", filepath.Join(dir, "m.csv"), a, b); code != 1 || !strings.Contains(errs, "parts of different sweeps") {
		t.Errorf("merge of two sweeps' shards: exit %d: %s", code, errs)
	}
	if code, _, errs := dashlab("sweep", "merge", a, dir+"/./"+filepath.Base(a)); code != 2 || !strings.Contains(errs, "both the output and a part") {
		t.Errorf("out given as a part: exit %d: %s", code, errs)
	}
	notes := filepath.Join(dir, "notes.csv")
	os.WriteFile(notes, []byte("my notes\n"), 0o644)
	if code, _, errs := dashlab("sweep", "--spec", spec, "--out", notes, "--quiet"); code != 1 || !strings.Contains(errs, "not a sweep file") {
		t.Errorf("--out over a file of notes: exit %d: %s", code, errs)
	}
	if b, _ := os.ReadFile(notes); string(b) != "my notes\n" {
		t.Errorf("the notes became %q", b)
	}
}
