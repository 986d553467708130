package cluster

import (
	"math/bits"

	"github.com/dashlab/dashlab/dash/unit"
)

// The collectives are built message by message on the fabric, so that
// their time on an idle fabric is the alpha-beta cost of the algorithm and
// contention appears wherever their messages share a port with other
// traffic. alpha is a message's latency, beta the inverse of the slowest
// rate on its path, p the group size, n the bytes, and L the fixed start-up
// of the operation (InterconnectSpec.CollectiveLatency):
//
//   - ring all-reduce (Patarasuk and Yuan, "Bandwidth optimal all-reduce
//     algorithms for clusters of workstations", JPDC 2009): a reduce-scatter
//     and an all-gather around the ring, 2(p-1) steps of n/p bytes:
//     L + 2(p-1)(alpha + (n/p) beta);
//   - recursive-doubling all-reduce (Thakur, Rabenseifner and Gropp,
//     "Optimization of collective communication operations in MPICH",
//     IJHPCA 2005, section 4): log2 p exchanges of all n bytes:
//     L + log2(p)(alpha + n beta), the better choice for short messages;
//   - ring all-gather of n bytes in all: L + (p-1)(alpha + (n/p) beta);
//   - all-to-all with every message posted at once (Thakur et al. 2005,
//     the medium-message algorithm; NCCL and DeepEP post all sends
//     together): each GPU's sends queue on its ports, m bytes to each
//     peer: L + (p-1) m beta + alpha; or pairwise exchange (p-1
//     synchronised steps, their long-message algorithm):
//     L + (p-1)(alpha + m beta);
//   - point to point: L + alpha + n beta.
//
// A step's messages wait for the data they forward: in a ring a GPU sends
// step s+1 only once step s's message from its predecessor has arrived.

// allReduce reduces n bytes over the GPUs of group (in ring order),
// starting at t, and returns when every GPU has the result.
func (f *fabric) allReduce(t unit.Duration, group []int, n unit.Bytes) unit.Duration {
	p := len(group)
	if p <= 1 || n <= 0 {
		return t
	}
	switch f.allReduceAlgo(p, n) {
	case AlgoRecursiveDoubling:
		return f.recursiveDoubling(t, group, n)
	}
	return f.ringAllReduce(t, group, n)
}

// allReduceAlgo picks the algorithm: the configured one, or under auto the
// one with the smaller idle-fabric cost (recursive doubling needs a power
// of two).
func (f *fabric) allReduceAlgo(p int, n unit.Bytes) string {
	pow2 := p&(p-1) == 0
	switch f.spec.AllReduce {
	case AlgoRing:
		return AlgoRing
	case AlgoRecursiveDoubling:
		if pow2 {
			return AlgoRecursiveDoubling
		}
		return AlgoRing
	}
	if !pow2 {
		return AlgoRing
	}
	l := f.spec.ScaleUp.Link // the estimate uses the scale-up port; the simulation uses each message's path
	if f.spec.ScaleUp.Kind == ScaleUpPCIe {
		l = f.spec.PCIe
	}
	ring := RingAllReduceTime(p, n, l.Latency, l.Rate, 0)
	rd := RecursiveDoublingTime(p, n, l.Latency, l.Rate, 0)
	if rd < ring {
		return AlgoRecursiveDoubling
	}
	return AlgoRing
}

// readyAt is p GPUs all ready at t.
func readyAt(t unit.Duration, p int) []unit.Duration {
	out := make([]unit.Duration, p)
	for i := range out {
		out[i] = t
	}
	return out
}

// segments splits n bytes into p parts, the first n mod p one byte larger.
func segments(n unit.Bytes, p int) []unit.Bytes {
	out := make([]unit.Bytes, p)
	q, r := n/unit.Bytes(p), n%unit.Bytes(p)
	for i := range out {
		out[i] = q
		if unit.Bytes(i) < r {
			out[i]++
		}
	}
	return out
}

func (f *fabric) ringAllReduce(t unit.Duration, group []int, n unit.Bytes) unit.Duration {
	return f.ring(t, group, segments(n, len(group)), 2*(len(group)-1))
}

// ring runs steps of a ring algorithm: at step s, the GPU at ring position
// r sends segment (r - s) mod p to position r+1, once it has received its
// predecessor's step s-1 message.
func (f *fabric) ring(t unit.Duration, group []int, seg []unit.Bytes, steps int) unit.Duration {
	p := len(group)
	t += f.spec.CollectiveLatency
	ready, next := readyAt(t, p), make([]unit.Duration, p)
	end := t
	for s := range steps {
		for r := range p {
			k := ((r-s)%p + p) % p
			at := f.send(ready[r], group[r], group[(r+1)%p], seg[k])
			next[(r+1)%p] = at
			end = max(end, at)
		}
		ready, next = next, ready
	}
	return end
}

