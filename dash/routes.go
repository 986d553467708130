package dash

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/dashlab/dashlab/dash/unit"
)

// The route table: a memory system compiled to data.
//
// Every resource data cross is listed with its own rate: each direction of
// each link, each HBM stack's DRAM array, each HBF stack's NAND array and
// shared TSV, and the SRAM region pools of the HBF base dies (transfer
// SRAM) and HBM base dies (relay SRAM). A route is the list of hops a chunk
// takes from one memory to the GPU, from the GPU to a memory, or from HBM to
// HBF (writeback); the paper's seven routes are just the paths the topology
// has. The engine (package sim) moves a chunk to its route's next hop and
// never asks what kind of route it is on.

// NodeKind is what a node of the package is.
type NodeKind uint8

// The node kinds.
const (
	NodeGPU NodeKind = iota
	NodeHBM
	NodeHBF
)

// Node is the GPU or one stack.
type Node struct {
	Kind NodeKind
	// Index is the stack's index among the stacks of its memory (0 for the
	// GPU).
	Index int
}

// String is "gpu", "hbm1" or "hbf0".
func (n Node) String() string {
	switch n.Kind {
	case NodeGPU:
		return "gpu"
	case NodeHBM:
		return "hbm" + strconv.Itoa(n.Index)
	}
	return "hbf" + strconv.Itoa(n.Index)
}

// ResourceKind is what a resource is.
type ResourceKind uint8

// The resource kinds.
const (
	// ResourceLink is one direction of a UCIe link: a FIFO server at its
	// usable rate.
	ResourceLink ResourceKind = iota
	// ResourceDRAM is an HBM stack's DRAM array (reads and writes).
	ResourceDRAM
	// ResourceNAND is an HBF stack's NAND array: it senses page waves
	// (Rate is its read rate, +Inf for an unbounded read pipeline) and
	// programs them (t_PROG a wave).
	ResourceNAND
	// ResourceTSV is an HBF stack's shared TSV bus between the core dies and
	// the base-die SRAM.
	ResourceTSV
	// ResourceSRAM is a pool of SRAM regions a chunk occupies while it
	// waits in a base die: an HBF stack's transfer SRAM or an HBM stack's
	// relay SRAM.
	ResourceSRAM
)

var resourceKindNames = [...]string{"link", "dram", "nand", "tsv", "sram"}

// String is the kind's name ("link").
func (k ResourceKind) String() string {
	if int(k) < len(resourceKindNames) {
		return resourceKindNames[k]
	}
	return fmt.Sprintf("resource(%d)", k)
}

// Resource is one resource of the route table.
type Resource struct {
	Kind ResourceKind
	// Name is unique in the table: "gpu<-hbm0" (a link direction, data
	// flowing from hbm0 to the GPU), "hbm0.dram", "hbf1.nand", "hbf1.tsv",
	// "hbf1.sram", "hbm0.relay_sram".
	Name string
	// Label is how results name a link direction within its pair
	// ("GPU<-HBM", "HBF->HBM"; with several HBM stacks per pair the stack's
	// place in it follows: "GPU<-HBM1").
	Label string
	// From and To are a link direction's ends; a stack's own resources have
	// From = To = the stack.
	From, To Node
	// Pair is the stack pair the resource belongs to.
	Pair int
	// Rate is the rate of a link direction, DRAM array, TSV or NAND array
	// (its read rate); Raw a link's raw rate.
	Rate, Raw unit.BytesPerSecond
	// Regions and RegionSize are an SRAM pool's regions.
	Regions    int
	RegionSize unit.Bytes
	// Field is the spec field that sets the rate or the regions, for
	// errors ("topology.gpu_hbf_usable", "hbm.array_bandwidth").
	Field string
}

