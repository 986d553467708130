package gpu

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dashlab/dashlab/dash/unit"
)

// Spec describes one GPU's hardware: what the timing model needs to scale
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

// H200SXM is the GPU the shipped profile was measured on.
func H200SXM() Spec {
	return Spec{
		ID:           "h200-sxm",
		Name:         "NVIDIA H200 SXM",
		SMs:          132,
		BoostClock:   1980 * unit.MHz,
		PeakBF16:     989.4 * unit.TFLOPs,
		PeakFP8:      1978.9 * unit.TFLOPs,
		MemBandwidth: 4.8 * unit.TBps,
		MemCapacity:  141 * unit.GB,
		L2:           50 * unit.MiB,
		Measured:     true,
		Notes: "Measured: reference/profiles/h200-sxm (SM count 132 from its env.json). " +
			"Peaks, bandwidth and capacity from NVIDIA's H200 datasheet (dense = half the " +
			"quoted 2:4-sparse 1,979 BF16 / 3,958 FP8 TFLOP/s); the tensor peaks are quoted at " +
			"1830 MHz, below the 1980 MHz maximum boost. L2 as the H100 SXM5 (same GH100 die, " +
			"NVIDIA H100 whitepaper); the profiler sized its rotating inputs for 60 MB, the full " +
			"die's L2, which is conservative.",
	}
}

// H100PCIe is the GPU the paper profiled (§VI-A). It is not measured here:
// its timing model is derived from the H200 SXM profile.
func H100PCIe() Spec {
	return Spec{
		ID:           "h100-pcie",
		Name:         "NVIDIA H100 PCIe",
		SMs:          114,
		BoostClock:   1755 * unit.MHz,
		PeakBF16:     756 * unit.TFLOPs,
		PeakFP8:      1513 * unit.TFLOPs,
		MemBandwidth: 2.0 * unit.TBps,
		MemCapacity:  80 * unit.GB,
		L2:           50 * unit.MiB,
		Measured:     false,
		DerivedFrom:  "h200-sxm",
		Notes: "Derived, not measured: latencies are the H200 SXM profile scaled by SM count x " +
			"boost clock (compute) and HBM bandwidth (memory), launch floor kept. " +
			"Spec from the NVIDIA H100 Tensor Core GPU Architecture whitepaper: 114 SMs, " +
			"HBM2e 80 GB at 2.0 TB/s, 50 MB L2, BF16 1,513 / FP8 3,026 TFLOP/s with 2:4 " +
			"sparsity (dense 756 / 1,513); 1755 MHz maximum boost (the tensor peaks are quoted " +
			"at 1620 MHz; the SM x clock ratio to the H200 differs from the peak ratio by 0.2%).",
	}
}

// Specs returns the GPU catalogue, ordered by id.
func Specs() []Spec {
	s := []Spec{H100PCIe(), H200SXM()}
	slices.SortFunc(s, func(a, b Spec) int { return strings.Compare(a.ID, b.ID) })
	return s
}

// SpecByID returns the catalogue spec with the given id.
func SpecByID(id string) (Spec, error) {
	var ids []string
	for _, s := range Specs() {
		if s.ID == id {
			return s, nil
		}
		ids = append(ids, s.ID)
	}
	return Spec{}, fmt.Errorf("unknown GPU %q (known: %s)", id, strings.Join(ids, ", "))
}
