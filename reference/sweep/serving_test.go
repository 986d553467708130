package sweep

import (
	"context"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash/serve"
)

// A serving sweep: the offered load as an axis, on two systems.
func TestServingKind(t *testing.T) {
	p := compileYAML(t, `
name: serving-small
kind: serving
base: {model: qwen3-235b-a22b, system: dash}
serving: {requests: 24, warmup: 4, measure: 16, prompt: {min: 512}, output: {min: 16}, max_batch: 8, token_budget: 2048}
axes:
  - {path: system, values: [dash, relay-only]}
  - {path: serving.load, values: [0.5, 2]}
`)
	tb, err := Collect(context.Background(), p, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.Err(); err != nil {
		t.Fatal(err)
	}
	r, err := tb.Find("system", "dash", "serving.load", "2")
	if err != nil {
		t.Fatal(err)
	}
	run := r.Result.(*serve.Run)
	ttft, _ := tb.Metric(r, "ttft_mean_s")
	if sum := run.Summarize(); sum.TTFTs.Mean != ttft || !(ttft > 0) || len(run.Measured) != 16 {
		t.Errorf("row %+v: TTFT %v vs run %v, %d measured", r, ttft, sum.TTFTs.Mean, len(run.Measured))
	}
	for _, bad := range []struct{ spec, want string }{
		{"axes: [{path: serving.load, values: [1, 0]}]", "serving.load = 0"},
		{"axes: [{path: serving.mode, values: [mixed, sideways]}]", "serving.mode"},
		{"serving: {max_batch: 64, token_budget: 32}\naxes: [{path: serving.load, values: [1]}]", "token_budget = 32"},
		{"axes: [{path: serving.lode, values: [1]}]", `unknown field "lode" in serving`},
	} {
		s, err := DecodeSpec(strings.NewReader("kind: serving\nbase: {model: qwen3-235b-a22b, system: dash}\n"+bad.spec), "s.yaml", ".")
		if err == nil {
			_, err = s.Compile()
		}
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v, want %q", bad.spec, err, bad.want)
		}
	}
}
