package cluster

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Expert placement policies over the GPUs of a stage.
const (
	// PlaceContiguous puts experts in id order, slots at a time, on GPU
	// 0, 1, ... (the layout of vLLM's and Megatron's expert parallelism);
	// each GPU places its own experts over its HBM and HBF as a single GPU
	// does (the paper's §V-A).
	PlaceContiguous = "contiguous"
	// PlacePopularity balances the expected load: experts in decreasing
	// popularity, each to the GPU with the least load so far that has a
	// free slot (longest-processing-time-first list scheduling, Graham
	// 1969), layer by layer.
	PlacePopularity = "popularity"
	// PlaceReplicated is PlacePopularity with redundant slots: the
	// hottest experts get one more copy each while slots are left, their
	// rows split evenly over the copies (DeepSeek-V3's redundant experts,
	// its EPLB balancer).
	PlaceReplicated = "replicated"
)

// PlacementSpec is the expert placement over the GPUs of a stage.
type PlacementSpec struct {
	// Policy is contiguous (default), popularity or replicated.
	Policy string `yaml:"policy,omitempty" knob:"| expert placement over a stage's GPUs (empty: contiguous) | contiguous, popularity, replicated | vLLM/Megatron (contiguous); Graham 1969 (popularity); DeepSeek-V3 EPLB (replicated)"`
	// Slots is the experts one GPU holds per MoE layer (0: routed experts
	// / expert degree). More than that leaves room for redundant copies
	// (replicated); it may not exceed the routed experts, and slots x
	// expert degree must hold every expert.
	Slots int `yaml:"slots,omitempty" knob:"| experts one GPU holds per MoE layer (0: routed experts / expert degree; more: redundant copies) | 0..4096 | DeepSeek-V3 §3.4 (redundant experts)"`
}

// RoutingSpec is the distribution of tokens over experts the cluster's
// loads follow, per MoE layer and fixed over time.
type RoutingSpec struct {
	// Kind is balanced (the paper's analytical routing: every expert
	// equally popular, rows spread over as many experts as the tokens
	// select) or zipf (popularity of the expert of rank r proportional to
	// 1/r^s over a seeded permutation per layer; an expert's share of the
	// pairs is capped at one pair a token, see pairShares).
	Kind string `yaml:"kind,omitempty" knob:"| the routing distribution of the cluster's loads (empty: balanced) | balanced, zipf | the paper's balanced routing (§VI-A); Zipf popularity per layer"`
	// ZipfS is the exponent s of kind zipf (above 0, at most 100).
	ZipfS float64 `yaml:"zipf_s,omitempty" knob:"s | Zipf exponent of kind zipf (above 0) | 0..100 | a skew parameter"`
	// Seed seeds the per-layer permutations (and the draws of sampled
	// loads).
	Seed uint64 `yaml:"seed,omitempty" knob:"| seed of the per-layer popularity permutations (and of sampled loads) |  | a parameter"`
	// Loads is expected (default: every pass's loads are the
	// distribution's expectation) or sampled (every pass draws each
	// token's experts; see sample.go).
	Loads string `yaml:"loads,omitempty" knob:"| expert loads of a pass: the distribution's expectation or drawn token by token (empty: expected) | expected, sampled | EPLB's reason for redundant experts (DeepSeek 2025)"`
}

// Routing kinds.
const (
	RoutingBalanced = "balanced"
	RoutingZipf     = "zipf"
)

func (r RoutingSpec) kind() string {
	if r.Kind == "" {
		return RoutingBalanced
	}
	return r.Kind
}

func (r RoutingSpec) validate() error {
	if errs := rangeErrors(&Layout{Routing: r}, "parallel", "placement"); len(errs) > 0 {
		return errors.Join(errs...)
	}
	if r.kind() == RoutingZipf && !(r.ZipfS > 0) {
		return fmt.Errorf("routing.zipf_s = %v: must be above 0 for kind zipf", r.ZipfS)
	}
	return nil
}

// pairShares is the share of a layer's token-expert pairs each of e
// experts receives when every token selects k distinct ones, from the
// popularity p (summing to 1): p itself where no expert would be selected
// by more than every token, and otherwise each such expert capped at 1/k
// (selected by every token) with the rest spread over the others in
// proportion to p, repeated until none exceeds the cap (the inclusion
// probabilities of sampling in proportion to size without replacement,
// pi = min(1, c p): Hájek 1964; Särndal, Swensson and Wretman 1992 §3.6).
func pairShares(p []float64, k int) []float64 {
	out := append([]float64(nil), p...)
	if k <= 1 || k >= len(p) {
		if k >= len(p) { // every token selects every expert
			for i := range out {
				out[i] = 1 / float64(len(p))
			}
		}
		return out
	}
	limit := 1 / float64(k)
	capped := make([]bool, len(p))
	for range len(p) {
		n, rest := 0, 0.0
		for i, c := range capped {
			if c {
				n++
			} else {
				rest += p[i]
			}
		}
		left := 1 - float64(n)*limit
		over := false
		for i, c := range capped {
			if c {
				out[i] = limit
				continue
			}
			out[i] = left * p[i] / rest
			if out[i] > limit*(1+1e-12) {
				capped[i], over = true, true
			}
		}
		if !over {
			return out
		}
	}
	return out
}

