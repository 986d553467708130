package gpu_test

import (
	"fmt"
	"log"

	"github.com/dashlab/dashlab/dash/gpu"
	"github.com/dashlab/dashlab/reference"
)

// Predict one expert GEMV of Qwen3-235B-A22B on the H200 the profile was
// measured on, split it for the engine, and derive the paper's H100 PCIe.
func Example() {
	p, err := reference.LoadProfile(reference.DefaultProfile) // with the GPU catalogue
	if err != nil {
		log.Fatal(err)
	}
	h200, err := gpu.NewModel(p, reference.MustGPU("h200-sxm"))
	if err != nil {
		log.Fatal(err)
	}
	op := gpu.Op{Kind: gpu.GEMM, M: 1, K: 4096, N: 9216} // QKV projection of one token
	pr := h200.Predict(op)
	fmt.Println("H200:", pr.Latency, "measured:", !pr.Extrapolated, "weights:", pr.WeightBytes)
	fmt.Println("split:", pr.Overhead, "+ max(", pr.Compute, ", bytes /", h200.MemBandwidth(), ")")

	fp8 := op
	fp8.WeightDType = gpu.FP8
	fmt.Println("FP8 weights:", h200.Predict(fp8).Latency)

	h100, err := gpu.NewModel(p, reference.MustGPU("h100-pcie"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("H100 PCIe (derived):", h100.Derived(), h100.Predict(op).Latency)
	// Output:
	// H200: 24.174µs measured: true weights: 72 MiB
	// split: 7.617µs + max( 111ns , bytes / 4.5614 TB/s )
	// FP8 weights: 15.898µs
	// H100 PCIe (derived): true 47.354µs
}
