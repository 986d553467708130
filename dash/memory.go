package dash

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/dashlab/dashlab/dash/unit"
	"gopkg.in/yaml.v3"
)

// SRAMSpec is a banked base-die SRAM organised as transfer regions that
// alternate between being filled and being drained (double buffering).
type SRAMSpec struct {
	// Regions is the number of transfer regions (the paper: 2). Range 1..1024.
	Regions int `yaml:"regions" knob:" | transfer regions, filled and drained in turn | 1..1024 | §IV-B | faster"`
	// RegionSize is the usable data capacity of one region (HBF: 8 MiB, one
	// stack-local page wave; HBM relay: 4 MiB, half a page wave). Range: at
	// least one HBF page wave (HBF SRAM) or one HBF page (relay SRAM), at
	// most 4 GiB.
	RegionSize unit.Bytes `yaml:"region_size" knob:" | data capacity of one region | 512 B..4 GiB | §IV-B"`
	// ECCOverheadPct is the check-bit storage as a percentage of data storage
	// (the paper: 12.5, eight check bits per 64 data bits). Range 0..100.
	ECCOverheadPct float64 `yaml:"ecc_overhead_pct" knob:" | ECC check-bit storage, % of the data | 0..100 | §IV-B"`
}

// Usable is the data capacity of all regions.
func (s SRAMSpec) Usable() unit.Bytes { return unit.Bytes(s.Regions) * s.RegionSize }

// Physical is the usable capacity plus ECC storage (HBF: 18 MiB; HBM: 9 MiB).
func (s SRAMSpec) Physical() unit.Bytes {
	return s.Usable() + unit.Bytes(math.Round(float64(s.Usable())*s.ECCOverheadPct/100))
}

// HBMSpec is one HBM stack with its base die.
type HBMSpec struct {
	// Capacity is the stack's DRAM capacity (HBM3E: 24 GB). Range 1 MB..1 PB.
	Capacity unit.Bytes `yaml:"capacity" knob:"HBM capacity | DRAM capacity of one HBM stack | 1 MB..1000 TB | §VI-A, [25]"`
	// ArrayBandwidth is the rate at which the stack's DRAM can be read or
	// written (Micron HBM3E product brief: more than 1.2 TB/s per stack).
	// Relay traffic bypasses the array and does not use it. Range 1 GB/s..1 PB/s.
	ArrayBandwidth unit.BytesPerSecond `yaml:"array_bandwidth" knob:"HBM array rate | DRAM read/write rate of one HBM stack (relay traffic bypasses it) | 1 GB/s..1000 TB/s | [25] Micron HBM3E brief | faster"`
	// RelaySRAM is the base-die SRAM that stages Relay-path chunks from HBF
	// (2 x 4 MiB + ECC = 9 MiB physical).
	RelaySRAM SRAMSpec `yaml:"relay_sram"`
}

// Validate reports every bad field of the HBM spec, each outside its range
// (see limits.go) as a *RangeError.
func (h HBMSpec) Validate() error { return errors.Join(h.limits()...) }

