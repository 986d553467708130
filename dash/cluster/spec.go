package cluster

import (
	"errors"
	"fmt"
	"io"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// Spec is a cluster's hardware: nodes of GPUs, each GPU with its memory
// system, and the interconnect between them. It is a plain value with yaml
// tags; catalogue clusters live in reference/clusters/*.yaml, one file per
// entry, with their sources.
type Spec struct {
	// ID is the catalogue id ("hgx-h100").
	ID string `yaml:"id" knob:"-"`
	// Name is the display name.
	Name string `yaml:"name" knob:"-"`
	// Sources lists where each value was read.
	Sources []string `yaml:"sources,omitempty" knob:"-"`
	// Nodes is the number of nodes. Range 1 .. 4096.
	Nodes int `yaml:"nodes" knob:"| nodes of the cluster (the id gains -xN) | 1..4096 | the catalogue entry (reference/clusters)"`
	// GPUsPerNode is the number of GPUs of a node. Range 1 .. 64.
	GPUsPerNode int `yaml:"gpus_per_node" knob:"| GPUs of a node | 1..64 | the catalogue entry (reference/clusters)"`
	// GPU is every GPU of the cluster.
	GPU GPUSpec `yaml:"gpu"`
	// Interconnect is how the GPUs exchange data.
	Interconnect InterconnectSpec `yaml:"interconnect"`
	// Notes carries caveats.
	Notes string `yaml:"notes,omitempty" knob:"-"`
}

// GPUSpec is one GPU of a cluster: its compute (a timing model of the
// catalogue), its memory system (a system of the catalogue: HBM-only, or
// DASH and its variants) and its board power.
type GPUSpec struct {
	// Timing is the GPU timing model's catalogue id ("h100-sxm").
	Timing string `yaml:"timing" knob:"| the GPUs' timing model: a catalogue GPU (h100-sxm, h200-sxm, h100-pcie) |  | reference/gpus"`
	// Memory is the memory system's catalogue id ("dash", "hbm-h100-sxm").
	Memory string `yaml:"memory" knob:"| the GPUs' memory system: a catalogue system (h200, h100, dash, relay-only, ...) |  | reference/systems"`
	// Power is the board power (TDP) charged for every second the GPU is
	// part of a running instance. Range 0 .. 10 kW.
	Power unit.Watts `yaml:"power" knob:"TDP | board power charged for every GPU-second of a running instance | 0 W..10 kW | the GPU's datasheet (max TDP)"`
}

// Bounds of a cluster spec.
const (
	MaxNodes       = 4096
	MaxGPUsPerNode = 64
	MaxPower       = unit.Watts(10_000)
)

// GPUs is the cluster's GPU count.
func (s Spec) GPUs() int { return s.Nodes * s.GPUsPerNode }

// WithNodes is the same cluster with n nodes (its id gains "xN").
func (s Spec) WithNodes(n int) Spec {
	if n != s.Nodes {
		s.ID = fmt.Sprintf("%s-x%d", s.ID, n)
		s.Name = fmt.Sprintf("%s x %d nodes", s.Name, n)
	}
	s.Nodes = n
	return s
}

// Validate reports every bad field, each naming the field and its value:
// every knob outside its range (the knob tags), then what the fields must
// meet together.
func (s Spec) Validate() error {
	var errs []error
	if s.ID == "" {
		errs = append(errs, errors.New("id: must be set"))
	}
	var unused []string
	if s.Interconnect.ScaleUp.Kind == ScaleUpPCIe { // no scale-up port
		unused = append(unused, "interconnect.scale_up.rate", "interconnect.scale_up.latency", "interconnect.scale_up.energy")
	}
	errs = append(errs, rangeErrors(&s, unused...)...) // every knob's range (see Layout)
	if s.GPU.Timing == "" {
		errs = append(errs, errors.New("gpu.timing: must name a GPU of the catalogue"))
	}
	if s.GPU.Memory == "" {
		errs = append(errs, errors.New("gpu.memory: must name a memory system of the catalogue"))
	}
	if s.GPUsPerNode >= 1 && s.GPUsPerNode <= MaxGPUsPerNode {
		if err := s.Interconnect.validate(s.GPUsPerNode); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		id := s.ID
		if id == "" {
			id = "(no id)"
		}
		return fmt.Errorf("cluster %s: %w", id, err)
	}
	return nil
}

// DecodeSpec reads one cluster spec from YAML, strictly (an unknown key is
// an error naming it), and validates it.
func DecodeSpec(r io.Reader, source string) (Spec, error) {
	var s Spec
	if err := dash.DecodeStrict(r, source, &s); err != nil {
		return Spec{}, err
	}
	if err := s.Validate(); err != nil {
		return Spec{}, fmt.Errorf("%s: %w", source, err)
	}
	return s, nil
}
