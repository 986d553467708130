package dash

import (
	"errors"
	"fmt"

	"github.com/dashlab/dashlab/dash/unit"
)

// SystemSpec is a complete memory system: the HBM and HBF stack parts, the
// UCIe link part, and the topology that says how many of each there are and
// how they connect. Every number is a parameter; the engine holds no named
// system: the paper's four (and any a user adds) are YAML files of
// reference/systems, resolved by reference.System.
type SystemSpec struct {
	// ID names the system ("dash", "relay-only", "dash-4", ...).
	ID string `yaml:"id" knob:"-"`
	// HBM is one HBM stack (all stacks are alike).
	HBM HBMSpec `yaml:"hbm"`
	// HBF is one HBF stack (all stacks are alike).
	HBF HBFSpec `yaml:"hbf"`
	// Link is the UCIe link part: every link has its modules, lanes and
	// energy; its usable rate is each link's unless the topology gives the
	// link (or its kind) its own.
	Link LinkSpec `yaml:"link"`
	// Topology gives the stack pairs, the paths between them and their
	// rates.
	Topology TopologySpec `yaml:"topology"`
}

// HBMCapacity is the total HBM capacity of the package.
func (s SystemSpec) HBMCapacity() unit.Bytes {
	return unit.Bytes(s.Topology.HBMStacks()) * s.HBM.Capacity
}

// HBFCapacity is the total HBF capacity of the package (0 without HBF).
func (s SystemSpec) HBFCapacity() unit.Bytes {
	return unit.Bytes(s.Topology.HBFStacks()) * s.HBF.Capacity
}

// Validate reports every bad field of the system, each naming the field and
// its value; then it compiles the route table and reports what it cannot
// carry (see [RouteTable.Validate]). An HBM-only system's HBF part and
// relay SRAM are not checked: it has neither.
func (s SystemSpec) Validate() error {
	errs := []error{s.Link.Validate(), s.Topology.Validate()}
	if s.Topology.HBMOnly { // no relay SRAM either: nothing relays
		errs = append(errs, errors.Join(hbmArrayLimits(nil, s.HBM)...))
	} else {
		errs = append(errs, s.HBM.Validate(), s.HBF.Validate())
		if r := s.HBM.RelaySRAM.RegionSize; r >= MinPageSize && s.HBF.PageSize > 0 && r < s.HBF.PageSize {
			errs = append(errs, fmt.Errorf("hbm.relay_sram.region_size = %v: smaller than one HBF page (hbf.page_size = %v)", r, s.HBF.PageSize))
		}
	}
	if err := errors.Join(errs...); err == nil {
		_, err = s.RouteTable()
		errs = append(errs, err)
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

// SetPageSize sets the HBF page size and, as in the paper's page-size study, sizes the
// SRAM regions to the new page wave: each HBF transfer region holds one page wave and
// each HBM relay region half of one. The builder's PageSize and an experiment file's
// hbf.page_size override (without explicit region sizes) both follow this rule.
func (s *SystemSpec) SetPageSize(p unit.Bytes) {
	s.HBF.PageSize = p
	s.HBF.SRAM.RegionSize = s.HBF.PageWave()
	s.HBM.RelaySRAM.RegionSize = s.HBF.PageWave() / 2
}
