package sim

import (
	"fmt"
	"math"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// The engine's form of the route table (dash.RouteTable): each route a
// list of hops the engine carries out one after the other. A hop is a
// transfer on a FIFO server (a link direction or a DRAM array) or the
// program of a page wave, with the SRAM pools it takes before it starts
// and frees when it ends; a sensed read's first two hops (the NAND sense
// and the TSV crossing into SRAM) are the HBF stack's own machinery
// (engine.go: page waves, the cache register, backpressure), which hands
// each chunk on to the route's next hop. Nothing in the engine asks what
// kind of route a chunk is on.

// hop is one transfer of a route as the engine carries it out.
type hop struct {
	// link is the link direction crossed (index into engine.links), or
	// -1; dram the DRAM array (index into engine.hbm) when link is -1;
	// program the HBF stack whose page wave the chunk joins (a route's last
	// hop), or -1.
	link, dram, program int32
	rate                unit.BytesPerSecond
	// take are the pools taken before it starts (in order), free those
	// freed when it ends.
	take, free []int32
	// gated: the transfer into the GPU, which waits for the consumer.
	gated bool
	// lead is a time each chunk holds the server before its transfer (the
	// serial reading's t_R; dash.Hop.Lead).
	lead Time
}

// route is one route of the table.
type route struct {
	kind Route
	hops []hop
	// sense is the HBF stack a read senses (its hops start after the TSV
	// crossing), or -1: the route starts at hops[0] chunk by chunk.
	sense int32
	// pair is the stack pair it serves (traces).
	pair int32
	// chunk is the size of its chunks: the transfer chunk when it passes
	// an HBF base die, the HBM chunk otherwise.
	chunk unit.Bytes
	// toGPU: it ends with a delivery into the GPU (a read).
	toGPU bool
	// dramRead: a read issued chunk by chunk from a DRAM array (the
	// decode KV in HBM, whose size the forked kernels correct).
	dramRead bool
	// gate is the index of its gated hop, -1 when none.
	gate int
	// uses are the resources it loads, for the read splits (indices into
	// routing.rate: the table's resources), and cost what a byte costs
	// each, in seconds: 1/rate of a link, array or TSV it crosses; for an
	// SRAM pool, the time a chunk holds its region per byte, the sum of
	// 1/rate over the hops from the one that takes it to the one that
	// frees it (a pool of n regions passes at most n/cost bytes a second).
	uses []int32
	cost []float64
	// own is a read route's own rate (ownRates), which caps what the
	// interleave feeds it.
	own float64
	// lag is what a byte of its first chunk costs beyond its slowest
	// server: the sum of cost over the servers it crosses (links, arrays,
	// TSVs) less the largest. A chunk crosses them one after the other
	// (store and forward), so a route's last byte arrives at least a
	// chunk's lag after its slowest server is done (see assignExperts).
	lag float64
}

// waiter is a chunk waiting for a pool region: it resumes hop hop of its
// route, taking the hop's pools from next on.
type waiter struct {
	seg  seg
	hop  int32
	next int32
}

// pool is an SRAM region pool: free regions (in transfer chunks) and the
// chunks waiting for one, reads ahead of writes (wait[0], wait[1]). A
// chunk takes a region only when one is free and none waits (a region
// freed goes to a waiter at once, so free > 0 means none waits).
type pool struct {
	free int
	wait [2][]waiter
	// tsv is the HBF stack whose TSV fills this pool (its transfer SRAM):
	// the TSV, which waits for a region in the stack's cache-register
	// order (hbfStack.tsvWait), is served first. -1 for a relay SRAM.
	tsv int32
}

// routing is the compiled table: the routes, the engine's resources, and
// which routes carry what.
type routing struct {
	routes []route
	// links are the link directions (engine.links): their results label,
	// pair and rate.
	links []linkInfo
	// pools are the pool sizes in transfer chunks and the HBF stack each
	// transfer SRAM belongs to (-1: relay SRAM).
	poolSlots []int
	poolTSV   []int32
	// sramPool[c] is HBF stack c's transfer SRAM pool.
	sramPool []int32
	// hbmRead[i] is HBM stack i's read route; hbmWrite[i] its write route;
	// writeback[i] the route of its KV to HBF (-1: none).
	hbmRead, hbmWrite, writeback []int32
	// hbfRead[c] are HBF stack c's read routes (slot order: the table's);
	// hbfWrite[c] its write routes; gather[c] and write[c] the routes its
	// gathered rows and written KV take, the fastest of their sets.
	hbfRead, hbfWrite [][]int32
	gather, write     []int32
	nHBM, nHBF, pairs int
	// rate is every table resource's rate (0 for SRAM pools, +Inf for an
	// unbounded NAND read pipeline); cap what it offers a second: 1 for a
	// server (it is busy at most all the time), its regions for a pool.
	rate, cap []float64
	// feed[c] is what HBF stack c's array and TSV can sense and fill a
	// second, the rate its read routes share.
	feed []float64
	// cellHBM[c] are pair c's HBM stacks; cellHBF[c] its HBF stack (-1:
	// none).
	cellHBM [][]int32
	cellHBF []int32
	// tsvRes[c] is HBF stack c's TSV (a table resource), which every read
	// of the stack crosses: the split puts the wait for its programs there.
	tsvRes []int32
}

// linkInfo is one link direction.
type linkInfo struct {
	label string
	pair  int
	rate  unit.BytesPerSecond
}

// compileRoutes turns the experiment's route table into the engine's form.
// seg is the transfer chunk, hbmChunk the HBM chunk.
func compileRoutes(t dash.RouteTable, seg, hbmChunk unit.Bytes) (routing, error) {
	rt := routing{nHBM: t.HBMStacks, nHBF: t.HBFStacks, pairs: t.Pairs}
	linkOf := map[int]int32{}
	poolOf := map[int]int32{}
	dramOf := map[int]int32{}
	nandOf := map[int]int32{}
	rt.rate, rt.cap = make([]float64, len(t.Resources)), make([]float64, len(t.Resources))
	rt.tsvRes = fill(t.HBFStacks)
	for i, r := range t.Resources {
		rt.cap[i] = 1
		if r.Kind != dash.ResourceSRAM {
			rt.rate[i] = float64(r.Rate)
		}
		switch r.Kind {
		case dash.ResourceLink:
			linkOf[i] = int32(len(rt.links))
			rt.links = append(rt.links, linkInfo{label: r.Label, pair: r.Pair, rate: r.Rate})
		case dash.ResourceSRAM:
			slots := int(unit.Bytes(r.Regions) * r.RegionSize / seg)
			if slots < 1 {
				return rt, fmt.Errorf("sim: %s (%d x %v) is smaller than one transfer chunk (%v)", r.Name, r.Regions, r.RegionSize, seg)
			}
			rt.cap[i] = float64(slots)
			poolOf[i] = int32(len(rt.poolSlots))
			stack := int32(-1)
			if r.From.Kind == dash.NodeHBF {
				stack = int32(r.From.Index)
				rt.sramPool = append(rt.sramPool, int32(len(rt.poolSlots)))
			}
			rt.poolSlots = append(rt.poolSlots, slots)
			rt.poolTSV = append(rt.poolTSV, stack)
		case dash.ResourceDRAM:
			dramOf[i] = int32(r.From.Index)
		case dash.ResourceNAND:
			nandOf[i] = int32(r.From.Index)
		case dash.ResourceTSV:
			rt.tsvRes[r.From.Index] = int32(i)
		}
	}
	pools := func(ids []int) []int32 {
		out := make([]int32, len(ids))
		for k, id := range ids {
			out[k] = poolOf[id]
		}
		return out
	}
	rt.hbmRead, rt.hbmWrite, rt.writeback = fill(t.HBMStacks), fill(t.HBMStacks), fill(t.HBMStacks)
	rt.hbfRead, rt.hbfWrite = make([][]int32, t.HBFStacks), make([][]int32, t.HBFStacks)
	for id, tr := range t.Routes {
		r := route{kind: tr.Kind, sense: -1, pair: int32(tr.Pair), chunk: hbmChunk, toGPU: tr.Reads(), gate: -1}
		hops := tr.Hops
		r.uses, r.cost = costs(t, tr, seg)
		var sum, most float64
		for q, j := range r.uses {
			if rt.rate[j] > 0 {
				sum, most = sum+r.cost[q], max(most, r.cost[q])
			}
		}
		r.lag = sum - most
		first := t.Resources[hops[0].Resource]
		if first.Kind == dash.ResourceNAND { // a sensed read: the stack's machinery up to SRAM
			r.sense = nandOf[hops[0].Resource]
			hops = hops[2:]
		}
		for k := 0; k < len(hops); k++ {
			th := hops[k]
			res := t.Resources[th.Resource]
			h := hop{link: -1, dram: -1, program: -1, rate: res.Rate, take: pools(th.Take), free: pools(th.Free), gated: th.IntoGPU, lead: th.Lead}
			switch res.Kind {
			case dash.ResourceLink:
				h.link = linkOf[th.Resource]
			case dash.ResourceDRAM:
				h.dram = dramOf[th.Resource]
			case dash.ResourceTSV: // the TSV crossing and program of a page wave: the route's end
				if k+1 >= len(hops) || t.Resources[hops[k+1].Resource].Kind != dash.ResourceNAND {
					return rt, fmt.Errorf("sim: route %d (%v): a TSV crossing that is not followed by a program", id, tr.Kind)
				}
				h.program = nandOf[hops[k+1].Resource]
				k++
			default:
				return rt, fmt.Errorf("sim: route %d (%v): %v hop %s in its middle", id, tr.Kind, res.Kind, res.Name)
			}
			if len(th.Take) > 0 || len(th.Free) > 0 || r.sense >= 0 {
				r.chunk = seg // it passes an HBF base die
			}
			if h.gated {
				r.gate = len(r.hops)
			}
			r.hops = append(r.hops, h)
		}
		for _, h := range r.hops {
			if len(h.take) > 0 || len(h.free) > 0 {
				r.chunk = seg
			}
		}
		r.dramRead = r.toGPU && r.sense < 0 && r.hops[0].dram >= 0
		rt.routes = append(rt.routes, r)
		switch {
		case tr.From.Kind == dash.NodeHBM && tr.To.Kind == dash.NodeGPU:
			rt.hbmRead[tr.From.Index] = int32(id)
		case tr.From.Kind == dash.NodeGPU && tr.To.Kind == dash.NodeHBM:
			rt.hbmWrite[tr.To.Index] = int32(id)
		case tr.From.Kind == dash.NodeHBM && tr.To.Kind == dash.NodeHBF:
			rt.writeback[tr.From.Index] = int32(id)
		case tr.From.Kind == dash.NodeHBF && tr.To.Kind == dash.NodeGPU:
			rt.hbfRead[tr.From.Index] = append(rt.hbfRead[tr.From.Index], int32(id))
		case tr.From.Kind == dash.NodeGPU && tr.To.Kind == dash.NodeHBF:
			rt.hbfWrite[tr.To.Index] = append(rt.hbfWrite[tr.To.Index], int32(id))
		}
	}
	h := 1
	if t.Pairs > 0 {
		h = t.HBMStacks / t.Pairs
	}
	for c := range t.Pairs {
		var hbm []int32
		for k := range h {
			hbm = append(hbm, int32(c*h+k))
		}
		rt.cellHBM = append(rt.cellHBM, hbm)
		f := int32(-1)
		if c < t.HBFStacks {
			f = int32(c)
		}
		rt.cellHBF = append(rt.cellHBF, f)
	}
	return rt, nil
}

// costs are the resources route tr loads and what a byte costs each (see
// route.uses): 1/rate, and on a hop with a lead (the serial reading's t_R,
// held per transfer chunk of seg bytes) lead/seg more.
func costs(t dash.RouteTable, tr dash.Route, seg unit.Bytes) (uses []int32, cost []float64) {
	held := map[int]int{} // pool -> index in uses
	for _, h := range tr.Hops {
		res := t.Resources[h.Resource]
		for _, p := range h.Take {
			held[p] = len(uses)
			uses = append(uses, int32(p))
			cost = append(cost, 0)
		}
		if per := 1/float64(res.Rate) + h.Lead.Seconds()/float64(seg); per > 0 && !math.IsInf(per, 1) && res.Kind != dash.ResourceSRAM {
			uses = append(uses, int32(h.Resource))
			cost = append(cost, per)
			for _, k := range held {
				cost[k] += per
			}
		}
		for _, p := range h.Free {
			delete(held, p)
		}
	}
	return uses, cost
}

func fill(n int) []int32 {
	out := make([]int32, n)
	for i := range out {
		out[i] = -1
	}
	return out
}

// loadHBMReads adds to load (seconds of each resource, by resource id) the
// HBM reads of b bytes, spread over the HBM stacks' read routes as the
// engine issues them, appends to touched each resource it loads from zero,
// and returns touched. The expert assignment and the recorded routing
// statistics both cost HBM reads this way.
func (rt *routing) loadHBMReads(b unit.Bytes, load []float64, touched []int32) []int32 {
	for i, id := range rt.hbmRead {
		if id < 0 {
			continue
		}
		part := float64(perStack(b, rt.nHBM, i))
		rr := &rt.routes[id]
		for q, j := range rr.uses {
			if load[j] == 0 {
				touched = append(touched, j)
			}
			load[j] += part * rr.cost[q]
		}
	}
	return touched
}
