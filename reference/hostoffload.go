package reference

import (
	"sync"

	"github.com/dashlab/dashlab/dash/offload"
)

// HostOffloadProfile is the shipped host-offload profile (§VI-C).
const HostOffloadProfile = "h200-host-offload"

// HostOffloadShape is the expert layer the host profile measured
// (profiles/README.md): Qwen3-235B-A22B's, hidden 4096, expert width 1536,
// 128 experts, top-8, BF16.
var HostOffloadShape = offload.LayerShape{Hidden: 4096, Inter: 1536, Experts: 128, TopK: 8, WeightBytes: 2}

var hostOffload = sync.OnceValues(func() (*offload.HostProfile, error) {
	fsys, err := Profile(HostOffloadProfile)
	if err != nil {
		return nil, err
	}
	return offload.LoadHostProfile(fsys, HostOffloadProfile, HostOffloadShape)
})

// HostOffload returns the shipped host-offload profile: the CPU expert
// layer by core count and batch, and host-to-GPU copy times. Shared; do
// not modify.
func HostOffload() (*offload.HostProfile, error) { return hostOffload() }
