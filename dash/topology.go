package dash

import (
	"errors"
	"fmt"
)

// TopologySpec says how many HBM-HBF stack pairs the package has and which
// of the three kinds of UCIe path exist. Each pair i has at most one link of
// each kind: GPU-HBM_i, GPU-HBF_i (the Direct path) and HBM_i-HBF_i (the
// pair-local path that carries Relay reads and HBM-to-HBF writeback).
//
// Routes follow from the paths: HBM -> GPU needs GPU-HBM; Direct (HBF -> GPU)
// needs GPU-HBF; Relay (HBF -> HBM base die -> GPU) needs HBM-HBF and
// GPU-HBM. A topology with n pairs and all three paths has 3n links and 2n
// GPU-facing connections.
type TopologySpec struct {
	// Pairs is the number of HBM-HBF stack pairs (DASH: 2; Compact-DASH: 1).
	// Range 1..64 (MaxPairs).
	Pairs int `yaml:"pairs" knob:"pairs | HBM-HBF stack pairs | 1..64 | Fig. 8 | faster"`
	// GPUHBM is true when each HBM stack has a link to the GPU.
	GPUHBM bool `yaml:"gpu_hbm" knob:" | each HBM stack has a link to the GPU | | Fig. 8"`
	// GPUHBF is true when each HBF stack has a direct link to the GPU.
	GPUHBF bool `yaml:"gpu_hbf" knob:" | each HBF stack has a link to the GPU (Direct) | | Fig. 8"`
	// HBMHBF is true when each pair has an HBM-HBF link.
	HBMHBF bool `yaml:"hbm_hbf" knob:" | each pair has an HBM-HBF link (Relay, writeback) | | Fig. 8"`
}

// Direct reports whether the Direct route (HBF -> GPU) exists.
func (t TopologySpec) Direct() bool { return t.GPUHBF }

// Relay reports whether the Relay route (HBF -> HBM base die -> GPU) exists.
func (t TopologySpec) Relay() bool { return t.HBMHBF && t.GPUHBM }

// Links is the number of physical links in the package.
func (t TopologySpec) Links() int {
	n := 0
	for _, on := range []bool{t.GPUHBM, t.GPUHBF, t.HBMHBF} {
		if on {
			n += t.Pairs
		}
	}
	return n
}

// GPUFacingLinks is the number of links that end at the GPU.
func (t TopologySpec) GPUFacingLinks() int {
	n := 0
	if t.GPUHBM {
		n += t.Pairs
	}
	if t.GPUHBF {
		n += t.Pairs
	}
	return n
}

// Validate checks that the topology has stacks and that the GPU can reach
// both memories.
func (t TopologySpec) Validate() error {
	errs := t.limits()
	if !t.GPUHBM {
		errs = append(errs, errors.New("topology.gpu_hbm = false: the GPU cannot reach HBM, which holds activations and decode KV"))
	}
	if !t.Direct() && !t.Relay() {
		errs = append(errs, errors.New("topology: the GPU cannot reach HBF: enable gpu_hbf (Direct) or hbm_hbf with gpu_hbm (Relay)"))
	}
	return errors.Join(errs...)
}

// Name describes the topology as in the paper's Fig. 8 when it matches one.
func (t TopologySpec) Name() string {
	switch {
	case t.Pairs == 2 && t.GPUHBM && t.GPUHBF && t.HBMHBF:
		return "DASH"
	case t.Pairs == 1 && t.GPUHBM && t.GPUHBF && t.HBMHBF:
		return "Compact-DASH"
	case t.Pairs == 2 && t.GPUHBM && !t.GPUHBF && t.HBMHBF:
		return "RelayOnly"
	case t.Pairs == 2 && t.GPUHBM && t.GPUHBF && !t.HBMHBF:
		return "DirectOnly"
	}
	var paths []string
	for _, p := range []struct {
		on   bool
		name string
	}{{t.GPUHBM, "GPU-HBM"}, {t.GPUHBF, "GPU-HBF"}, {t.HBMHBF, "HBM-HBF"}} {
		if p.on {
			paths = append(paths, p.name)
		}
	}
	return fmt.Sprintf("%d-pair %v", t.Pairs, paths)
}