// Hop is one transfer of a route: a link direction, a DRAM or NAND array
// or a TSV. Before it starts, the chunk takes a region of each pool in
// Take, in order (waiting at the first that has none free); when it ends,
// the chunk frees its regions of the pools in Free. A chunk therefore sits
// in a pool from the hop that takes it to the hop that frees it: reads
// take each buffer as they enter it (a relay read holds its HBF SRAM region
// until it has a relay region and has crossed into it), writes take every
// buffer on their way before they leave the GPU, HBF SRAM first, so that
// no two chunks each hold what the other waits for.
type Hop struct {
	// Resource is the index of the resource crossed.
	Resource int
	// Take and Free are pools (indices of ResourceSRAM resources).
	Take, Free []int
	// IntoGPU marks the transfer into the GPU: it starts only once the
	// operator that consumes the data has started (or, for early
	// expert delivery, once the chunk has room in the GPU's staging
	// buffer).
	IntoGPU bool
	// Lead is a time each chunk holds the hop's resource before its
	// transfer: t_R on the first link of a sensed read under the serial
	// reading (HBFSpec.ReadLead), else zero.
	Lead unit.Duration
}

// Route is one path through the package, hop by hop. A read starts at a
// DRAM array (HBM) or with a NAND sense and the TSV crossing into SRAM
// (HBF) and ends with the transfer into the GPU; a write starts with the
// transfer out of the GPU and ends in a DRAM array or with the TSV crossing
// and program of a NAND page wave; writeback starts at a DRAM array and
// ends in a NAND program.
type Route struct {
	// Kind is what results report the route as.
	Kind RouteKind
	// From and To are its ends.
	From, To Node
	// Via is the stack whose base die it passes through (Relay: the HBM
	// stack; writeback without an HBM-HBF link: the GPU); From when none.
	Via Node
	// Pair is the stack pair it serves.
	Pair int
	// Hops are its transfers in order.
	Hops []Hop
}

// Reads reports whether the route ends at the GPU.
func (r Route) Reads() bool { return r.To.Kind == NodeGPU }

// RouteTable is a memory system as data: its resources and routes (see
// [SystemSpec.RouteTable]).
type RouteTable struct {
	// Pairs, HBMStacks and HBFStacks count the stacks.
	Pairs, HBMStacks, HBFStacks int
	// Resources are every resource; Routes every route, in the order the
	// engine prefers them: for each memory stack the one with the fewest
	// hops first.
	Resources []Resource
	Routes    []Route
}

// From lists the indices of the routes that leave node n and end at a node
// of kind to (reads: to = NodeGPU), in the table's order.
func (t RouteTable) From(n Node, to NodeKind) []int {
	return t.where(func(r Route) bool { return r.From == n && r.To.Kind == to })
}

// Into lists the indices of the routes from a node of kind from that end at
// node n (writes: from = NodeGPU), in the table's order.
func (t RouteTable) Into(n Node, from NodeKind) []int {
	return t.where(func(r Route) bool { return r.To == n && r.From.Kind == from })
}

func (t RouteTable) where(keep func(Route) bool) []int {
	var out []int
	for i, r := range t.Routes {
		if keep(r) {
			out = append(out, i)
		}
	}
	return out
}

// Clone returns a copy of t that shares nothing with it.
func (t RouteTable) Clone() RouteTable {
	c := t
	c.Resources = slices.Clone(t.Resources)
	c.Routes = slices.Clone(t.Routes)
	for i := range c.Routes {
		c.Routes[i].Hops = slices.Clone(t.Routes[i].Hops)
		for k := range c.Routes[i].Hops {
			h := &c.Routes[i].Hops[k]
			h.Take, h.Free = slices.Clone(h.Take), slices.Clone(h.Free)
		}
	}
	return c
}

// RouteTableError is a route table that cannot carry a model's data: a
// memory the GPU cannot reach, a hop without a rate, a link faster than its
// raw rate, or a route that visits a node twice (a cycle). Field names the
// spec field to change.
type RouteTableError struct {
	// Field is the spec field ("topology.gpu_hbf", "topology.link_usable.gpu-hbf1").
	Field string
	// Problem says what is wrong.
	Problem string
}

func (e *RouteTableError) Error() string { return e.Field + ": " + e.Problem }

