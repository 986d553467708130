package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// dashlab runs the CLI in-process and returns its exit status and output.
func dashlab(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestModelsJSON(t *testing.T) {
	code, out, errs := dashlab("models", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rows []map[string]any
	if err := unmarshalResult([]byte(out), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 10 {
		t.Fatalf("%d models", len(rows))
	}
	for _, r := range rows {
		for _, k := range []string{"id", "weights_gb", "expert_share_pct", "kv_bytes_per_token"} {
			if _, ok := r[k]; !ok {
				t.Errorf("model %v lacks %s", r["id"], k)
			}
		}
	}
	if rows[0]["id"] != "qwen3-235b-a22b" || rows[0]["kv_bytes_per_token_per_layer"].(float64) != 2048 {
		t.Errorf("first row %v", rows[0])
	}
}

func TestValidate(t *testing.T) {
	code, out, errs := dashlab("validate", "../../../reference/experiments/fig9a-qwen3-b4.yaml")
	if code != 0 || !strings.Contains(out, "ok") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("model: qwen3-235b-a22b\nworkload: {batch: 4, promt: 10, output: 2}\n"), 0o644)
	code, _, errs = dashlab("validate", bad)
	if code == 0 || !strings.Contains(errs, `unknown field "promt"`) {
		t.Errorf("exit %d: %s", code, errs)
	}
}

func TestRunRefusesWhatDoesNotFit(t *testing.T) {
	code, _, errs := dashlab("run", "--model", "llama4-maverick", "--system", "compact-dash", "--batch", "1", "--prompt", "128", "--output", "2")
	if code == 0 || !strings.Contains(errs, "does not fit") {
		t.Errorf("exit %d: %s", code, errs)
	}
}

func TestRunJSON(t *testing.T) {
	code, out, errs := dashlab("run", "--model", "qwen3-30b-a3b", "--system", "dash", "--batch", "2", "--prompt", "128", "--output", "4", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r map[string]any
	if err := unmarshalResult([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"ttft_ns", "tpot_ns", "e2e_ns", "throughput_tok_s", "decode_throughput_tok_s", "links", "routes"} {
		if _, ok := r[k]; !ok {
			t.Errorf("result lacks %s", k)
		}
	}
}

func TestReproduceJSON(t *testing.T) {
	code, out, errs := dashlab("reproduce", "--only", "table2.", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := unmarshalResult([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	rows := doc.Rows
	if len(rows) != 6 {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		for _, k := range []string{"id", "unit", "paper", "simulated", "tolerance", "pass"} {
			if _, ok := r[k]; !ok {
				t.Errorf("row lacks %s", k)
			}
		}
		if r["pass"] != true {
			t.Errorf("%v fails", r["id"])
		}
	}
}

func TestUsageErrors(t *testing.T) {
	if code, _, errs := dashlab("reproduce", "--only", "table2.", "--assumptions"); code == 0 || !strings.Contains(errs, "--out") {
		t.Errorf("--assumptions without --out: exit %d: %s", code, errs)
	}
	if code, _, _ := dashlab("nonsense"); code != 2 {
		t.Errorf("unknown command: exit %d", code)
	}
	if code, _, _ := dashlab("run", "--batch", "x"); code != 2 {
		t.Errorf("bad flag: exit %d", code)
	}
	if code, _, _ := dashlab("models", "--format", "xml"); code != 2 {
		t.Errorf("bad format: exit %d", code)
	}
	if code, out, _ := dashlab(); code != 0 || !strings.Contains(out, "reproduce") {
		t.Errorf("no args: exit %d", code)
	}
}
