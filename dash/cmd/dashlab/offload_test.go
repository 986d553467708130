package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOffloadJSON(t *testing.T) {
	code, out, errs := dashlab("offload", "--batches", "1,64", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Evaluations []map[string]any `json:"evaluations"`
		CoreCurve   []map[string]any `json:"core_curve"`
	}
	if err := unmarshalResult([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Evaluations) != 2 || len(doc.CoreCurve) == 0 {
		t.Fatalf("got %d evaluations, %d curve points", len(doc.Evaluations), len(doc.CoreCurve))
	}
	for _, r := range doc.Evaluations {
		if r["hybrid_tpot_ms"].(float64) > r["cpu_compute_tpot_ms"].(float64) || r["hybrid_tpot_ms"].(float64) > r["weight_streaming_tpot_ms"].(float64) {
			t.Errorf("hybrid worse than a single path: %v", r)
		}
		if r["cores_modelled"] != true {
			t.Errorf("32 cores not marked modelled: %v", r)
		}
	}
}

func TestOffloadRefusesMalformedHostData(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../../../reference/profiles/h200-host-offload/h2d.csv")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "h2d.csv"), src, 0o644)
	os.WriteFile(filepath.Join(dir, "cpu_expert.csv"), []byte("threads,batch,active_experts_last,median_us,min_us,max_us,reps\n1,1,8,84166.7,82887.3,85137.7,7\n2,1,8,fast,1,2,7\n"), 0o644)
	code, _, errs := dashlab("offload", "--host-dir", dir)
	if code != 1 || !strings.Contains(errs, "cpu_expert.csv:3: column \"median_us\"") {
		t.Errorf("exit %d, stderr %q: want the file:line of the bad value", code, errs)
	}
	if code, _, _ := dashlab("offload", "--batches", "8"); code != 1 {
		t.Errorf("an unmeasured batch exited %d", code)
	}
	if code, _, _ := dashlab("offload", "--batches", "x"); code != 2 {
		t.Errorf("a bad --batches exited %d", code)
	}
}