// HBFSpec is one High-Bandwidth Flash stack: NAND core dies on a logic base
// die with a controller, a scheduler and banked transfer SRAM.
type HBFSpec struct {
	// Capacity is the stack's NAND capacity (the paper, after SanDisk: 512 GB).
	// Range 1 MB..1 PB.
	Capacity unit.Bytes `yaml:"capacity" knob:"HBF capacity | NAND capacity of one HBF stack | 1 MB..1000 TB | §II-B, §VI-A, [37]"`
	// Dies is the number of NAND core dies in the stack (16). Range 1..1024.
	Dies int `yaml:"dies" knob:"dies | NAND core dies per stack | 1..1024 | §VI-A"`
	// PlanesPerDie is the number of planes per die (32). Range 1..1024.
	PlanesPerDie int `yaml:"planes_per_die" knob:"planes/die | planes per die | 1..1024 | §VI-A"`
	// SubarraysPerPlane is the number of independently accessible subarrays
	// per plane (the paper assumes 4). Range 1..64.
	SubarraysPerPlane int `yaml:"subarrays_per_plane" knob:"subarrays/plane | independently accessible subarrays per plane | 1..64 | §VI-A (assumed by the paper)"`
	// PageSize is the NAND page (4 KiB). Range 512 B..1 MiB; the page wave
	// (dies x planes x subarrays x page) at most 4 GiB.
	PageSize unit.Bytes `yaml:"page_size" knob:"page | NAND page; the SRAM regions follow its page wave | 512 B..1 MiB | §VI-A, [51]"`
	// PagesPerBlock is the pages of one erase block of one plane subarray
	// (0: DefaultPagesPerBlock). The paper gives none; flash management
	// (blocks, garbage collection, erase counts) uses it, timing does not.
	PagesPerBlock int `yaml:"pages_per_block,omitempty" knob:" | pages per erase block of a plane subarray (0: 256) | 0..65536 | assumed (the paper gives none)"`
	// TRead is the page sensing latency t_R (3 µs nominal; the paper sweeps
	// 1-32 µs). Range 10 ns..10 s (MinTRead: below it a bare Go constant, 3 = 3 ns, is refused).
	TRead unit.Duration `yaml:"t_read" knob:"t_R | page read (sensing) latency | 10ns..10s | §VI-A; swept 1-32 µs in §VI-F | slower"`
	// TProg is the page program latency t_PROG (100 µs nominal). Range 1 ns..10 s.
	TProg unit.Duration `yaml:"t_prog" knob:"t_PROG | page program latency | 1ns..10s | §VI-A; swept in §VI-F"`
	// ProgramScope is what a page program occupies while it runs (see
	// [ProgramScope]): the whole stack (reads wait for it) or only the
	// planes it writes (reads of the other planes proceed). Empty is the
	// stack, the engine's model before there was a choice; the paper's
	// systems state planes (§IV-B: "the scheduler issues a request only
	// when the target die or plane ... [is] available").
	ProgramScope ProgramScope `yaml:"program_scope,omitempty" json:",omitempty" knob:"program scope | what a page program occupies: stack (every plane; reads wait) or planes (the planes it writes; reads of the others proceed) | stack, planes | ONFI 2.3a multi-plane program; Hynix H27U4G8F2D datasheet (ONFI MULTIPLANE PROGRAM 80h-11h/80h-10h); §IV-B, §VI-A"`
	// ProgramSuspend lets a read that arrives while a program runs suspend
	// it (TSuspend later the array is free for reads) and the program resume
	// once no read waits (TResume, then the rest of its t_PROG). It needs
	// ProgramScope stack (a planes program leaves its other planes free
	// already). The paper does not mention it; NAND parts offer it.
	ProgramSuspend bool `yaml:"program_suspend,omitempty" json:",omitempty" knob:"program suspend | a read arriving during a program suspends it; the program resumes when no read waits | | flash program suspend (a Spansion parallel-NOR datasheet: halts within 15 µs max, 5 µs typical; US 12,087,366: 3D NAND program suspended for a read)"`
	// TSuspend is the latency from a read's arrival to the program's
	// suspension (the array keeps programming meanwhile). Used with
	// ProgramSuspend. Range 0..1 ms.
	TSuspend unit.Duration `yaml:"t_suspend,omitempty" json:",omitempty" knob:"t_SUS | program suspend latency: a read's arrival to the array free for it | 0ns..1ms | a Spansion parallel-NOR datasheet: 15 µs max (5 µs typical); Microchip SST26 write suspend t_SUS 22 µs | slower"`
	// TResume is the time a resumed program takes to restart, added to its
	// remaining t_PROG. Used with ProgramSuspend. Range 0..1 ms.
	TResume unit.Duration `yaml:"t_resume,omitempty" json:",omitempty" knob:"t_RES | program resume latency, added to the program's remaining time | 0ns..1ms | assumed: the typical suspend latency (5 µs); the datasheets give none (a program continues where it left off) | slower"`
	// TECC is the base-die ECC decode latency t_ECC: each segment the TSV
	// moves into the HBF SRAM is decoded there before it may leave (a
	// pipelined decoder: it delays every segment by TECC, holding its SRAM
	// slot meanwhile, and limits no rate). The paper gives none (its t_R
	// stands for every delay before the data are ready); 0, no decode
	// latency, is its part. Range 0..1 ms.
	TECC unit.Duration `yaml:"t_ecc,omitempty" json:",omitempty" knob:"t_ECC | base-die ECC decode latency of each segment, TSV to SRAM-ready | 0ns..1ms | not in the paper (its t_R folds it in); LDPC decoders take 1-10 µs | slower"`
	// CacheRead is true when a plane can sense its next page while the
	// previous page is still being moved out of its page buffer (NAND cache
	// read, as in the KIOXIA datasheet the paper cites). Then the array
	// delivers one page wave per t_R; without it, one per t_R plus the TSV
	// transfer of the wave.
	CacheRead bool `yaml:"cache_read" knob:" | a plane senses its next page while the last one leaves its page buffer | | [20] KIOXIA datasheet (NAND cache read)"`
	// ReadWavesInFlight is the depth of the stack's read pipeline: how many
	// page waves the array may have requested and not yet handed to the
	// TSV (sensing, or sensed and waiting in their page registers) at once.
	// Each wave's data are ready t_R after it is requested. The paper
	// supports two readings of its part, and this field is the only thing
	// that differs between them (see [Reading]):
	//
	//   - 1, the physical reading (the stated part): one 8 MiB wave sensed per
	//     t_R per stack (§VI-A: "an 8 MiB page wave per stack"; §VI-F: lower
	//     t_R and larger pages raise "the effective aggregate read
	//     bandwidth"), so the array alone caps a stack at PageWave / t_R
	//     (2.80 TB/s at 3 µs).
	//   - unbounded (ReadWavesUnbounded), the paper reading: t_R is a pure readiness
	//     latency (§II-B "Each HBF read incurs NAND sensing latency t_R before
	//     data transfer begins"; §IV-A "NAND sensing and shared-TSV SRAM fills
	//     are accounted for separately from this D2D rate and overlapped
	//     through double buffering"; §VI-E "the aggregate bandwidth for
	//     SRAM-ready expert data is up to 3.2 TB/s in either baseline and 6.4
	//     TB/s in DASH"), so any number of waves are in flight and only the
	//     TSV, the SRAM slots and the links bound throughput. The paper's
	//     Fig. 9 and Fig. 11 numbers are possible only under this reading.
	//
	// Other depths model parts between the two (multi-plane read queues that
	// overlap several waves); the array rate is then depth x PageWave / t_R.
	// Range 1..1024, or unbounded (written so in YAML); 0 is not a depth and
	// is refused, so that a part that leaves it out reads as no reading.
	ReadWavesInFlight WaveDepth `yaml:"read_waves_in_flight" knob:"read waves in flight | page waves a stack may sense at once (see hbf.reading) | 1..1024 or unbounded | §VI-A (1), §VI-E (unbounded)"`
	// SerialRead is the serial reading of t_R (see [ReadingSerial]): each
	// transfer chunk's t_R is paid before its transfer, on the link it leaves
	// the stack by, which it holds for t_R plus the transfer, so that sensing
	// never overlaps draining on a route; the NAND array then adds no time of
	// its own (ReadWavesInFlight does not matter). It is what a simulator
	// that adds t_R to every request would compute: one route of the paper's
	// part carries 4 MiB / (3 µs + 2.62 µs) = 0.746 TB/s. The paper's text
	// says the opposite (§IV-A: NAND sensing is "overlapped through double
	// buffering"), so it is a hypothesis about the paper's simulator, not
	// about the hardware. false (the default) overlaps them.
	SerialRead bool `yaml:"serial_read,omitempty" json:",omitempty" knob:"serial t_R | each transfer chunk pays t_R before its transfer, on the link it leaves the stack by (the serial reading, see hbf.reading) | | a per-request simulator's reading of §II-B; §IV-A says t_R is overlapped | slower"`
	// TSVBandwidth is the rate of the shared through-silicon-via bus that
	// fills the base-die SRAM from the core dies. Range 1 GB/s..1 PB/s.
	TSVBandwidth unit.BytesPerSecond `yaml:"tsv_bandwidth" knob:"TSV | shared TSV bus rate, core dies to base-die SRAM | 1 GB/s..1000 TB/s | assumed: 2 x the link (§VI-E) | faster"`
	// SRAM is the base-die transfer SRAM (2 x 8 MiB + ECC = 18 MiB physical).
	SRAM SRAMSpec `yaml:"sram"`
}

