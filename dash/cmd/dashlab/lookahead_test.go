package main

import (
	"strings"
	"testing"
)

func TestLookaheadCheck(t *testing.T) {
	code, out, errs := dashlab("lookahead", "check", "--model", "qwen3-30b-a3b", "--trials", "64", "--attn-width", "64", "--seed", "2")
	if code != 0 || !strings.Contains(out, "100.000") || !strings.Contains(out, "early") {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errs)
	}
	code, out, errs = dashlab("lookahead", "check", "--model", "kimi-k2", "--trials", "16", "--attn-width", "32", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var reps []map[string]any
	if err := unmarshalResult([]byte(out), &reps); err != nil || len(reps) != 1 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if reps[0]["eligible"] != false || !strings.Contains(reps[0]["reason"].(string), "bias") {
		t.Errorf("kimi-k2 must fall back to late selection with a reason: %v", reps[0])
	}
	for _, args := range [][]string{
		{"lookahead"}, {"lookahead", "check"}, {"lookahead", "check", "--model", "x", "--trials", "0"},
		{"lookahead", "check", "--model", "qwen3-30b-a3b", "extra"},
	} {
		if code, _, _ := dashlab(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	if code, _, _ := dashlab("lookahead", "check", "--model", "no-such-model", "--trials", "1"); code != 1 {
		t.Errorf("unknown model: exit %d, want 1", code)
	}
}
