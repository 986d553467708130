package gpu

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/dashlab/dashlab/dash/unit"
)

// Spec describes one GPU's hardware (the catalogue of named GPUs is data: YAML files of
// reference/gpus, resolved by reference.GPU): what the timing model needs to scale
// measured operator latencies from one GPU to another, plus capacity figures
// the engine uses. Peak rates are dense (no 2:4 sparsity).
type Spec struct {
	// ID is the catalogue id, lower-case with dashes ("h200-sxm").
	ID string `yaml:"id"`
	// Name is the display name ("NVIDIA H200 SXM").
	Name string `yaml:"name"`
	// SMs counts the streaming multiprocessors.
	SMs int `yaml:"sms"`
	// BoostClock is the maximum SM boost clock.
	BoostClock unit.Hertz `yaml:"boost_clock"`
	// PeakBF16 is the dense BF16 tensor-core peak.
	PeakBF16 unit.FLOPsPerSecond `yaml:"peak_bf16"`
	// PeakFP8 is the dense FP8 tensor-core peak; 0 when the GPU has no FP8
	// tensor cores.
	PeakFP8 unit.FLOPsPerSecond `yaml:"peak_fp8"`
	// MemBandwidth is the datasheet HBM bandwidth.
	MemBandwidth unit.BytesPerSecond `yaml:"mem_bandwidth"`
	// MemCapacity is the HBM capacity.
	MemCapacity unit.Bytes `yaml:"mem_capacity"`
	// L2 is the L2 cache size.
	L2 unit.Bytes `yaml:"l2"`
	// Measured is true when a shipped profile was measured on this GPU.
	Measured bool `yaml:"measured"`
	// DerivedFrom names the spec whose measured profile the timing model
	// scales when this GPU was not measured.
	DerivedFrom string `yaml:"derived_from,omitempty"`
	// Notes carries sources and caveats.
	Notes string `yaml:"notes,omitempty"`
}

// Validate reports every missing or impossible field, naming it and the bad
// value.
func (s Spec) Validate() error {
	var errs []error
	bad := func(field string, v any, why string) {
		errs = append(errs, fmt.Errorf("gpu spec %q: %s = %v: %s", s.ID, field, v, why))
	}
	if s.ID == "" {
		errs = append(errs, errors.New("gpu spec: id is empty"))
	} else if s.ID != strings.ToLower(s.ID) || strings.ContainsAny(s.ID, " \t_/") {
		bad("id", s.ID, "use lower-case words joined by dashes")
	}
	if s.Name == "" {
		bad("name", `""`, "must not be empty")
	}
	if s.SMs <= 0 {
		bad("sms", s.SMs, "must be positive")
	}
	positive := func(field string, v float64, printed any) {
		if !(v > 0) || math.IsInf(v, 0) {
			bad(field, printed, "must be positive and finite")
		}
	}
	positive("boost_clock", float64(s.BoostClock), s.BoostClock)
	positive("peak_bf16", float64(s.PeakBF16), s.PeakBF16)
	positive("mem_bandwidth", float64(s.MemBandwidth), s.MemBandwidth)
	if s.PeakFP8 < 0 || math.IsNaN(float64(s.PeakFP8)) || math.IsInf(float64(s.PeakFP8), 0) {
		bad("peak_fp8", s.PeakFP8, "must be 0 (no FP8 tensor cores) or positive")
	}
	if s.MemCapacity <= 0 {
		bad("mem_capacity", s.MemCapacity, "must be positive")
	}
	if s.L2 < 0 {
		bad("l2", s.L2, "must not be negative")
	}
	if s.Measured && s.DerivedFrom != "" {
		bad("derived_from", s.DerivedFrom, "a measured GPU is not derived from another")
	}
	return errors.Join(errs...)
}

// computeScale is SMs x boost clock, the quantity the derivation of one GPU
// from another scales compute time by.
func (s Spec) computeScale() float64 { return float64(s.SMs) * float64(s.BoostClock) }
