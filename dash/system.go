package dash

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/dash/unit"
)

// SystemSpec is a complete memory system: the HBM and HBF stack parts, the
// UCIe link part, and the topology that says how many of each there are and
// how they connect. Every number is a parameter; [PaperSystem] gives the
// paper's defaults.
type SystemSpec struct {
	// ID names the system ("dash", "relay-only", "dash-4", ...).
	ID string `yaml:"id"`
	// HBM is one HBM stack (all stacks are alike).
	HBM HBMSpec `yaml:"hbm"`
	// HBF is one HBF stack (all stacks are alike).
	HBF HBFSpec `yaml:"hbf"`
	// Link is one UCIe link (all links are alike).
	Link LinkSpec `yaml:"link"`
	// Topology gives the stack pairs and the paths between them.
	Topology TopologySpec `yaml:"topology"`
}

// HBMCapacity is the total HBM capacity of the package.
func (s SystemSpec) HBMCapacity() unit.Bytes { return unit.Bytes(s.Topology.Pairs) * s.HBM.Capacity }

// HBFCapacity is the total HBF capacity of the package.
func (s SystemSpec) HBFCapacity() unit.Bytes { return unit.Bytes(s.Topology.Pairs) * s.HBF.Capacity }

// Validate reports every bad field of the system, each naming the field and
// its value.
func (s SystemSpec) Validate() error {
	errs := []error{s.HBM.Validate(), s.HBF.Validate(), s.Link.Validate(), s.Topology.Validate()}
	if r := s.HBM.RelaySRAM.RegionSize; r >= MinPageSize && s.HBF.PageSize > 0 && r < s.HBF.PageSize {
		errs = append(errs, fmt.Errorf("hbm.relay_sram.region_size = %v: smaller than one HBF page (hbf.page_size = %v)", r, s.HBF.PageSize))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("system %s: %w", s.label(), err)
	}
	return nil
}

func (s SystemSpec) label() string {
	if s.ID != "" {
		return s.ID
	}
	return "(no id)"
}

// Paper defaults. Each value carries its source in the paper (section) and,
// where the paper takes it from elsewhere, the reference it cites.

// PaperHBM is an HBM3E 24 GB stack with the paper's relay SRAM.
func PaperHBM() HBMSpec {
	return HBMSpec{
		Capacity: 24 * unit.GB, // §VI-A: two 24 GB HBM stacks [25] (Micron HBM3E)
		// Micron HBM3E product brief [25]: ">1.2 TB/s" per stack (9.2 Gb/s x
		// 1024 bits). Not stated in the paper; the DRAM array, unlike the
		// relay, cannot exceed it.
		ArrayBandwidth: 1.2 * unit.TBps,
		// §IV-B: relay stream in 4 MiB chunks, two regions, 12.5% ECC = 9 MiB.
		RelaySRAM: SRAMSpec{Regions: 2, RegionSize: 4 * unit.MiB, ECCOverheadPct: 12.5},
	}
}

// PaperHBF is a 512 GB HBF stack with the paper's organisation.
func PaperHBF() HBFSpec {
	return HBFSpec{
		Capacity:          512 * unit.GB, // §II-B, §VI-A (SanDisk fact sheet [37])
		Dies:              16,            // §VI-A
		PlanesPerDie:      32,            // §VI-A
		SubarraysPerPlane: 4,             // §VI-A (assumed by the paper)
		PageSize:          4 * unit.KiB,  // §VI-A (HBF patent [51])
		TRead:             3 * unit.Microsecond,
		TProg:             100 * unit.Microsecond,
		CacheRead:         true, // standard NAND cache read [20]; the page buffer frees as soon as the wave moves to SRAM
		// §VI-A: one 8 MiB page wave per stack per t_R, the stated part (the
		// physical reading; ReadingPaper lifts the limit, see ReadWavesInFlight).
		ReadWavesInFlight: 1,
		// Not given by the paper. §VI-E states that SRAM-ready expert data can
		// leave a stack at up to 3.2 TB/s in DASH (Direct + Relay, 1.6 TB/s
		// each), so the shared TSV is provisioned to refill the SRAM at least
		// that fast: 2 x the usable link rate.
		TSVBandwidth: 3.2 * unit.TBps,
		// §IV-B: two 8 MiB transfer regions (one page wave each) + 12.5% ECC = 18 MiB.
		SRAM: SRAMSpec{Regions: 2, RegionSize: 8 * unit.MiB, ECCOverheadPct: 12.5},
	}
}

// PaperLink is the paper's four-module UCIe-A link (§IV-A).
func PaperLink() LinkSpec {
	return LinkSpec{
		Modules: 4, LanesPerModule: 64, GTPerSecond: 64, // 2.048 TB/s raw per direction
		Usable:        1.6 * unit.TBps,            // §IV-A, §VI-A
		EnergyLow:     0.5 * unit.PicojoulePerBit, // UCIe 3.0 [46], 0.5 V
		EnergyHigh:    0.6 * unit.PicojoulePerBit, // UCIe 3.0 [46], 0.7 V
		ModuleWidthMM: 0.389,                      // UCIe 3.0 [46]
	}
}

// namedTopologies are the paper's four configurations (Fig. 8).
var namedTopologies = map[string]TopologySpec{
	"dash":         {Pairs: 2, GPUHBM: true, GPUHBF: true, HBMHBF: true},
	"relay-only":   {Pairs: 2, GPUHBM: true, GPUHBF: false, HBMHBF: true},
	"direct-only":  {Pairs: 2, GPUHBM: true, GPUHBF: true, HBMHBF: false},
	"compact-dash": {Pairs: 1, GPUHBM: true, GPUHBF: true, HBMHBF: true},
}

// SystemIDs lists the named systems: the paper's four. Any of "dash",
// "relay-only" and "direct-only" also takes a pair count suffix ("dash-4":
// four HBM-HBF pairs with all three paths).
func SystemIDs() []string {
	ids := make([]string, 0, len(namedTopologies))
	for id := range namedTopologies {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// PaperSystem returns the named system with the paper's stack and link
// parts: "dash", "relay-only", "direct-only", "compact-dash", or one of the
// first three with a pair count ("dash-4", "relay-only-3").
func PaperSystem(id string) (SystemSpec, error) {
	topo, ok := namedTopologies[id]
	if !ok {
		i := strings.LastIndex(id, "-")
		if i > 0 {
			if n, err := strconv.Atoi(id[i+1:]); err == nil {
				base, found := namedTopologies[id[:i]]
				if found && id[:i] != "compact-dash" {
					if n < 1 || n > MaxPairs {
						return SystemSpec{}, fmt.Errorf("system %q: %w", id, &RangeError{Field: "pair count", Value: fmt.Sprint(n), Min: "1", Max: fmt.Sprint(MaxPairs)})
					}
					topo, ok = base, true
					topo.Pairs = n
				}
			}
		}
	}
	if !ok {
		return SystemSpec{}, fmt.Errorf("unknown system %q (known: %s, or dash-N, relay-only-N, direct-only-N for N pairs)",
			id, strings.Join(SystemIDs(), ", "))
	}
	return SystemSpec{ID: id, HBM: PaperHBM(), HBF: PaperHBF(), Link: PaperLink(), Topology: topo}, nil
}
