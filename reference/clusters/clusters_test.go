package clusters

import (
	"context"
	"math"
	"testing"
)

// Every catalogue entry decodes and validates; every shipped comparison
// builds its contenders.
func TestCatalogue(t *testing.T) {
	specs, err := All()
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) < 3 {
		t.Fatalf("%d clusters", len(specs))
	}
	for _, id := range ComparisonIDs() {
		cf, err := Comparison(id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cf.Config(); err != nil {
			t.Errorf("%s: %v", id, err)
		}
	}
}

// The external check's published numbers agree with each other (output
// throughput = generated tokens / duration), and Check simulates the same
// deployment and workload.
func TestPublishedCheck(t *testing.T) {
	cf, err := Comparison("qwen3-235b")
	if err != nil {
		t.Fatal(err)
	}
	if len(cf.Published) == 0 {
		t.Fatal("no published measurement")
	}
	p := cf.Published[0]
	if got := float64(p.GeneratedTokens) / p.DurationS; math.Abs(got/p.OutputTokS-1) > 1e-3 {
		t.Errorf("published: %d tokens in %v s is %.2f tok/s, not %.2f", p.GeneratedTokens, p.DurationS, got, p.OutputTokS)
	}
	p.Requests, p.Prompt, p.Output = 40, 1000, 20 // a small run of the same code
	r, err := Check(context.Background(), p, cf.Model)
	if err != nil {
		t.Fatal(err)
	}
	if !(r.OutputTokS > 0 && r.DurationS > 0 && r.MeanTPOTms > 0 && r.Ratio > 0) {
		t.Errorf("check: %+v", r)
	}
}
