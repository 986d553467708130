package reference

import (
	"fmt"
	"os"
	"sync"

	"github.com/dashlab/dashlab/dash/gpu"

	"github.com/dashlab/dashlab/internal/safeio"
)

// DefaultGPU is the paper's GPU (§VI-A): an NVIDIA H100 PCIe, whose timings
// dashlab derives from the measured H200 SXM profile.
const DefaultGPU = "h100-pcie"

// DefaultProfile is the shipped measured profile.
const DefaultProfile = "h200-sxm"

type timingKey struct{ profile, gpu string }

var (
	timingMu    sync.Mutex
	timingCache = map[timingKey]*gpu.Model{}
)

// Timing returns the GPU timing model for gpuID ("h100-pcie", "h200-sxm")
// built from the shipped H200 SXM profile. Models are cached and safe for
// concurrent use.
func Timing(gpuID string) (*gpu.Model, error) { return TimingFrom(DefaultProfile, gpuID) }

// MustTiming is Timing for notebooks: it panics on error.
func MustTiming(gpuID string) *gpu.Model {
	m, err := Timing(gpuID)
	if err != nil {
		panic(err)
	}
	return m
}

// TimingFrom returns the timing model for gpuID built from profile, which is
// a shipped profile name or a directory holding the same CSV files.
func TimingFrom(profile, gpuID string) (*gpu.Model, error) {
	key := timingKey{profile, gpuID}
	timingMu.Lock()
	defer timingMu.Unlock()
	if m, ok := timingCache[key]; ok {
		return m, nil
	}
	p, err := LoadProfile(profile)
	if err != nil {
		return nil, err
	}
	target := p.GPU()
	if gpuID != "" && gpuID != target.ID {
		if target, err = GPU(gpuID); err != nil {
			return nil, err
		}
	}
	m, err := gpu.NewModel(p, target)
	if err != nil {
		return nil, fmt.Errorf("timing model for %s from profile %s: %w", gpuID, profile, err)
	}
	timingCache[key] = m
	return m, nil
}

// LoadProfile loads a shipped profile by name, or a profile directory, with the GPU
// catalogue (reference/gpus) as the specs its GPU is matched against.
func LoadProfile(nameOrDir string) (*gpu.Profile, error) {
	var p *gpu.Profile
	var err error
	if fsys, ferr := Profile(nameOrDir); ferr == nil {
		p, err = gpu.LoadProfile(fsys)
	} else if st, serr := os.Stat(nameOrDir); serr == nil && st.IsDir() {
		p, err = gpu.LoadProfileDir(nameOrDir)
	} else {
		return nil, fmt.Errorf("profile %s: neither a shipped profile (%v) nor a directory", safeio.Quote(nameOrDir), ProfileNames())
	}
	if err != nil {
		return nil, err
	}
	if p.Catalogue, err = GPUs(); err != nil {
		return nil, err
	}
	return p, nil
}
