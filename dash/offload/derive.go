package offload

import (
	"fmt"
	"math"
	"slices"

	"github.com/dashlab/dashlab/dash/unit"
)

// HostSpec is a host CPU's published specification (or, for a measured host,
// what is known of it): what a host's expert-layer times are derived from.
type HostSpec struct {
	// ID names the host ("xeon-8452y"); Name is its product name.
	ID   string `yaml:"id"`
	Name string `yaml:"name"`
	// Cores is the physical cores the host offers one process (a socket, or
	// a VM's vCPUs).
	Cores int `yaml:"cores"`
	// BaseClock is the core clock the expert layer runs at (the base clock:
	// a sustained all-core AMX load runs near it); MaxTurbo is the single-
	// core maximum, for the record.
	BaseClock unit.Hertz `yaml:"base_clock"`
	MaxTurbo  unit.Hertz `yaml:"max_turbo,omitempty"`
	// AMXFLOPsPerCycle is the BF16 matrix throughput of one core per cycle
	// (Intel AMX: one TMUL per core, 1024 BF16 FLOP a cycle).
	AMXFLOPsPerCycle int `yaml:"amx_bf16_flops_per_cycle"`
	// MemoryChannels and MemoryMTs are the DRAM channels and their transfer
	// rate in MT/s (DDR5-4800: 4800); zero when not known (a VM's share of
	// its host's memory is not published).
	MemoryChannels int `yaml:"memory_channels,omitempty"`
	MemoryMTs      int `yaml:"memory_mts,omitempty"`
	// Measured is true when a shipped profile (Profile) was measured on this
	// host; DerivedFrom names the measured host a derived one is scaled from.
	Measured    bool   `yaml:"measured"`
	Profile     string `yaml:"profile,omitempty"`
	DerivedFrom string `yaml:"derived_from,omitempty"`
	// Source cites the specification; Notes says how the host is used.
	Source string `yaml:"source"`
	Notes  string `yaml:"notes,omitempty"`
}

// MemoryBandwidth is the peak DRAM rate: channels x MT/s x 8 bytes (a 64-bit
// channel), 0 when not known.
func (s HostSpec) MemoryBandwidth() unit.BytesPerSecond {
	return unit.BytesPerSecond(float64(s.MemoryChannels) * float64(s.MemoryMTs) * 1e6 * 8)
}

// AMXPeak is the BF16 matrix peak of c cores at the base clock.
func (s HostSpec) AMXPeak(cores int) unit.FLOPsPerSecond {
	return unit.FLOPsPerSecond(float64(cores) * float64(s.AMXFLOPsPerCycle) * float64(s.BaseClock))
}

