package dash

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLayoutIsValidatedAtDecode(t *testing.T) {
	var c CheckpointSpec
	if err := DecodeStrictBytes([]byte("layout: fp8-mixed\n"), "ok.yaml", &c); err != nil || c.Layout != LayoutFP8Mixed {
		t.Fatalf("fp8-mixed: %v, %q", err, c.Layout)
	}
	err := DecodeStrictBytes([]byte("layout: fp16\n"), "bad.yaml", &c)
	if err == nil || !strings.Contains(err.Error(), `"fp16"`) || !strings.Contains(err.Error(), "bf16") {
		t.Errorf("unknown layout: %v", err)
	}
}

func TestLayoutIsValidatedAtJSONDecode(t *testing.T) {
	var c struct{ Layout Layout }
	if err := json.Unmarshal([]byte(`{"Layout": "int8-mixed"}`), &c); err != nil || c.Layout != LayoutINT8Mixed {
		t.Fatalf("int8-mixed: %v, %q", err, c.Layout)
	}
	if err := json.Unmarshal([]byte(`{"Layout": "fp16"}`), &c); err == nil || !strings.Contains(err.Error(), `"fp16"`) {
		t.Errorf("unknown layout: %v", err)
	}
}
