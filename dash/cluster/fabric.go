package cluster

import (
	"github.com/dashlab/dashlab/dash/unit"
)

// PortKind names the kind of an interconnect port.
type PortKind uint8

// Port kinds.
const (
	PortScaleUp PortKind = iota // a GPU's NVLink/NVSwitch or bridge port
	PortPCIe                    // a GPU's PCIe link
	PortNIC                     // a NIC
	numPortKinds
)

var portKindNames = [numPortKinds]string{"scale-up", "pcie", "nic"}

func (k PortKind) String() string {
	if int(k) < len(portKindNames) {
		return portKindNames[k]
	}
	return "port?"
}

// MarshalText writes the kind's name.
func (k PortKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// port is one direction of one interconnect port: a FIFO server that holds
// each message for bytes/rate.
type port struct {
	kind   PortKind
	rate   unit.BytesPerSecond
	energy unit.JoulesPerBit
	free   unit.Duration // when the last message reserved on it leaves
	busy   unit.Duration
	bytes  unit.Bytes
}

// fabric is the interconnect of a set of GPUs: every port direction is its
// own resource. A message from GPU i to GPU j crosses the ports of its
// path; it starts when all of them are free (and not before it is sent),
// holds each for bytes/rate, and arrives one latency after its last byte
// left the slowest of them. On an idle fabric a message therefore takes
// exactly alpha + bytes/beta, with alpha the path's latency and beta its
// slowest rate: the alpha-beta (Hockney) model, which the collectives
// build on message by message. Concurrent messages that share a port queue
// on it in the order they were sent.
type fabric struct {
	spec    InterconnectSpec
	perNode int
	ports   []port
	// Port indices per GPU (tx, rx) and per NIC.
	suTx, suRx, pcTx, pcRx []int
	nicTx, nicRx           []int
	nicOf                  []int // a GPU's NIC
	messages               int64
}

func newFabric(spec InterconnectSpec, nodes, perNode int) *fabric {
	n := nodes * perNode
	f := &fabric{spec: spec, perNode: perNode}
	add := func(k PortKind, l LinkSpec) int {
		f.ports = append(f.ports, port{kind: k, rate: l.Rate, energy: l.Energy})
		return len(f.ports) - 1
	}
	for range n {
		su := spec.ScaleUp.Link
		if spec.ScaleUp.Kind == ScaleUpPCIe {
			su = spec.PCIe
		}
		f.suTx, f.suRx = append(f.suTx, add(PortScaleUp, su)), append(f.suRx, add(PortScaleUp, su))
		f.pcTx, f.pcRx = append(f.pcTx, add(PortPCIe, spec.PCIe)), append(f.pcRx, add(PortPCIe, spec.PCIe))
	}
	nics := max(1, spec.Network.NICsPerNode)
	for range nodes * nics {
		f.nicTx, f.nicRx = append(f.nicTx, add(PortNIC, spec.Network.Link)), append(f.nicRx, add(PortNIC, spec.Network.Link))
	}
	gpusPerNIC := max(1, perNode/nics)
	for g := range n {
		f.nicOf = append(f.nicOf, (g/perNode)*nics+(g%perNode)/gpusPerNIC)
	}
	return f
}

// path is the ports a message from GPU i to GPU j crosses, its latency and
// its slowest rate.
type path struct {
	ports   [4]int
	n       int
	latency unit.Duration
	rate    unit.BytesPerSecond
}

func (f *fabric) path(i, j int) path {
	var p path
	hop := func(k int) {
		p.ports[p.n] = k
		p.n++
		if r := f.ports[k].rate; p.rate == 0 || r < p.rate {
			p.rate = r
		}
	}
	su := f.spec.ScaleUp
	switch {
	case i/f.perNode != j/f.perNode: // another node: PCIe to the NIC, the network, PCIe from the NIC
		hop(f.pcTx[i])
		hop(f.nicTx[f.nicOf[i]])
		hop(f.nicRx[f.nicOf[j]])
		hop(f.pcRx[j])
		p.latency = f.spec.Network.Link.Latency
	case su.Kind == ScaleUpNVSwitch,
		su.Kind == ScaleUpBridge && (i%f.perNode)/su.BridgeGPUs == (j%f.perNode)/su.BridgeGPUs:
		hop(f.suTx[i])
		hop(f.suRx[j])
		p.latency = su.Link.Latency
	default: // PCIe peer to peer
		hop(f.pcTx[i])
		hop(f.pcRx[j])
		p.latency = f.spec.PCIe.Latency
	}
	return p
}

// send reserves a message of b bytes from GPU i to GPU j sent at t and
// returns its arrival. A message to oneself arrives at once.
func (f *fabric) send(t unit.Duration, i, j int, b unit.Bytes) unit.Duration {
	if i == j || b <= 0 {
		return t
	}
	p := f.path(i, j)
	start := t
	for _, k := range p.ports[:p.n] {
		start = max(start, f.ports[k].free)
	}
	for _, k := range p.ports[:p.n] {
		pt := &f.ports[k]
		d := unit.TransferTime(b, pt.rate)
		pt.free = start + d
		pt.busy += d
		pt.bytes += b
	}
	f.messages++
	return start + unit.TransferTime(b, p.rate) + p.latency
}

// idleFrom reports whether every port that messages among gpus can cross is
// free at t (a collective starting then runs as on an idle fabric).
func (f *fabric) idleFrom(t unit.Duration, gpus []int) bool {
	for _, g := range gpus {
		for _, k := range [5]int{f.suTx[g], f.suRx[g], f.pcTx[g], f.pcRx[g], f.nicTx[f.nicOf[g]]} {
			if f.ports[k].free > t {
				return false
			}
		}
		if f.ports[f.nicRx[f.nicOf[g]]].free > t {
			return false
		}
	}
	return true
}

// touched lists the ports messages among gpus can cross (sorted, unique).
func (f *fabric) touched(gpus []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, g := range gpus {
		for _, k := range [6]int{f.suTx[g], f.suRx[g], f.pcTx[g], f.pcRx[g], f.nicTx[f.nicOf[g]], f.nicRx[f.nicOf[g]]} {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out
}

// PortStats is what one kind of port carried.
type PortStats struct {
	// Kind is the port kind.
	Kind PortKind `json:"kind"`
	// Bytes is what ports of this kind carried (each direction counted).
	Bytes unit.Bytes `json:"bytes"`
	// Busy is the ports' total busy time.
	Busy unit.Duration `json:"busy_ns"`
	// Energy is Bytes at the ports' energy per bit.
	Energy float64 `json:"energy_j"`
}

// stats sums the ports by kind.
func (f *fabric) stats() []PortStats {
	out := make([]PortStats, numPortKinds)
	for k := range out {
		out[k].Kind = PortKind(k)
	}
	for _, p := range f.ports {
		s := &out[p.kind]
		s.Bytes += p.bytes
		s.Busy += p.busy
		s.Energy += 8 * float64(p.bytes) * float64(p.energy)
	}
	return out
}
