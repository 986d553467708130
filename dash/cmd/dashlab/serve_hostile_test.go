package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash/serve"
)

// Issue 26's hostile serve flags and traces: each must end in a usage
// error (exit 2) or an error (exit 1) naming the flag or file, the line
// and the value, quickly.
func TestServeHostileInputs(t *testing.T) {
	dir := t.TempDir()
	trace := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const header = "arrival_s,prompt_tokens,output_tokens\n"
	small := []string{"serve", "--model", "qwen3-30b-a3b"}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		// hangs: arrivals beyond the simulated clock's range
		{[]string{"--rate", "1e-9"}, 2, "--rate 1e-09: want 2.3e-06 to 1e+06 requests/s"},
		{[]string{"--load", "1e-9", "--requests", "1000", "--warmup", "10", "--prompt", "64", "--output", "2"}, 2, "--load 1e-09 of relay-only's"},
		// nonsense: every arrival on one nanosecond
		{[]string{"--rate", "1e300"}, 2, "--rate 1e+300: want"},
		{[]string{"--trace", trace("equal.csv", header+"0,10,2\n0,10,2\n0,10,2\n"), "--warmup", "0"}, 1, "equal.csv: the 3 measured requests all arrive at 0 s: the offered rate is undefined"},
		{[]string{"--trace", trace("one.csv", header+"0,10,2\n"), "--warmup", "0"}, 2, "--warmup 0: the trace has 1 requests; at least two must be measured"},
		// silently clamped or served beyond the model
		{[]string{"--rate", "1", "--chunk", "100000"}, 2, "--chunk 100000: chunk_tokens = 100000: above token_budget (8192)"},
		{[]string{"--rate", "1", "--prompt", "100000"}, 2, "--prompt 100000 + --output 128: up to 100128 tokens, beyond model qwen3-30b-a3b's max_context 40960"},
		// panics and misleading errors in traces
		{[]string{"--trace", trace("quote.csv", header+"\"0,1,1\n"), "--warmup", "0"}, 1, "quote.csv:2: "},
		{[]string{"--trace", trace("dup.jsonl", `{"arrival_s":0,"prompt_tokens":10,"output_tokens":2,"output_tokens":3}`+"\n"), "--warmup", "0"}, 1, `dup.jsonl:1: key "output_tokens" appears twice`},
		{[]string{"--trace", trace("case.jsonl", `{"Arrival_S":0,"prompt_tokens":10,"output_tokens":2}`+"\n"), "--warmup", "0"}, 1, `case.jsonl:1: unknown key "Arrival_S"`},
		{[]string{"--trace", ""}, 2, "--trace: empty value"},
		{[]string{"--trace", dir + "/none.csv"}, 1, "none.csv: no such file"},
		{[]string{"--trace", dir}, 1, "unknown trace format"},
		// unbounded work
		{[]string{"--rate", "1", "--seeds", "1000", "--requests", "10000"}, 2, "requests x seeds <= 1048576"},
		{[]string{"--rate", "1", "--requests", "100000", "--output", "1000"}, 2, "more than the 67108864 a serve run may generate"},
		{[]string{"--rate", "1", "--warmup", "-1"}, 2, "--warmup -1"},
		{[]string{"--rate", "1", "--requests", "129"}, 2, "want warmup + 2 <= requests"},
		{[]string{"--load", "0"}, 2, "--load 0: want a positive fraction"},
		{[]string{"--load", "1e9"}, 2, "--load 1e+09"},
		{[]string{"--rate", "1", "--approx-kv-quantum", "-4"}, 2, "approx.kv_quantum_tokens = -4"},
		{[]string{"--rate", "1", "--max-batch", "65536", "--budget", "16777216"}, 2, "--budget 16777216: want at most 16777215"},
	} {
		code, _, errs := dashlab(append(small, tc.args...)...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("serve %s: exit %d, %q; want exit %d with %q", strings.Join(tc.args, " "), code, errs, tc.code, tc.want)
		}
	}
	// a BOM is skipped, and a request that can never fit is counted
	code, out, errs := dashlab(append(small, "--trace", trace("bom.csv", "\ufeff"+header+"0,10,2\n1,10,2\n2,16000000,2\n"), "--warmup", "0")...)
	if code != 0 || !strings.Contains(out, "rejected request 2: ") || !strings.Contains(out, "2/3") {
		t.Errorf("BOM trace with a request that never fits: exit %d, %s %s", code, out, errs)
	}
}

// Empty string flags stood for their defaults (--t-read "" ran the
// catalogue's t_R, --host-dir "" the shipped host data, --trace "" asked
// for a rate): each is refused naming the flag (--set took --t-read's place).
func TestEmptyStringFlags(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--model", "qwen3-235b-a22b", "--set", ""},
		{"run", "--model", "qwen3-235b-a22b", "--set", "  "},
		{"offload", "--host-dir", ""},
		{"serve", "--trace", ""},
		{"sweep", "--spec", ""},
		{"gpu", "predict", "--kind", "gemm", "--gpu", ""},
		{"lookahead", "check", "--model", ""},
		{"cost", "--system", ""},
	} {
		flag := ""
		for i, a := range args {
			if i+1 < len(args) && strings.TrimSpace(args[i+1]) == "" && strings.HasPrefix(a, "--") {
				flag = a
			}
		}
		code, _, errs := dashlab(args...)
		if code != 2 || !strings.Contains(errs, flag+": empty value") {
			t.Errorf("%q: exit %d, %q", args, code, errs)
		}
	}
}

// An interrupted --seeds 3 printed the seeds that never started as rows
// of zeros; they get no row and are named instead.
func TestServeRowsSkipRunsNotStarted(t *testing.T) {
	ran := &serve.Run{Requests: 10, Completed: 4, Iters: 9, Interrupted: true}
	idle := &serve.Run{Requests: 10, Interrupted: true}
	done := &serve.Run{Requests: 10, Completed: 10, Iters: 20}
	rows, notStarted, interrupted := serveRows([]*serve.Run{done, ran, idle}, false)
	if len(rows) != 2 || rows[0].Seed != 1 || rows[1].Seed != 2 || strings.Join(notStarted, ",") != "3" || !interrupted {
		t.Errorf("rows %+v, not started %v, interrupted %v", rows, notStarted, interrupted)
	}
	rows, _, interrupted = serveRows([]*serve.Run{done}, true)
	if len(rows) != 1 || rows[0].Seed != 0 || interrupted {
		t.Errorf("trace: rows %+v, interrupted %v", rows, interrupted)
	}
}
