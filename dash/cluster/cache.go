package cluster

import (
	"fmt"
	"math"

	"github.com/dashlab/dashlab/dash/routing"
)

// HBM or HBF per GPU: where a GPU's own experts live.
//
// On a single GPU the paper keeps every expert in HBF (§V-A); the HBM
// expert cache (execution.expert_cache, package routing) holds copies of
// hot experts in HBM, read from there instead. A cluster GPU's cache is
// set as on one GPU (execution.expert_cache.budget on every GPU, taken
// from its decode-KV budget) and is static: it pins, of the GPU's own
// experts over the stage's MoE layers, the most popular under the routing
// distribution (routing.Cache's static policy on the expected shares; equal
// shares pin each layer's first slots before any layer's next, spreading
// the cache over the layers). Its hits per pass are the expected number
// of selected experts it holds: 1 - (1 - q)^(n/c) for each held expert,
// as the selected experts themselves are counted (the GPU's active
// experts in the same proportion under balanced routing). The replacement
// policies lru and lfu follow tokens one by one, which a cluster's loads
// do not draw, so they are refused.

// gpuCache is one GPU's pinned experts: held[o][slot] for the stage's
// MoE ordinal o and the slot's position in the GPU's expert list.
type gpuCache struct {
	held [][]bool
	n    int
}

// newStageCaches pins each GPU's experts for stage st, or returns nil when
// its GPUs have no expert cache.
func newStageCaches(st Stage, w int) ([]*gpuCache, error) {
	budget := st.GPU.Plan().ExpertCache
	if budget <= 0 {
		return nil, nil
	}
	if p := st.GPU.Execution().ExpertCache.EffectivePolicy(); p != routing.PolicyStatic {
		return nil, fmt.Errorf("execution.expert_cache.policy = %s: a cluster GPU's expert cache is static (its most popular experts under the routing distribution, pinned); %s follows tokens one by one, which a cluster's loads do not draw", p, p)
	}
	m := st.GPU.Model()
	var size float64
	for _, lw := range st.GPU.Inventory().Layers(m) {
		size = max(size, float64(lw.RoutedExpert))
	}
	var layers []*layerPlacement
	for _, lp := range st.placement {
		if lp != nil {
			layers = append(layers, lp)
		}
	}
	if size <= 0 || len(layers) == 0 {
		return nil, nil
	}
	capacity := int(math.Floor(float64(budget) / size))
	out := make([]*gpuCache, w)
	for g := range w {
		slots := 0
		for _, lp := range layers {
			slots = max(slots, len(lp.gpus[g]))
		}
		if slots == 0 {
			out[g] = &gpuCache{held: make([][]bool, len(layers))}
			continue
		}
		profile := make([]int64, len(layers)*slots)
		for o, lp := range layers {
			for i, x := range lp.gpus[g] {
				share := lp.share[x] / float64(len(lp.copies[x]))
				profile[o*slots+i] = int64(math.Round(share*1e9))*int64(slots+1) + int64(slots-i)
			}
		}
		c, err := routing.NewCache(routing.PolicyStatic, capacity, len(layers), slots, profile)
		if err != nil {
			return nil, err
		}
		gc := &gpuCache{held: make([][]bool, len(layers))}
		for o, lp := range layers {
			gc.held[o] = make([]bool, len(lp.gpus[g]))
			for i := range lp.gpus[g] {
				gc.held[o][i] = c.Holds(o, i)
				if gc.held[o][i] {
					gc.n++
				}
			}
		}
		out[g] = gc
	}
	return out, nil
}

// cached is the expected number of GPU g's active experts of MoE ordinal o
// its cache holds, given the layer's load and the pass's tokens.
func (gc *gpuCache) cached(lp *layerPlacement, o, g, active, tokens, k int, balanced bool) int {
	held := gc.held[o]
	if active == 0 || len(held) == 0 {
		return 0
	}
	n := 0
	for _, h := range held {
		if h {
			n++
		}
	}
	if n == 0 {
		return 0
	}
	if balanced {
		return min(active, int(math.Round(float64(active)*float64(n)/float64(len(held)))))
	}
	e, all := 0.0, 0.0
	for i, x := range lp.gpus[g] {
		c := float64(len(lp.copies[x]))
		q := min(1, float64(k)*lp.share[x])
		p := 1 - math.Pow(1-q, float64(tokens)/c)
		all += p
		if held[i] {
			e += p
		}
	}
	if all <= 0 {
		return 0
	}
	return min(active, int(math.Round(float64(active)*e/all)))
}