// ProgramScope is what a NAND page program occupies while it runs.
type ProgramScope string

const (
	// ProgramStack: a program occupies every plane of the stack, however
	// few pages it writes; reads wait for it (the zero ProgramScope).
	ProgramStack ProgramScope = "stack"
	// ProgramPlanes: a multi-plane program occupies the planes it writes
	// (its pages of the stack's page wave); reads of the other planes
	// proceed, in waves of the pages left. A full page wave still occupies
	// every plane.
	ProgramPlanes ProgramScope = "planes"
)

// Planes reports whether a program holds only the planes it writes.
func (p ProgramScope) Planes() bool { return p == ProgramPlanes }

// ProgramModels are the named NAND program models: what a program occupies
// and whether reads may suspend it.
func ProgramModels() []string { return []string{"stack", "planes", "suspend"} }

// ProgramModel names the part's program model: "suspend" with
// ProgramSuspend, else its scope ("stack" or "planes").
func (h HBFSpec) ProgramModel() string {
	switch {
	case h.ProgramSuspend:
		return "suspend"
	case h.ProgramScope.Planes():
		return "planes"
	}
	return "stack"
}

// DefaultPagesPerBlock is the erase-block size in pages when none is set:
// 256 pages (1 MiB of 4 KiB pages), an assumption within the range of
// NAND parts (hundreds of pages per block).
const DefaultPagesPerBlock = 256

