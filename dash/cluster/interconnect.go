package cluster

import (
	"errors"
	"fmt"

	"github.com/dashlab/dashlab/dash/unit"
)

// ScaleUp kinds: how the GPUs of one node reach each other.
const (
	// ScaleUpNVSwitch: every GPU has one port into a non-blocking NVSwitch
	// fabric (HGX H100/H200: 18 NVLink 4 links, 450 GB/s per direction).
	ScaleUpNVSwitch = "nvswitch"
	// ScaleUpBridge: NVLink bridges join GPUs in groups (H100 PCIe: pairs,
	// 300 GB/s per direction); other pairs talk over PCIe.
	ScaleUpBridge = "nvlink-bridge"
	// ScaleUpPCIe: GPUs talk over their PCIe links only.
	ScaleUpPCIe = "pcie"
)

// LinkSpec is one kind of interconnect port: its rate per direction, the
// latency of one message across it (the alpha of the alpha-beta model) and
// its energy per bit.
type LinkSpec struct {
	// Rate is the port's bandwidth per direction (the beta of the model is
	// its inverse). Range 1 MB/s .. 1 PB/s.
	Rate unit.BytesPerSecond `yaml:"rate" knob:"| the port's rate per direction (beta = 1 / rate) | 1 MB/s..1000 TB/s | the catalogue entry's datasheets | faster"`
	// Latency is the time from a message's last byte leaving to its
	// arrival, paid once per message (one step of a collective). Range
	// 0 .. 1 s.
	Latency unit.Duration `yaml:"latency" knob:"| one message's latency across the port (alpha), paid per step | 0ns..1s | NCCL's tuning model (src/graph/tuning.cc) | slower"`
	// Energy is the energy per bit moved across the port (0: not counted).
	// Range 0 .. 1 nJ/bit.
	Energy unit.JoulesPerBit `yaml:"energy,omitempty" knob:"| energy per bit across the port (0: not counted) | 0 pJ/bit..1000 pJ/bit | none published for NVLink 4 or ConnectX-7"`
}

// ScaleUpSpec is the interconnect inside a node.
type ScaleUpSpec struct {
	// Kind is nvswitch, nvlink-bridge or pcie.
	Kind string `yaml:"kind" knob:"| how a node's GPUs reach each other | nvswitch, nvlink-bridge, pcie | the catalogue entry"`
	// Link is each GPU's scale-up port (for pcie, unused: the PCIe link
	// carries the traffic).
	Link LinkSpec `yaml:",inline"`
	// BridgeGPUs is the number of GPUs one NVLink bridge group joins
	// (nvlink-bridge: 2 for the H100 PCIe's two-way bridge). Range 2 ..
	// GPUs per node, dividing it.
	BridgeGPUs int `yaml:"bridge_gpus,omitempty" knob:"| GPUs one NVLink bridge group joins (nvlink-bridge) | 0..64 | the H100 PCIe product brief (two-way bridge)"`
}

// NetworkSpec is the network between nodes: NICs shared evenly by the
// node's GPUs (GPUDirect RDMA through each GPU's PCIe link), over a
// non-blocking fabric.
type NetworkSpec struct {
	// NICsPerNode is the number of NICs of a node, dividing its GPUs
	// (8 in an HGX H100/H200 node: one ConnectX-7 per GPU). Range 1 .. GPUs per node.
	NICsPerNode int `yaml:"nics_per_node" knob:"| NICs of a node, shared evenly by its GPUs | 1..64 | the DGX H100/H200 datasheets (8 ConnectX-7)"`
	// Link is one NIC's port.
	Link LinkSpec `yaml:",inline"`
}

// InterconnectSpec is how the GPUs of a cluster exchange data.
type InterconnectSpec struct {
	// ScaleUp is the interconnect inside a node.
	ScaleUp ScaleUpSpec `yaml:"scale_up"`
	// PCIe is each GPU's host link (PCIe Gen5 x16: about 64 GB/s per
	// direction).
	PCIe LinkSpec `yaml:"pcie"`
	// Network is the network between nodes (unused with one node, but
	// validated).
	Network NetworkSpec `yaml:"network"`
	// CollectiveLatency is the fixed start-up of every collective or
	// point-to-point operation (kernel launch and synchronisation), paid
	// once per operation before its first message. Range 0 .. 1 s.
	CollectiveLatency unit.Duration `yaml:"collective_latency" knob:"alpha_coll | start-up of every collective or point-to-point operation | 0ns..1s | NCCL's tuning model (Ring LL128 base latency) | slower"`
	// AllReduce chooses the all-reduce algorithm: auto (the faster of ring
	// and recursive doubling on an idle fabric, as MPICH chooses by message
	// size), ring or recursive-doubling (powers of two only; others use
	// ring).
	AllReduce string `yaml:"all_reduce,omitempty" knob:"| all-reduce algorithm (empty: auto) | auto, ring, recursive-doubling | Thakur, Rabenseifner and Gropp 2005"`
	// AllToAll chooses the all-to-all algorithm: concurrent (every message
	// posted at once, the NCCL and DeepEP way; the default) or pairwise
	// (p-1 synchronised exchange steps, MPICH's long-message algorithm).
	AllToAll string `yaml:"all_to_all,omitempty" knob:"| all-to-all algorithm (empty: concurrent) | concurrent, pairwise | NCCL and DeepEP post every message at once; MPICH's pairwise exchange"`
}

// All-reduce and all-to-all algorithms.
const (
	AlgoAuto              = "auto"
	AlgoRing              = "ring"
	AlgoRecursiveDoubling = "recursive-doubling"
	AlgoConcurrent        = "concurrent"
	AlgoPairwise          = "pairwise"
)

// Bounds of interconnect fields.
const (
	MinLinkRate = unit.MBps
	MaxLinkRate = 1000 * unit.TBps
	MaxLatency  = unit.Second
	MaxEnergy   = 1e-9 * unit.JoulesPerBit(1)
)

// validate checks what the interconnect's fields of a node of gpus GPUs
// must meet together (each field's range is its knob's: Spec.Validate).
func (c InterconnectSpec) validate(gpus int) error {
	var errs []error
	if b := c.ScaleUp.BridgeGPUs; c.ScaleUp.Kind == ScaleUpBridge && gpus > 1 && (b < 2 || b > gpus || gpus%b != 0) {
		errs = append(errs, fmt.Errorf("interconnect.scale_up.bridge_gpus = %d: must be at least 2 and divide gpus_per_node = %d", b, gpus))
	}
	if n := c.Network.NICsPerNode; n < 1 || n > gpus || gpus%n != 0 {
		errs = append(errs, fmt.Errorf("interconnect.network.nics_per_node = %d: must be at least 1 and divide gpus_per_node = %d", n, gpus))
	}
	return errors.Join(errs...)
}