// RouteTable compiles the memory system into its route table and checks it
// (see [RouteTable.Validate]).
func (s SystemSpec) RouteTable() (RouteTable, error) {
	t := s.Topology
	if t.Pairs < 1 || t.Pairs > MaxPairs || t.PerPair() > MaxHBMPerPair {
		return RouteTable{}, &RouteTableError{Field: "topology.pairs", Problem: fmt.Sprintf("%d pairs of %d HBM stacks: outside 1..%d pairs of 1..%d", t.Pairs, t.PerPair(), MaxPairs, MaxHBMPerPair)}
	}
	b := tableBuilder{s: s, t: RouteTable{Pairs: t.Pairs, HBMStacks: t.HBMStacks(), HBFStacks: t.HBFStacks()}}
	b.build()
	return b.t, b.t.Validate()
}

// tableBuilder compiles one system.
type tableBuilder struct {
	s SystemSpec
	t RouteTable
	// resource indices
	dram, relay, nand, tsv, sram []int
	link                         map[[2]Node]int // direction from -> to
}

func (b *tableBuilder) add(r Resource) int {
	b.t.Resources = append(b.t.Resources, r)
	return len(b.t.Resources) - 1
}

func hbmNode(i int) Node { return Node{Kind: NodeHBM, Index: i} }
func hbfNode(i int) Node { return Node{Kind: NodeHBF, Index: i} }

var gpuNode = Node{Kind: NodeGPU}

// linkLabels are the results' names of a pair's link directions.
var linkLabels = map[[2]NodeKind]string{
	{NodeHBM, NodeGPU}: "GPU<-HBM", {NodeGPU, NodeHBM}: "GPU->HBM",
	{NodeHBF, NodeGPU}: "GPU<-HBF", {NodeGPU, NodeHBF}: "GPU->HBF",
	{NodeHBF, NodeHBM}: "HBF->HBM", {NodeHBM, NodeHBF}: "HBM->HBF",
}

func (b *tableBuilder) build() {
	s, t := b.s, b.s.Topology
	h := t.PerPair()
	nH, nF := t.HBMStacks(), t.HBFStacks()
	b.link = map[[2]Node]int{}
	for i := range nH {
		n := hbmNode(i)
		b.dram = append(b.dram, b.add(Resource{Kind: ResourceDRAM, Name: n.String() + ".dram", From: n, To: n, Pair: i / h,
			Rate: s.HBM.ArrayBandwidth, Field: "hbm.array_bandwidth"}))
		if nF > 0 && t.HBMHBF { // only what relays between HBF and the GPU needs it
			b.relay = append(b.relay, b.add(Resource{Kind: ResourceSRAM, Name: n.String() + ".relay_sram", From: n, To: n, Pair: i / h,
				Regions: s.HBM.RelaySRAM.Regions, RegionSize: s.HBM.RelaySRAM.RegionSize, Field: "hbm.relay_sram"}))
		}
	}
	for c := range nF {
		n := hbfNode(c)
		b.nand = append(b.nand, b.add(Resource{Kind: ResourceNAND, Name: n.String() + ".nand", From: n, To: n, Pair: c,
			Rate: s.HBF.ArrayReadBandwidth(), Field: "hbf.t_read"}))
		b.tsv = append(b.tsv, b.add(Resource{Kind: ResourceTSV, Name: n.String() + ".tsv", From: n, To: n, Pair: c,
			Rate: s.HBF.TSVBandwidth, Field: "hbf.tsv_bandwidth"}))
		b.sram = append(b.sram, b.add(Resource{Kind: ResourceSRAM, Name: n.String() + ".sram", From: n, To: n, Pair: c,
			Regions: s.HBF.SRAM.Regions, RegionSize: s.HBF.SRAM.RegionSize, Field: "hbf.sram"}))
	}
	// Link directions, pair by pair, in the order results list them.
	for _, l := range t.links() {
		rate, field := t.usable(l, s.Link.Usable)
		var a, z Node // a is the end away from the GPU, or the HBM stack
		switch l.kind {
		case LinkGPUHBM:
			a, z = hbmNode(l.hbm), gpuNode
		case LinkGPUHBF:
			a, z = hbfNode(l.hbf), gpuNode
		default:
			a, z = hbfNode(l.hbf), hbmNode(l.hbm)
		}
		for _, dir := range [][2]Node{{a, z}, {z, a}} {
			label := linkLabels[[2]NodeKind{dir[0].Kind, dir[1].Kind}]
			if h > 1 && l.kind != LinkGPUHBF {
				label += strconv.Itoa(l.k)
			}
			b.link[dir] = b.add(Resource{Kind: ResourceLink, Name: dir[1].String() + "<-" + dir[0].String(), Label: label,
				From: dir[0], To: dir[1], Pair: l.pair, Rate: rate, Raw: s.Link.Raw(), Field: field})
		}
	}
	b.routes()
}

