package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dashlabIn runs the CLI in-process with stdin.
func dashlabIn(stdin string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// Issue 26's hostile flags and files of lookahead, cost, gpu and offload:
// each ends in a usage error (2) or an error (1) naming the flag or the
// file and line, with the value.
func TestHostileAnalysisInputs(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "prof")
	os.MkdirAll(prof, 0o755)
	os.WriteFile(filepath.Join(prof, "gemm.csv"), []byte("model,op,M,K,N,median_us\nm,o,1,1000000000000,1,24\n"), 0o644)
	tiny := filepath.Join(dir, "tiny")
	os.MkdirAll(tiny, 0o755)
	os.WriteFile(filepath.Join(tiny, "gemm.csv"), []byte("model,op,M,K,N,median_us\nm,o,1,4096,1,1e-300\n"), 0o644)
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		want  string
	}{
		{"", []string{"lookahead", "check", "--model", "qwen3-235b-a22b", "--attn-width", "1000000000"}, 2, "--attn-width 1000000000: want 0 (the model's) to 1048576"},
		{"", []string{"lookahead", "check", "--model", "all", "--attn-width", "1000000"}, 2, "more than the 768 MiB a check may"},
		{"", []string{"lookahead", "check", "--model", "qwen3-235b-a22b", "--trials", "1000000000"}, 2, "--trials 1000000000: want 1 to 1000000"},
		{"", []string{"lookahead", "check", "--model", "qwen3-235b-a22b", "--tokens-per-draw", "0"}, 2, "--tokens-per-draw 0"},
		{"M,K,N\n1000000000,1000000000,1000000000\n", []string{"gpu", "predict", "--kind", "gemm"}, 1, `stdin:2: column "M": 1e+09: want a whole number from 1 to 16777216`},
		{"phase,batch,q_len,kv_len,heads,kv_heads,head_dim\nprefill,16777216,16777216,16777216,16777216,1,16777216\n", []string{"gpu", "predict", "--kind", "attn"}, 1, "stdin:2: \"prefill,16777216"},
		{"", []string{"gpu", "validate", "--profile", prof}, 1, `gemm.csv:2: column "K": 1e+12: want a whole number from 1 to 16777216`},
		{"", []string{"gpu", "validate", "--profile", tiny}, 1, `gemm.csv:2: column "median_us": latency 1e-300 us: outside the plausible range`},
		{"", []string{"cost", "--r", strings.Repeat("1,", 1000) + "1"}, 2, "--r: 1001 values; at most 1000"},
		{"", []string{"offload", "--batches", strings.Repeat("1,", 1000) + "1"}, 2, "--batches: 1001 values; at most 1000"},
	} {
		code, _, errs := dashlabIn(tc.stdin, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%.120s: exit %d, %.300q; want exit %d with %q", strings.Join(tc.args, " "), code, errs, tc.code, tc.want)
		}
	}
}

// Exit 0 with nonsense (issue 26): cost --delta 100 printed a breakeven r
// of -28.67; where no r > 0 breaks even the breakeven is none (null).
func TestCostNoBreakeven(t *testing.T) {
	code, out, errs := dashlab("cost", "--delta", "0,100", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc costJSON
	if err := unmarshalResult([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Breakeven) != 2 || doc.Breakeven[0].BreakevenR == nil || doc.Breakeven[1].BreakevenR != nil || !strings.Contains(doc.Breakeven[1].Note, "no r > 0 breaks even") {
		t.Errorf("breakeven %+v", doc.Breakeven)
	}
	code, out, _ = dashlab("cost", "--delta", "0,100")
	if code != 0 || !strings.Contains(out, "none") || strings.Contains(out, "-28.67") {
		t.Errorf("table: %s", out)
	}
	code, out, _ = dashlab("cost", "--delta", "100", "--format", "csv", "--table", "breakeven")
	if code != 0 || !strings.Contains(out, "100,,no r > 0") {
		t.Errorf("csv: %s", out)
	}
}
