package dash

import "github.com/dashlab/dashlab/dash/gpu"

// Timing predicts GPU operator latencies. *gpu.Model implements it: the
// measured H200 SXM profile, or the H100 PCIe derived from it. The engine
// runs an operator for Overhead + max(Compute, delivery), where delivery is
// the time the memory system takes to stream the operator's weights and KV
// cache over the DASH links (see package gpu's documentation).
type Timing interface {
	// Predict returns the operator's timing on GPU().
	Predict(op gpu.Op) gpu.Prediction
	// GPU is the GPU whose timings Predict returns.
	GPU() gpu.Spec
}