// hop is a hop over the link direction from -> to (ok false when the
// topology lacks it).
func (b *tableBuilder) linkHop(from, to Node) (Hop, bool) {
	i, ok := b.link[[2]Node{from, to}]
	return Hop{Resource: i}, ok
}

func (b *tableBuilder) route(r Route) { b.t.Routes = append(b.t.Routes, r) }

// routes lists every route the links allow, in the engine's order of
// preference for each memory stack.
func (b *tableBuilder) routes() {
	t := b.s.Topology
	h := t.PerPair()
	nH, nF := t.HBMStacks(), t.HBFStacks()
	// HBM reads and writes.
	for i := range nH {
		m := hbmNode(i)
		if up, ok := b.linkHop(m, gpuNode); ok {
			up.IntoGPU = true
			b.route(Route{Kind: RouteHBM, From: m, To: gpuNode, Via: m, Pair: i / h, Hops: []Hop{{Resource: b.dram[i]}, up}})
		}
		if down, ok := b.linkHop(gpuNode, m); ok {
			b.route(Route{Kind: RouteHBMWrite, From: gpuNode, To: m, Via: gpuNode, Pair: i / h, Hops: []Hop{down, {Resource: b.dram[i]}}})
		}
	}
	for c := range nF {
		f := hbfNode(c)
		sense := []Hop{{Resource: b.nand[c]}, {Resource: b.tsv[c], Take: []int{b.sram[c]}}}
		program := []Hop{{Resource: b.tsv[c], Free: []int{b.sram[c]}}, {Resource: b.nand[c]}}
		// Direct: a read and a write over the GPU-HBF link.
		lead := b.s.HBF.ReadLead() // the serial reading's t_R, on the link a read leaves the stack by
		if out, ok := b.linkHop(f, gpuNode); ok {
			out.IntoGPU, out.Free, out.Lead = true, []int{b.sram[c]}, lead
			b.route(Route{Kind: RouteDirect, From: f, To: gpuNode, Via: f, Pair: c, Hops: cat(sense, out)})
		}
		if in, ok := b.linkHop(gpuNode, f); ok {
			in.Take = []int{b.sram[c]}
			b.route(Route{Kind: RouteDirectWrite, From: gpuNode, To: f, Via: gpuNode, Pair: c, Hops: cat([]Hop{in}, program...)})
		}
		// Through each HBM stack of the pair: Relay reads and writes, and
		// the writeback of the stack's KV to its pair's HBF stack, over the
		// HBM-HBF link, else as the GPU writes it (the engine's choice so
		// far: the KV leaves over the GPU-HBF link).
		for k := range h {
			i := c*h + k
			m := hbmNode(i)
			across, ok1 := b.linkHop(f, m)
			back, ok2 := b.linkHop(m, f)
			up, ok3 := b.linkHop(m, gpuNode)
			down, ok4 := b.linkHop(gpuNode, m)
			if ok1 && ok3 {
				across.Take, across.Free, across.Lead = []int{b.relay[i]}, []int{b.sram[c]}, lead
				up.IntoGPU, up.Free = true, []int{b.relay[i]}
				b.route(Route{Kind: RouteRelay, From: f, To: gpuNode, Via: m, Pair: c, Hops: cat(sense, across, up)})
			}
			if ok2 && ok4 {
				down.Take = []int{b.sram[c], b.relay[i]}
				fwd := back
				fwd.Free = []int{b.relay[i]}
				b.route(Route{Kind: RouteRelayWrite, From: gpuNode, To: f, Via: m, Pair: c, Hops: cat([]Hop{down, fwd}, program...)})
			}
			if ok2 {
				back.Take = []int{b.sram[c]}
				b.route(Route{Kind: RouteWriteback, From: m, To: f, Via: m, Pair: c, Hops: cat([]Hop{{Resource: b.dram[i]}, back}, program...)})
			} else if in, ok := b.linkHop(gpuNode, f); ok {
				in.Take = []int{b.sram[c]}
				b.route(Route{Kind: RouteDirectWrite, From: m, To: f, Via: gpuNode, Pair: c, Hops: cat([]Hop{in}, program...)})
			}
		}
	}
}