// MaxPagesPerBlock bounds PagesPerBlock.
const MaxPagesPerBlock = 1 << 16

// BlockPages is PagesPerBlock with the default applied.
func (h HBFSpec) BlockPages() int {
	if h.PagesPerBlock <= 0 {
		return DefaultPagesPerBlock
	}
	return h.PagesPerBlock
}

// PageWave is the data one t_R senses across every die, plane and subarray
// of the stack: 16 x 32 x 4 x 4 KiB = 8 MiB by default.
func (h HBFSpec) PageWave() unit.Bytes {
	return unit.Bytes(h.Dies*h.PlanesPerDie*h.SubarraysPerPlane) * h.PageSize
}

// WaveDepth is a read-pipeline depth (HBFSpec.ReadWavesInFlight): a number
// of page waves, or ReadWavesUnbounded. YAML writes it as the number or as
// "unbounded".
type WaveDepth int

// ReadWavesUnbounded is the ReadWavesInFlight of a read pipeline with no
// depth limit: t_R is a pure readiness latency (the paper reading).
const ReadWavesUnbounded WaveDepth = -1

// String is the depth, or "unbounded".
func (w WaveDepth) String() string {
	if w == ReadWavesUnbounded {
		return "unbounded"
	}
	return strconv.Itoa(int(w))
}

// UnmarshalYAML reads a number of waves or "unbounded".
func (w *WaveDepth) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Value == "unbounded" {
		*w = ReadWavesUnbounded
		return nil
	}
	var d int
	if err := n.Decode(&d); err != nil || n.ShortTag() != "!!int" {
		return fmt.Errorf("line %d: read_waves_in_flight %q: want a number of page waves or unbounded", n.Line, n.Value)
	}
	*w = WaveDepth(d)
	return nil
}

// MarshalYAML writes the depth as a number or "unbounded".
func (w WaveDepth) MarshalYAML() (any, error) {
	if w == ReadWavesUnbounded {
		return "unbounded", nil
	}
	return int(w), nil
}

