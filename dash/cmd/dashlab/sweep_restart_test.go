package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dashlab/dashlab/reference/sweep"
)

// TestMain lets the tests run this binary as dashlab itself
// (DASHLAB_TEST_AS_MAIN=1): a real process to signal, its sweeps paced by
// DASHLAB_TEST_ROW_PAUSE (a pause after each row written), so that a
// signal lands mid-run however fast the points run.
func TestMain(m *testing.M) {
	if os.Getenv("DASHLAB_TEST_AS_MAIN") == "1" {
		if d, err := time.ParseDuration(os.Getenv("DASHLAB_TEST_ROW_PAUSE")); err == nil {
			afterRow = func() { time.Sleep(d) }
		}
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	// The result cache (reproduce) of the tests' runs is their own.
	cache, err := os.MkdirTemp("", "dashlab-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}

const restartSpec = `name: restart
base: {model: qwen3-30b-a3b, system: dash, workload: {batch: 1, prompt: 64, output: 16}}
axes:
  - {path: system, values: [dash, relay-only]}
  - {path: overrides.hbf.t_read, range: {from: 1us, to: 100us, step: 1us}}
`

// TestSweepRestartAfterSignals is the sweep-restart guarantee: a sweep
// stopped by SIGKILL, SIGINT or SIGTERM once rows are on disk, then run
// again, leaves the file an uninterrupted run writes, byte for byte, in
// CSV, JSONL and Parquet.
func TestSweepRestartAfterSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 12 sweeps of 200 points in processes of their own")
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "restart.yaml")
	if err := os.WriteFile(spec, []byte(restartSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	// paced runs: 200 rows of at least 10 ms each, synced every half second
	dashlabProc := func(out string, paced bool) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "sweep", "--spec", spec, "--out", out, "--workers", "1", "--quiet")
		cmd.Env = append(os.Environ(), "DASHLAB_TEST_AS_MAIN=1")
		if paced {
			cmd.Env = append(cmd.Env, "DASHLAB_TEST_ROW_PAUSE=10ms")
		}
		return cmd
	}
	lines := func(path string) int {
		b, _ := os.ReadFile(path)
		return bytes.Count(b, []byte("\n"))
	}
	for _, ext := range []string{".csv", ".jsonl", ".parquet"} {
		whole := filepath.Join(dir, "whole"+ext)
		if out, err := dashlabProc(whole, false).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v: %s", ext, err, out)
		}
		want, _ := os.ReadFile(whole)
		for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGINT, syscall.SIGTERM} {
			out := filepath.Join(dir, sig.String()+ext)
			journal := out
			if ext == ".parquet" {
				journal = sweep.JournalPath(out)
			}
			cmd := dashlabProc(out, true)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			deadline := time.Now().Add(60 * time.Second)
			for lines(journal) < 3 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			err := <-exited
			written := lines(journal)
			if err == nil {
				t.Fatalf("%s %v: the sweep finished before the signal (%d lines): the check proves nothing", ext, sig, written)
			}
			if sig != syscall.SIGKILL && !strings.Contains(stderr.String(), "interrupted") {
				t.Errorf("%s %v: stderr %q", ext, sig, stderr.String())
			}
			if res, err := dashlabProc(out, false).CombinedOutput(); err != nil {
				t.Fatalf("%s %v: resume: %v: %s", ext, sig, err, res)
			}
			got, _ := os.ReadFile(out)
			if !bytes.Equal(got, want) {
				t.Errorf("%s %v (stopped after %d lines): the resumed file differs from the uninterrupted run", ext, sig, written)
			}
			for _, left := range []string{sweep.JournalPath(out), filepath.Join(dir, "."+filepath.Base(out)+".lock")} {
				if _, err := os.Stat(left); err == nil {
					t.Errorf("%s %v: %s left behind", ext, sig, left)
				}
			}
		}
	}
}