// popularity is the share of a layer's token-expert pairs each of e
// experts receives (summing to 1; see pairShares for k).
func (r RoutingSpec) popularity(layer, e, k int) []float64 {
	p := make([]float64, e)
	if r.kind() == RoutingBalanced {
		for i := range p {
			p[i] = 1 / float64(e)
		}
		return p
	}
	rng := rand.New(rand.NewPCG(r.Seed, uint64(layer)+1))
	perm := rng.Perm(e)
	sum := 0.0
	for rank, x := range perm {
		p[x] = 1 / math.Pow(float64(rank+1), r.ZipfS)
		sum += p[x]
	}
	for i := range p {
		p[i] /= sum
	}
	return pairShares(p, k)
}

// layerPlacement is where one MoE layer's experts live: the copies of each
// expert (GPU indices within the stage) and each GPU's experts.
type layerPlacement struct {
	copies [][]int // expert -> GPUs holding a copy
	gpus   [][]int // GPU -> experts it holds
	share  []float64
}

// slotsFor is the slots per GPU of the placement for e experts on w GPUs.
func (pl PlacementSpec) slotsFor(e, w int) int {
	if pl.Slots > 0 {
		return pl.Slots
	}
	return (e + w - 1) / w
}

func (pl PlacementSpec) validate(e, w int) error {
	errs := rangeErrors(&Layout{Placement: pl}, "parallel", "routing")
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	slots := pl.slotsFor(e, w)
	switch {
	case slots > e:
		errs = append(errs, fmt.Errorf("placement.slots = %d: more experts per GPU than the %d routed experts that exist", slots, e))
	case slots*w < e:
		errs = append(errs, fmt.Errorf("placement.slots = %d: %d GPUs x %d slots cannot hold the %d routed experts", slots, w, slots, e))
	case w > 1 && e%w != 0 && pl.Slots == 0:
		errs = append(errs, fmt.Errorf("parallel.expert = %d: does not divide the %d routed experts (set placement.slots for uneven or redundant slots)", w, e))
	}
	return errors.Join(errs...)
}

// place lays out one layer's e experts of popularity share over w GPUs.
func (pl PlacementSpec) place(share []float64, w int) layerPlacement {
	e := len(share)
	slots := pl.slotsFor(e, w)
	lp := layerPlacement{copies: make([][]int, e), gpus: make([][]int, w), share: share}
	put := func(x, g int) {
		lp.copies[x] = append(lp.copies[x], g)
		lp.gpus[g] = append(lp.gpus[g], x)
	}
	if pl.Policy == "" || pl.Policy == PlaceContiguous {
		per := (e + w - 1) / w
		for x := range e {
			put(x, min(w-1, x/per))
		}
		return lp
	}
	order := make([]int, e)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case share[a] > share[b]:
			return -1
		case share[a] < share[b]:
			return 1
		}
		return 0
	})
	copies := make([]int, e)
	for i := range copies {
		copies[i] = 1
	}
	if pl.Policy == PlaceReplicated { // spare slots to the hottest experts, one more copy at a time
		spare := slots*w - e
		for spare > 0 {
			best := -1
			for x := range e {
				if copies[x] < w && (best < 0 || share[x]/float64(copies[x]) > share[best]/float64(copies[best])) {
					best = x
				}
			}
			if best < 0 {
				break
			}
			copies[best]++
			spare--
		}
	}
	type item struct {
		x    int
		load float64
	}
	var items []item
	for _, x := range order {
		for range copies[x] {
			items = append(items, item{x, share[x] / float64(copies[x])})
		}
	}
	slices.SortStableFunc(items, func(a, b item) int {
		switch {
		case a.load > b.load:
			return -1
		case a.load < b.load:
			return 1
		}
		return 0
	})
	load := make([]float64, w)
	for _, it := range items {
		g := -1
		for k := range w {
			if len(lp.gpus[k]) >= slots || slices.Contains(lp.copies[it.x], k) {
				continue
			}
			if g < 0 || load[k] < load[g] {
				g = k
			}
		}
		if g < 0 { // every GPU with room already holds a copy: drop this copy
			continue
		}
		put(it.x, g)
		load[g] += it.load
	}
	return lp
}

// gpuShare is the expected share of the layer's token-expert pairs each
// GPU receives (copies of an expert split its rows evenly).
func (lp layerPlacement) gpuShare() []float64 {
	out := make([]float64, len(lp.gpus))
	for x, gs := range lp.copies {
		for _, g := range gs {
			out[g] += lp.share[x] / float64(len(gs))
		}
	}
	return out
}
