package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// runGPUCmd runs "dashlab gpu args..." with stdin and returns the exit
// status, stdout and stderr.
func runGPUCmd(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	rc := run(append([]string{"gpu"}, args...), strings.NewReader(stdin), &out, &errb)
	return rc, out.String(), errb.String()
}

func TestGPUPredict(t *testing.T) {
	// Measured rows come back as measured; other shapes are predicted.
	in := "model,op,M,K,N,median_us,p10_us,p90_us,reps\n" +
		"qwen3-235b-a22b,qkv_proj,1,4096,9216,24.174,24.064,24.284,30\n" +
		"glm,expert,300,3584,18944,,,,\n"
	rc, out, errs := runGPUCmd(t, in, "predict", "--profile", "h200-sxm", "--kind", "gemm")
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errs)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || recs[0][9] != "predicted_us" || recs[1][9] != "24.174" || recs[2][0] != "glm" {
		t.Fatalf("output:\n%s", out)
	}
	if v, err := strconv.ParseFloat(recs[2][9], 64); err != nil || v <= 0 {
		t.Errorf("predicted_us %q", recs[2][9])
	}
	if errs != "" {
		t.Errorf("stderr: %s", errs)
	}
}

func TestGPUPredictDerivedAndDetail(t *testing.T) {
	in := "model,phase,batch,q_len,kv_len,heads,kv_heads,head_dim\n" +
		"m,decode,8,1,3000,32,8,128\n" +
		"m,prefill,1,2048,2048,64,4,128\n" +
		"m,decode_absorbed,4,1,5000,128,1,576\n"
	rc, out, errs := runGPUCmd(t, in, "predict", "--kind", "attn", "--gpu", "h100-pcie", "--detail")
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errs)
	}
	if !strings.Contains(errs, "h100-pcie is derived, not measured") {
		t.Errorf("stderr does not mark the derivation: %q", errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasSuffix(lines[0], ",predicted_us,compute_us,overhead_us,extrapolated") {
		t.Fatalf("output:\n%s", out)
	}
}

func TestGPUPredictFromDirectory(t *testing.T) {
	dir := t.TempDir()
	src := "../../../reference/profiles/h200-sxm"
	for _, f := range []string{"gemm.csv", "env.json"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rc, out, errs := runGPUCmd(t, "M,K,N\n1,4096,9216\n", "predict", "--profile", dir, "--kind", "gemm")
	if rc != 0 || out != "M,K,N,predicted_us\n1,4096,9216,24.174\n" {
		t.Fatalf("rc %d, out %q, err %q", rc, out, errs)
	}
}

func TestGPUPredictBadInput(t *testing.T) {
	for _, c := range []struct {
		name, stdin string
		args        []string
		rc          int
		want        string
	}{
		{"unknown kind", "M,K,N\n1,2,3\n", []string{"predict", "--kind", "conv"}, 2, `--kind "conv"`},
		{"no kind", "M,K,N\n1,2,3\n", []string{"predict"}, 2, "--kind"},
		{"missing column", "M,K\n1,2\n", []string{"predict", "--kind", "gemm"}, 1, `stdin:1: missing column "N"`},
		{"non-numeric", "M,K,N\n1,2,x\n", []string{"predict", "--kind", "gemm"}, 1, `stdin:2: column "N": "x" is not a finite number`},
		{"ragged", "M,K,N\n1,2\n", []string{"predict", "--kind", "gemm"}, 1, "stdin:2: wrong number of fields"},
		{"empty", "", []string{"predict", "--kind", "grouped"}, 1, "stdin:1: empty file"},
		{"unknown gpu", "M,K,N\n1,2,3\n", []string{"predict", "--kind", "gemm", "--gpu", "b200"}, 2, `unknown GPU "b200"`},
		{"unknown profile", "M,K,N\n1,2,3\n", []string{"predict", "--kind", "gemm", "--profile", "nope"}, 1, `profile "nope"`},
		{"unknown subcommand", "", []string{"bench"}, 2, `unknown gpu subcommand "bench"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			rc, out, errs := runGPUCmd(t, c.stdin, c.args...)
			if rc != c.rc || !strings.Contains(errs, c.want) {
				t.Errorf("rc %d (want %d), stderr %q (want %q), stdout %q", rc, c.rc, errs, c.want, out)
			}
		})
	}
}

func TestGPUValidate(t *testing.T) {
	if testing.Short() {
		t.Skip("leave-one-out refits every kind once per point")
	}
	rc, out, errs := runGPUCmd(t, "", "validate", "--profile", "h200-sxm")
	if rc != 0 {
		t.Fatalf("rc %d: %s", rc, errs)
	}
	for _, want := range []string{"leave-one-out", "held out", "kind     points  median  p90", "gemm     696", "repeated shapes", "gemm  202", "size jitter", "kind     sizes  median  p90     lag-1"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