// ArrayReadBandwidth is the sustained rate at which the NAND array can
// produce page waves: ReadWavesInFlight x PageWave / t_R with cache read,
// otherwise ReadWavesInFlight x PageWave / (t_R + the TSV transfer of one
// wave). It is +Inf for an unbounded read pipeline (the array never binds;
// see [HBFSpec.ArrayBounded]).
func (h HBFSpec) ArrayReadBandwidth() unit.BytesPerSecond {
	if !h.ArrayBounded() || h.SerialRead {
		return unit.BytesPerSecond(math.Inf(1))
	}
	period := h.TRead
	if !h.CacheRead {
		period += unit.TransferTime(h.PageWave(), h.TSVBandwidth)
	}
	return unit.Rate(unit.Bytes(h.ReadWavesInFlight)*h.PageWave(), period)
}

// ArrayBounded reports whether the read pipeline has a finite depth, so
// that the NAND array's rate can bind (false under the paper reading).
func (h HBFSpec) ArrayBounded() bool { return h.ReadWavesInFlight != ReadWavesUnbounded }

// SenseTime is the time the NAND array takes to sense a page wave: t_R, or
// nothing under the serial reading, which charges t_R on the link instead
// (see [HBFSpec.ReadLead]).
func (h HBFSpec) SenseTime() unit.Duration {
	if h.SerialRead {
		return 0
	}
	return h.TRead
}

// ReadLead is the time a read chunk holds the link it leaves the stack by
// before its transfer: t_R under the serial reading, else nothing.
func (h HBFSpec) ReadLead() unit.Duration {
	if h.SerialRead {
		return h.TRead
	}
	return 0
}

// ChunkReadRate is the rate at which one route out of the stack carries
// chunks of b bytes over a link of rate r: r, or under the serial reading
// b / (t_R + b/r).
func (h HBFSpec) ChunkReadRate(b unit.Bytes, r unit.BytesPerSecond) unit.BytesPerSecond {
	if !h.SerialRead || b <= 0 || r <= 0 {
		return r
	}
	return unit.BytesPerSecond(float64(b) / (h.TRead.Seconds() + float64(b)/float64(r)))
}

// Reading names the reading of t_R this part corresponds to:
// [ReadingSerial] when SerialRead is set, else [ReadingPaper] for an
// unbounded read pipeline, [ReadingPhysical] for one wave in flight, and
// ReadingCustom for any other depth.
func (h HBFSpec) Reading() Reading {
	if h.SerialRead {
		return ReadingSerial
	}
	switch h.ReadWavesInFlight {
	case ReadWavesUnbounded:
		return ReadingPaper
	case 1:
		return ReadingPhysical
	}
	return ReadingCustom
}

// Validate reports every bad field of the HBF spec, each outside its range
// (see limits.go) as a *RangeError.
func (h HBFSpec) Validate() error {
	errs := h.limits()
	if h.ProgramSuspend && h.ProgramScope.Planes() {
		errs = append(errs, fmt.Errorf("hbf.program_suspend = true: needs hbf.program_scope stack (a planes program leaves the other planes to reads already)"))
	}
	if len(errs) == 0 && h.SRAM.RegionSize < h.PageWave() {
		errs = append(errs, fmt.Errorf("hbf.sram.region_size = %v: smaller than one page wave (%v = dies x planes x subarrays x page)",
			h.SRAM.RegionSize, h.PageWave()))
	}
	return errors.Join(errs...)
}

