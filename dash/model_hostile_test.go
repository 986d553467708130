package dash_test

import (
	"os"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
)

// myMoE returns notebooks/data/my-moe.yaml with old replaced by new.
func myMoE(t *testing.T, old, new string) dash.ModelSpec {
	t.Helper()
	data, err := os.ReadFile("../notebooks/data/my-moe.yaml")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	if old != "" {
		if !strings.Contains(text, old) {
			t.Fatalf("my-moe.yaml has no %q", old)
		}
		text = strings.Replace(text, old, new, 1)
	}
	var m dash.ModelSpec
	if err := dash.DecodeStrictBytes([]byte(text), "my-moe.yaml", &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Silently accepted (issue 26): norm.eps: .nan and router.scaling_factor:
// .inf validated "ok"; real-valued fields are finite and in range.
func TestModelRealFieldsFinite(t *testing.T) {
	if err := myMoE(t, "", "").Validate(); err != nil {
		t.Fatalf("my-moe.yaml: %v", err)
	}
	for _, c := range []struct{ old, new, want string }{
		{"eps: 1.0e-6", "eps: .nan", "norm.eps = NaN: outside the plausible range 0 (absent) .. 0.1"},
		{"eps: 1.0e-6", "eps: -1e-6", "norm.eps = -1e-06"},
		{"eps: 1.0e-6", "eps: 5", "norm.eps = 5"},
		{"scaling_factor: 1.0", "scaling_factor: .inf", "router.scaling_factor = +Inf: outside the plausible range 0 (absent: 1) .. 1000"},
		{"scaling_factor: 1.0", "scaling_factor: -2", "router.scaling_factor = -2"},
	} {
		err := myMoE(t, c.old, c.new).Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.new, err, c.want)
		}
	}
}

// Misleading errors (issue 26): a 3 MB id was echoed in full; ids and names
// are bounded and every echoed string is cut short.
func TestModelTextBounded(t *testing.T) {
	long := strings.Repeat("x", 900_000)
	for _, c := range []struct{ old, new, want string }{
		{"id: my-moe", "id: " + long, "id = \"xxxx"},
		{"id: my-moe", "id: \"my moe\"", `id = "my moe": want at most 256 letters`},
		{"name: My-MoE-64x1.5B (made up)", "name: " + long, "name = \"xxx"},
		{"activation: swiglu", "activation: " + long, "ffn.activation = \"xxx"},
	} {
		err := myMoE(t, c.old, c.new).Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 1000 {
			t.Errorf("%.40s: %.300v (%d bytes), want %q", c.new, err, len(err.Error()), c.want)
		}
	}
}