// Validate names every bad field.
func (s HostSpec) Validate() error {
	var bad []string
	add := func(field string, v any, why string) { bad = append(bad, fmt.Sprintf("%s = %v: %s", field, v, why)) }
	switch {
	case s.ID == "":
		add("id", `""`, "empty")
	case s.Name == "":
		add("name", `""`, "empty")
	}
	if s.Cores < 1 || s.Cores > 4096 {
		add("cores", s.Cores, "want 1 to 4096")
	}
	if !(s.BaseClock >= 100*unit.MHz && s.BaseClock <= 10*unit.GHz) {
		add("base_clock", s.BaseClock, "want 100 MHz to 10 GHz")
	}
	if s.MaxTurbo != 0 && !(s.MaxTurbo >= s.BaseClock && s.MaxTurbo <= 10*unit.GHz) {
		add("max_turbo", s.MaxTurbo, "want the base clock to 10 GHz (or leave it out)")
	}
	if s.AMXFLOPsPerCycle < 1 || s.AMXFLOPsPerCycle > 1<<20 {
		add("amx_bf16_flops_per_cycle", s.AMXFLOPsPerCycle, "want 1 to 1048576")
	}
	if s.MemoryChannels < 0 || s.MemoryChannels > 64 || s.MemoryMTs < 0 || s.MemoryMTs > 100000 || (s.MemoryChannels == 0) != (s.MemoryMTs == 0) {
		add("memory_channels/memory_mts", fmt.Sprintf("%d/%d", s.MemoryChannels, s.MemoryMTs), "want both (1..64 channels, 1..100000 MT/s) or neither")
	}
	switch {
	case s.Measured && s.DerivedFrom != "":
		add("derived_from", s.DerivedFrom, "a measured host is not derived from another")
	case s.Measured && s.Profile == "":
		add("profile", `""`, "a measured host names the profile measured on it")
	case !s.Measured && s.DerivedFrom == "":
		add("derived_from", `""`, "a host that was not measured is derived from one that was")
	case !s.Measured && s.MemoryBandwidth() == 0:
		add("memory_channels", 0, "a derived host needs its DRAM rate")
	}
	if s.Source == "" {
		add("source", `""`, "cite the specification")
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("host %s: %v", s.ID, bad)
}

// Derivation is how a derived host's expert-layer times follow from a measured
// host's, per measured batch: the measured core-scaling fit T(c) = S + P/c split
// into a per-core term, scaled by the clock ratio (the cores' AMX throughput per
// cycle being equal), and a term that does not shrink with cores, which the
// measurements show to be proportional to the weights read (the host's shared
// memory rate), replaced by the weights over the derived host's peak DRAM rate.
type Derivation struct {
	// From and To are the measured and the derived host.
	From, To HostSpec
	// ClockScale is From.BaseClock / To.BaseClock, the per-core term's factor.
	ClockScale float64
	// Memory is To's peak DRAM rate.
	Memory unit.BytesPerSecond
	// Batches has one line per measured batch.
	Batches []DerivedBatch
}

// DerivedBatch is the derivation of one batch.
type DerivedBatch struct {
	// Batch is the token batch; ActiveExperts the experts it touches (as
	// measured) and Weights their bytes.
	Batch, ActiveExperts int
	Weights              unit.Bytes
	// Fit is the measured host's core-scaling fit.
	Fit AmdahlFit
	// MeasuredShared is the rate the fit's serial term implies, Weights /
	// Serial (the measured host's shared memory rate, as the layer sees it).
	MeasuredShared unit.BytesPerSecond
	// PerCore is Parallel x ClockScale (the derived host's one-core time);
	// Shared is Weights / Memory; AMX the layer's BF16 matrix work at the
	// derived host's one-core AMX peak (a floor, never binding for these
	// layers: the per-core term is far above it).
	PerCore, Shared, AMX unit.Duration
}

// At is the derived layer time at c cores: max(PerCore / c, AMX / c) + Shared.
func (d DerivedBatch) At(cores int) unit.Duration {
	c := unit.Duration(cores)
	return max(d.PerCore/c, d.AMX/c) + d.Shared
}

// DerivedThreads are the core caps a derived profile tabulates (the measured
// caps doubled up to the derived host's cores, and its cores).
func derivedThreads(measured []int, cores int) []int {
	var out []int
	for _, t := range measured {
		if t <= cores {
			out = append(out, t)
		}
	}
	last := 1
	if len(out) > 0 {
		last = out[len(out)-1]
	}
	for t := 2 * last; t < cores; t *= 2 {
		out = append(out, t)
	}
	if !slices.Contains(out, cores) {
		out = append(out, cores)
	}
	return out
}

// DeriveHost derives host to's expert-layer profile from host from's
// measurements m (see Derivation): every measured batch at the measured core
// caps that to has, then doubling up to to's cores; the host-to-GPU copies are
// kept as measured (the same PCIe Gen5 x16 class of link to the GPU). The
// result's Derived records the scaling.
func DeriveHost(m *HostProfile, from, to HostSpec) (*HostProfile, error) {
	if err := from.Validate(); err != nil {
		return nil, err
	}
	if err := to.Validate(); err != nil {
		return nil, err
	}
	if !from.Measured || to.Measured || to.DerivedFrom != from.ID {
		return nil, fmt.Errorf("derive host %s: needs a measured host it names as derived_from (got %s, measured %v)", to.ID, from.ID, from.Measured)
	}
	d := &Derivation{From: from, To: to, ClockScale: float64(from.BaseClock) / float64(to.BaseClock), Memory: to.MemoryBandwidth()}
	out := &HostProfile{Name: to.ID, Shape: m.Shape, Copies: slices.Clone(m.Copies), Derived: d}
	threads := derivedThreads(m.Threads(), to.Cores)
	for _, b := range m.Batches() {
		fit, err := m.Fit(b)
		if err != nil {
			return nil, err
		}
		pts := m.threadsOf(b)
		active := pts[len(pts)-1].ActiveExperts
		w := unit.Bytes(active) * m.Shape.ExpertBytes()
		flops := 2 * float64(b) * float64(m.Shape.TopK) * float64(3*m.Shape.Hidden*m.Shape.Inter)
		db := DerivedBatch{Batch: b, ActiveExperts: active, Weights: w, Fit: fit,
			PerCore: unit.Duration(math.Round(float64(fit.Parallel) * d.ClockScale)),
			Shared:  unit.TransferTime(w, d.Memory),
			AMX:     unit.Duration(math.Ceil(flops / float64(to.AMXPeak(1)) * 1e9))}
		if fit.Serial > 0 {
			db.MeasuredShared = unit.BytesPerSecond(float64(w) / fit.Serial.Seconds())
		}
		d.Batches = append(d.Batches, db)
		for _, t := range threads {
			lat := db.At(t)
			out.CPU = append(out.CPU, CPUPoint{Threads: t, Batch: b, ActiveExperts: active, Median: lat, Min: lat, Max: lat})
		}
	}
	return out, out.check()
}