// LinkSpec is one UCIe die-to-die link (one direction's figures; links are
// full duplex and each direction is modelled separately).
type LinkSpec struct {
	// Modules is the number of UCIe-A modules ganged into one logical link (4).
	// Range 1..64.
	Modules int `yaml:"modules" knob:" | UCIe-A modules ganged into one link | 1..64 | §IV-A"`
	// LanesPerModule is the data lanes per module (64). Range 1..1024.
	LanesPerModule int `yaml:"lanes_per_module" knob:" | data lanes per module | 1..1024 | §IV-A"`
	// GTPerSecond is the per-lane rate in gigatransfers per second (64).
	// Range: positive, at most 100,000.
	GTPerSecond float64 `yaml:"gt_per_second" knob:" | per-lane rate, GT/s | >0..100000 | §IV-A"`
	// Usable is the streaming bandwidth per direction after link and
	// implementation losses (1.6 TB/s: about 22% headroom below raw). Range
	// 1 GB/s..1 PB/s, and at most the raw rate.
	Usable unit.BytesPerSecond `yaml:"usable" knob:"link | usable streaming rate per direction; the lane rate scales with it | 1 GB/s..1000 TB/s | §IV-A, §VI-A; swept in §VI-F | faster"`
	// EnergyLow and EnergyHigh bracket the UCIe 3.0 UCIe-A energy-efficiency
	// targets (0.5 pJ/bit at 0.5 V, 0.6 pJ/bit at 0.7 V). Range 0..1 nJ/bit.
	EnergyLow unit.JoulesPerBit `yaml:"energy_low" knob:" | link energy, low target (0.5 V) | 0 pJ/bit..1000 pJ/bit | [46] UCIe 3.0"`
	// EnergyHigh is the upper energy-efficiency target (see EnergyLow).
	EnergyHigh unit.JoulesPerBit `yaml:"energy_high" knob:" | link energy, high target (0.7 V) | 0 pJ/bit..1000 pJ/bit | [46] UCIe 3.0"`
	// ModuleWidthMM is the die-edge width of one UCIe-A module (0.389 mm).
	// Range 0..100.
	ModuleWidthMM float64 `yaml:"module_width_mm" knob:" | die-edge width of one module, mm | 0..100 | [46] UCIe 3.0"`
}

// SetUsable sets the usable per-direction rate and scales the lane rate with
// it, keeping the link's headroom of raw over usable (a faster link is a
// faster PHY, not a thinner margin). The builder's LinkBandwidth and the
// link.usable knob wherever it is set follow this rule.
func (l *LinkSpec) SetUsable(bw unit.BytesPerSecond) {
	if l.Usable > 0 && bw > 0 { // a rate <= 0 is refused by Validate as link.usable's, not as a lane rate's
		l.GTPerSecond *= float64(bw) / float64(l.Usable)
	}
	l.Usable = bw
}

// Raw is the raw per-direction link rate: modules x lanes x GT/s, one bit
// per transfer per lane (4 x 64 x 64 GT/s = 2.048 TB/s).
func (l LinkSpec) Raw() unit.BytesPerSecond {
	return unit.BytesPerSecond(float64(l.Modules*l.LanesPerModule) * l.GTPerSecond * 1e9 / 8)
}

// Headroom is the fraction of the raw rate left for link and implementation
// losses (about 0.22).
func (l LinkSpec) Headroom() float64 { return 1 - float64(l.Usable)/float64(l.Raw()) }

// PowerRange is the link power per fully used direction at the usable rate,
// at the low and high energy-efficiency targets (6.4-7.7 W).
func (l LinkSpec) PowerRange() (low, high unit.Watts) {
	return unit.Power(l.Usable, l.EnergyLow), unit.Power(l.Usable, l.EnergyHigh)
}

// EdgeWidthMM is the die-edge width of the link's modules at one endpoint.
func (l LinkSpec) EdgeWidthMM() float64 { return float64(l.Modules) * l.ModuleWidthMM }

// Validate reports every bad field of the link spec, each outside its range
// (see limits.go) as a *RangeError.
func (l LinkSpec) Validate() error {
	errs := l.limits()
	if len(errs) == 0 && l.Usable > l.Raw() {
		errs = append(errs, fmt.Errorf("link.usable = %v: exceeds the raw rate %v (modules x lanes x GT/s / 8)", l.Usable, l.Raw()))
	}
	if len(errs) == 0 && l.EnergyHigh < l.EnergyLow {
		errs = append(errs, fmt.Errorf("link.energy_low/energy_high = %v/%v: need low <= high", l.EnergyLow, l.EnergyHigh))
	}
	return errors.Join(errs...)
}
