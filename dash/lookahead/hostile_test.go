package lookahead

import (
	"errors"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/reference"
)

// Unbounded memory or time (issue 26): --attn-width 1e9 tried to map about
// 16 TB and --trials had no bound; both are refused before any weight is
// drawn, and a width whose one draw passes MaxWeightBytes too.
func TestCheckBounds(t *testing.T) {
	m, err := reference.Model("qwen3-235b-a22b")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Tokens: 10, AttnWidth: 1_000_000_000}, "attention width = 1000000000: must be from 0 (the model's) to 1048576"},
		{Options{Tokens: 10, AttnWidth: 1 << 20}, "more than the 768 MiB a check may hold"},
		{Options{Tokens: 1_000_000_001}, "tokens = 1000000001: must be from 1 to 1000000"},
		{Options{Tokens: 10, TokensPerDraw: 1 << 30}, "tokens per draw = 1073741824"},
		{Options{Tokens: 10, MaxFlips: -1}, "max flips = -1"},
	} {
		_, err := Check(m, c.o)
		if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	// every catalogue model at its real width fits
	for _, id := range reference.ModelIDs() {
		m, _ := reference.Model(id)
		if b := WeightBytes(m, m.OutputProjectionWidth()); b > MaxWeightBytes {
			t.Errorf("%s: %.3g bytes at its real width", id, b)
		}
	}
}
