package sweep

import (
	"strings"
	"testing"
)

// smallSpec is a quick sweep: Qwen3 B=4 1K/128 on two systems and three
// t_R values, plus a point that does not fit (Llama 4 on compact-dash).
const smallSpec = `
name: small
base:
  model: qwen3-235b-a22b
  system: dash
  workload: {batch: 4, prompt: 1024, output: 128}
axes:
  - {path: model, values: [qwen3-235b-a22b, llama4-maverick]}
  - {path: system, values: [dash, compact-dash]}
  - {path: overrides.hbf.t_read, range: {from: 3us, to: 12us, factor: 2}}
`

func compileYAML(t testing.TB, text string) *Plan {
	t.Helper()
	s, err := DecodeSpec(strings.NewReader(text), "test.yaml", ".")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return p
}
