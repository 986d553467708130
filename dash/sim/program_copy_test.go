package sim

import (
	"reflect"
	"testing"
)

// Copying a repeated layer's operators (buildShape) gives the program that
// building every layer gives, kernels, signatures and all, for prefill and
// decode programs of models with dense and MoE layers, MLA and chunked
// attention.
func TestCopiedLayersAreBuilt(t *testing.T) {
	for _, model := range []string{"qwen3-235b-a22b", "deepseek-v3", "llama4-maverick", "mixtral-8x22b"} {
		exp := build(t, model, "dash", 2, 700, 4)
		copied, built := newProgramBuilder(exp), newProgramBuilder(exp)
		built.noCopy = true
		built.seed = copied.seed
		for _, decode := range []bool{false, true} {
			a, b := copied.build(decode, 700+1, 1), built.build(decode, 700+1, 1)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s decode=%v: the copied program differs from the built one", model, decode)
			}
		}
	}
}