func cat(a []Hop, more ...Hop) []Hop { return append(append([]Hop(nil), a...), more...) }

// Validate checks that the table can carry a model's data: every HBM stack
// is read and written from the GPU, every HBF stack read and written; every
// hop has a positive rate; no link's usable rate exceeds its raw rate; no
// route visits a node twice; and no chunk can wait for a pool region while
// holding one another chunk waits for (the pools are taken in one order).
// Each problem is a *RouteTableError naming the spec field.
func (t RouteTable) Validate() error {
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, &RouteTableError{Field: field, Problem: fmt.Sprintf(format, a...)})
	}
	for i := range t.HBMStacks {
		n := hbmNode(i)
		if len(t.From(n, NodeGPU)) == 0 {
			bad("topology.gpu_hbm", "%s is unreachable: the GPU cannot read HBM, which holds activations and decode KV", n)
		}
		if len(t.Into(n, NodeGPU)) == 0 {
			bad("topology.gpu_hbm", "%s cannot be written: the GPU cannot append decode KV to HBM", n)
		}
	}
	for c := range t.HBFStacks {
		n := hbfNode(c)
		if len(t.From(n, NodeGPU)) == 0 {
			bad("topology.gpu_hbf", "%s is unreachable: enable gpu_hbf (Direct) or hbm_hbf with gpu_hbm (Relay)", n)
		}
		if len(t.Into(n, NodeGPU)) == 0 {
			bad("topology.gpu_hbf", "%s cannot be written: the prefill KV needs gpu_hbf or hbm_hbf with gpu_hbm", n)
		}
	}
	for _, r := range t.Resources {
		switch r.Kind {
		case ResourceSRAM:
			if r.Regions < 1 || r.RegionSize < 1 {
				bad(r.Field, "%s has %d regions of %v: a pool needs at least one region", r.Name, r.Regions, r.RegionSize)
			}
		default:
			if !(r.Rate > 0) || math.IsNaN(float64(r.Rate)) {
				bad(r.Field, "%s = %v: a hop with zero rate carries nothing", r.Name, r.Rate)
			}
		}
		if r.Kind == ResourceLink && r.Rate > r.Raw {
			bad(r.Field, "%s at %v exceeds the raw rate %v of the link part (link.modules x lanes_per_module x gt_per_second / 8)", r.Name, r.Rate, r.Raw)
		}
	}
	order := map[[2]int]bool{} // pool a held while b is taken
	for ri, r := range t.Routes {
		seen := map[Node]bool{r.From: true}
		for _, h := range r.Hops {
			if h.Resource < 0 || h.Resource >= len(t.Resources) {
				bad("route table", "route %d (%v %v -> %v) crosses resource %d of %d", ri, r.Kind, r.From, r.To, h.Resource, len(t.Resources))
				continue
			}
			res := t.Resources[h.Resource]
			if res.Kind == ResourceLink {
				if seen[res.To] {
					bad(res.Field, "route %v %v -> %v visits %s twice: a cycle", r.Kind, r.From, r.To, res.To)
				}
				seen[res.To] = true
			}
		}
		var held []int
		for _, h := range r.Hops {
			for _, p := range h.Take {
				for _, q := range held {
					order[[2]int{q, p}] = true
				}
				held = append(held, p)
			}
			for _, p := range h.Free {
				for k, q := range held {
					if q == p {
						held = append(held[:k], held[k+1:]...)
						break
					}
				}
			}
		}
	}
	for pq := range order {
		if order[[2]int{pq[1], pq[0]}] {
			a, z := t.Resources[pq[0]], t.Resources[pq[1]]
			bad(a.Field, "routes take %s while holding %s and %s while holding %s: a cycle of waits (deadlock)", z.Name, a.Name, a.Name, z.Name)
			break
		}
	}
	return errors.Join(errs...)
}
