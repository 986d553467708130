package cluster

import (
	"testing"

	"github.com/dashlab/dashlab/dash/unit"
)

// testInterconnect is an HGX-like node's interconnect with round numbers.
func testInterconnect() InterconnectSpec {
	return InterconnectSpec{
		ScaleUp:           ScaleUpSpec{Kind: ScaleUpNVSwitch, Link: LinkSpec{Rate: 450 * unit.GBps, Latency: 2 * unit.Microsecond}},
		PCIe:              LinkSpec{Rate: 64 * unit.GBps, Latency: 3 * unit.Microsecond},
		Network:           NetworkSpec{NICsPerNode: 8, Link: LinkSpec{Rate: 50 * unit.GBps, Latency: 5 * unit.Microsecond}},
		CollectiveLatency: 7 * unit.Microsecond,
	}
}

func seq(n, from int) []int {
	g := make([]int, n)
	for i := range g {
		g[i] = from + i
	}
	return g
}

// On an idle fabric every collective takes exactly its alpha-beta cost.
func TestCollectivesOnAnIdleFabricAreTheFormula(t *testing.T) {
	ic := testInterconnect()
	su, nic, l := ic.ScaleUp.Link, ic.Network.Link, ic.CollectiveLatency
	const t0 = 1000 * unit.Nanosecond
	for _, p := range []int{2, 3, 4, 8} {
		for _, n := range []unit.Bytes{8 * unit.KiB, 3 * unit.MiB, 64 * unit.MiB} {
			n := n / unit.Bytes(p) * unit.Bytes(p) // whole segments: every step carries the same bytes
			for _, algo := range []string{AlgoRing, AlgoRecursiveDoubling} {
				ic.AllReduce = algo
				f := newFabric(ic, 1, 8)
				want := RingAllReduceTime(p, n, su.Latency, su.Rate, l)
				if algo == AlgoRecursiveDoubling && p&(p-1) == 0 {
					want = RecursiveDoublingTime(p, n, su.Latency, su.Rate, l)
				}
				if got := f.allReduce(t0, seq(p, 0), n) - t0; got != want {
					t.Errorf("all-reduce %s p=%d n=%v: %v, formula %v", algo, p, n, got, want)
				}
			}
			f := newFabric(ic, 1, 8)
			if got, want := f.allGather(t0, seq(p, 0), n)-t0, RingAllGatherTime(p, n, su.Latency, su.Rate, l); got != want {
				t.Errorf("all-gather p=%d n=%v: %v, formula %v", p, n, got, want)
			}
			m := make([][]unit.Bytes, p)
			for i := range m {
				m[i] = make([]unit.Bytes, p)
				for j := range m[i] {
					m[i][j] = n / unit.Bytes(p)
				}
			}
			for _, algo := range []string{AlgoConcurrent, AlgoPairwise} {
				ic.AllToAll = algo
				f := newFabric(ic, 1, 8)
				want := AllToAllTime(p, n/unit.Bytes(p), su.Latency, su.Rate, l)
				if algo == AlgoPairwise {
					want = PairwiseAllToAllTime(p, n/unit.Bytes(p), su.Latency, su.Rate, l)
				}
				if got := f.allToAll(t0, seq(p, 0), m) - t0; got != want {
					t.Errorf("all-to-all %s p=%d m=%v: %v, formula %v", algo, p, n/unit.Bytes(p), got, want)
				}
			}
			ic.AllToAll = ""
			// Between nodes the message crosses PCIe, the NICs and PCIe: the NIC is the slowest.
			f = newFabric(ic, 2, 8)
			if got, want := f.p2p(t0, 3, 11, n)-t0, P2PTime(n, nic.Latency, nic.Rate, l); got != want {
				t.Errorf("p2p across nodes n=%v: %v, formula %v", n, got, want)
			}
		}
	}
	// An uneven ring is bounded by its largest segment.
	f := newFabric(ic, 1, 8)
	if got, bound := f.allReduce(0, seq(3, 0), 1000), RingAllReduceTime(3, 1000, su.Latency, su.Rate, l); got > bound || got < bound-4 {
		t.Errorf("uneven ring: %v, bound %v", got, bound)
	}
}

// Bytes are conserved: what the collectives send is what the ports carry,
// each message crossing every port of its path once.
func TestFabricConservesBytes(t *testing.T) {
	ic := testInterconnect()
	f := newFabric(ic, 2, 8)
	g := seq(16, 0)
	m := make([][]unit.Bytes, 16)
	var sent unit.Bytes
	var crossings unit.Bytes
	for i := range m {
		m[i] = make([]unit.Bytes, 16)
		for j := range m[i] {
			m[i][j] = unit.Bytes(1000 * (i + 2*j + 1))
			if i != j {
				sent += m[i][j]
				crossings += m[i][j] * unit.Bytes(f.path(i, j).n)
			}
		}
	}
	f.allToAll(0, g, m)
	var carried unit.Bytes
	for _, s := range f.stats() {
		carried += s.Bytes
	}
	if carried != crossings || f.messages != 16*15 {
		t.Errorf("all-to-all of %v: ports carried %v, want %v over %d messages (got %d)", sent, carried, crossings, 16*15, f.messages)
	}
}

// Contention: two messages from GPUs sharing a NIC queue on it; on
// separate NICs they do not.
func TestSharedNICQueues(t *testing.T) {
	ic := testInterconnect()
	n := 10 * unit.MiB
	one := P2PTime(n, ic.Network.Link.Latency, ic.Network.Link.Rate, ic.CollectiveLatency)
	for _, nics := range []int{8, 4} {
		ic.Network.NICsPerNode = nics
		f := newFabric(ic, 2, 8)
		a := f.p2p(0, 0, 8, n)
		b := f.p2p(0, 1, 9, n)
		shared := nics < 8
		if shared && b <= a || !shared && (a != one || b != one) {
			t.Errorf("%d NICs: arrivals %v and %v (alone %v)", nics, a, b, one)
		}
	}
}

// A faster port never delays a collective.
func TestFasterFabricIsNeverSlower(t *testing.T) {
	base := testInterconnect()
	g := seq(16, 0)
	run := func(ic InterconnectSpec) unit.Duration {
		f := newFabric(ic, 2, 8)
		t := f.allReduce(0, g, 6*unit.MiB)
		m := make([][]unit.Bytes, 16)
		for i := range m {
			m[i] = make([]unit.Bytes, 16)
			for j := range m[i] {
				m[i][j] = unit.Bytes(5000 * ((i*7 + j*3) % 11))
			}
		}
		t = f.allToAll(t, g, m)
		return f.p2p(t, 2, 13, unit.MiB)
	}
	ref := run(base)
	for _, scale := range []float64{1.5, 2, 10} {
		for k := range 3 {
			ic := base
			switch k {
			case 0:
				ic.ScaleUp.Link.Rate = unit.BytesPerSecond(float64(ic.ScaleUp.Link.Rate) * scale)
			case 1:
				ic.Network.Link.Rate = unit.BytesPerSecond(float64(ic.Network.Link.Rate) * scale)
			case 2:
				ic.PCIe.Rate = unit.BytesPerSecond(float64(ic.PCIe.Rate) * scale)
			}
			if got := run(ic); got > ref {
				t.Errorf("port kind %d x%v: %v, slower than %v", k, scale, got, ref)
			}
		}
	}
}