func (f *fabric) recursiveDoubling(t unit.Duration, group []int, n unit.Bytes) unit.Duration {
	p := len(group)
	t += f.spec.CollectiveLatency
	ready, next := readyAt(t, p), make([]unit.Duration, p)
	end := t
	for d := 1; d < p; d <<= 1 {
		for r := range p {
			at := f.send(ready[r], group[r], group[r^d], n)
			next[r^d] = max(at, ready[r^d])
			end = max(end, at)
		}
		ready, next = next, ready
	}
	return end
}

// allGather gathers n bytes in all (n/p from each GPU) around the ring.
func (f *fabric) allGather(t unit.Duration, group []int, n unit.Bytes) unit.Duration {
	p := len(group)
	if p <= 1 || n <= 0 {
		return t
	}
	return f.ring(t, group, segments(n, p), p-1)
}

// allToAll exchanges m[i][j] bytes from group[i] to group[j] (the diagonal
// stays on its GPU) and returns when the last message has arrived.
func (f *fabric) allToAll(t unit.Duration, group []int, m [][]unit.Bytes) unit.Duration {
	p := len(group)
	if p <= 1 {
		return t
	}
	t += f.spec.CollectiveLatency
	end := t
	if f.spec.AllToAll == AlgoPairwise {
		ready, next := readyAt(t, p), make([]unit.Duration, p)
		for k := 1; k < p; k++ {
			for i := range p {
				j := (i + k) % p
				at := f.send(ready[i], group[i], group[j], m[i][j])
				next[j] = max(next[j], at)
				next[i] = max(next[i], at)
				end = max(end, at)
			}
			for i := range p {
				ready[i], next[i] = max(ready[i], next[i]), 0
			}
		}
		return end
	}
	for k := 1; k < p; k++ { // posted in shift order: at round k every GPU sends to a different peer
		for i := range p {
			end = max(end, f.send(t, group[i], group[(i+k)%p], m[i][(i+k)%p]))
		}
	}
	return end
}

// p2p sends n bytes from GPU i to GPU j.
func (f *fabric) p2p(t unit.Duration, i, j int, n unit.Bytes) unit.Duration {
	if i == j || n <= 0 {
		return t
	}
	return f.send(t+f.spec.CollectiveLatency, i, j, n)
}

// RingAllReduceTime is the ring all-reduce's alpha-beta cost on an idle
// fabric whose messages all have latency alpha and rate r:
// L + 2(p-1)(alpha + ceil(n/p)/r), each message's transfer rounded up to
// the nanosecond as the simulation rounds it.
func RingAllReduceTime(p int, n unit.Bytes, alpha unit.Duration, r unit.BytesPerSecond, l unit.Duration) unit.Duration {
	if p <= 1 || n <= 0 {
		return 0
	}
	seg := (n + unit.Bytes(p) - 1) / unit.Bytes(p)
	return l + unit.Duration(2*(p-1))*(alpha+unit.TransferTime(seg, r))
}

// RecursiveDoublingTime is the recursive-doubling all-reduce's cost:
// L + log2(p)(alpha + n/r), p a power of two.
func RecursiveDoublingTime(p int, n unit.Bytes, alpha unit.Duration, r unit.BytesPerSecond, l unit.Duration) unit.Duration {
	if p <= 1 || n <= 0 {
		return 0
	}
	return l + unit.Duration(bits.Len(uint(p))-1)*(alpha+unit.TransferTime(n, r))
}

// RingAllGatherTime is the ring all-gather's cost: L + (p-1)(alpha + ceil(n/p)/r).
func RingAllGatherTime(p int, n unit.Bytes, alpha unit.Duration, r unit.BytesPerSecond, l unit.Duration) unit.Duration {
	if p <= 1 || n <= 0 {
		return 0
	}
	seg := (n + unit.Bytes(p) - 1) / unit.Bytes(p)
	return l + unit.Duration(p-1)*(alpha+unit.TransferTime(seg, r))
}

// AllToAllTime is the concurrent all-to-all's cost with m bytes to each
// peer: L + (p-1) m/r + alpha.
func AllToAllTime(p int, m unit.Bytes, alpha unit.Duration, r unit.BytesPerSecond, l unit.Duration) unit.Duration {
	if p <= 1 || m <= 0 {
		return 0
	}
	return l + unit.Duration(p-1)*unit.TransferTime(m, r) + alpha
}

// PairwiseAllToAllTime is the pairwise-exchange all-to-all's cost:
// L + (p-1)(alpha + m/r).
func PairwiseAllToAllTime(p int, m unit.Bytes, alpha unit.Duration, r unit.BytesPerSecond, l unit.Duration) unit.Duration {
	if p <= 1 || m <= 0 {
		return 0
	}
	return l + unit.Duration(p-1)*(alpha+unit.TransferTime(m, r))
}

// P2PTime is a point-to-point message's cost: L + alpha + n/r.
func P2PTime(n unit.Bytes, alpha unit.Duration, r unit.BytesPerSecond, l unit.Duration) unit.Duration {
	if n <= 0 {
		return 0
	}
	return l + alpha + unit.TransferTime(n, r)
}
