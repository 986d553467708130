package cluster

import (
	"math"
	"slices"

	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

// actBytes is the size of one activation element moved between GPUs
// (BF16 hidden states, all-reduced partial sums and dispatched tokens).
const actBytes = 2

// splitGroups deals rows over a attention groups, heaviest first (tokens,
// then context), each to the group with the fewest tokens so far (then
// the least context): longest-processing-time-first list scheduling.
func splitGroups(rows []sim.Row, a int) [][]sim.Row {
	out := make([][]sim.Row, a)
	if a == 1 {
		out[0] = rows
		return out
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	ctx := func(r sim.Row) int { return r.Cached + r.Tokens }
	slices.SortStableFunc(order, func(x, y int) int {
		rx, ry := rows[x], rows[y]
		if rx.Tokens != ry.Tokens {
			return ry.Tokens - rx.Tokens
		}
		return ctx(ry) - ctx(rx)
	})
	tok := make([]int, a)
	kv := make([]int, a)
	for _, i := range order {
		g := 0
		for k := 1; k < a; k++ {
			if tok[k] < tok[g] || tok[k] == tok[g] && kv[k] < kv[g] {
				g = k
			}
		}
		out[g] = append(out[g], rows[i])
		tok[g] += rows[i].Tokens
		kv[g] += ctx(rows[i])
	}
	return out
}

// largestRemainder splits n into parts proportional to share (summing to
// 1), exactly: floors, then one more to the largest fractional parts.
func largestRemainder(n int, share []float64) []int {
	out := make([]int, len(share))
	frac := make([]float64, len(share))
	given := 0
	for i, s := range share {
		x := float64(n) * s
		out[i] = int(math.Floor(x))
		frac[i] = x - float64(out[i])
		given += out[i]
	}
	idx := make([]int, len(share))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case frac[a] > frac[b]:
			return -1
		case frac[a] < frac[b]:
			return 1
		}
		return a - b
	})
	for k := 0; given < n && k < len(idx); k++ {
		out[idx[k]]++
		given++
	}
	for i := 0; given > n && i < len(out); i++ { // float noise above n
		if out[i] > 0 {
			out[i]--
			given--
		}
	}
	return out
}

// layerLoad is what one MoE layer of one micro-batch brings to the GPUs of
// a stage: each GPU's expert load and, when the attention groups hold
// different tokens, the dispatch matrix (token-expert pairs from GPU i to
// GPU j; the combine sends the results back).
type layerLoad struct {
	loads     []sim.ExpertLoad
	pairs     [][]int // dispatch pairs i -> j (nil: every GPU holds every token)
	sent      [][]int // rows sent i -> j: the pairs, or the distinct tokens (DispatchSpec.Dedup)
	straggler int     // the GPU with the most rows (then the most active experts)
	reader    int     // the GPU with the most active experts (then the most rows)
	// The dispatch and combine all-to-alls' byte matrices.
	dispatch, combine [][]unit.Bytes
}

// loadOf computes a layer's loads for a micro-batch whose attention groups
// hold tokens[g] tokens, with k experts per token, tensor degree t, the
// routing kind and the dispatch's format.
func loadOf(lp *layerPlacement, tokens []int, k, t int, hidden int, balanced bool, d DispatchSpec) *layerLoad {
	w := len(lp.gpus)
	share := lp.gpuShare()
	ll := &layerLoad{loads: make([]sim.ExpertLoad, w)}
	total := 0
	for _, n := range tokens {
		total += n
	}
	rows := make([]int, w)
	if len(tokens) == 1 { // every GPU holds every token: each computes its own experts' rows
		copy(rows, largestRemainder(total*k, share))
	} else {
		ll.pairs = make([][]int, w)
		ll.sent = make([][]int, w)
		ll.dispatch = make([][]unit.Bytes, w)
		var hit []float64
		if d.Dedup {
			hit = lp.hitProb(k, balanced)
		}
		for i := range w {
			g, r := i/t, i%t
			n := tokens[g] / t
			if r < tokens[g]%t {
				n++
			}
			ll.pairs[i] = largestRemainder(n*k, share)
			ll.sent[i] = make([]int, w)
			ll.dispatch[i] = make([]unit.Bytes, w)
			for j, c := range ll.pairs[i] {
				rows[j] += c
				ll.sent[i][j] = c
				if d.Dedup {
					ll.sent[i][j] = distinctTokens(n, c, k, len(lp.gpus[j]), hit[j])
				}
				ll.dispatch[i][j] = unit.Bytes(ll.sent[i][j]) * d.tokenBytes(hidden)
			}
		}
		ll.combine = make([][]unit.Bytes, w)
		for i := range w {
			ll.combine[i] = make([]unit.Bytes, w)
			for j := range w { // results back in BF16: one row per row sent
				ll.combine[i][j] = unit.Bytes(ll.sent[j][i]) * unit.Bytes(hidden) * actBytes
			}
		}
	}
	for j := range w {
		slots := len(lp.gpus[j])
		var active int
		if balanced { // the paper's balanced rows: spread over as many experts as they can fill
			active = min(slots, rows[j])
		} else { // expected distinct experts selected among the GPU's copies
			e := 0.0
			for _, x := range lp.gpus[j] {
				c := float64(len(lp.copies[x]))
				q := min(1, float64(k)*lp.share[x])
				e += 1 - math.Pow(1-q, float64(total)/c)
			}
			active = min(slots, rows[j], max(min(1, rows[j]), int(math.Round(e))))
		}
		ll.loads[j] = sim.ExpertLoad{Active: active, Rows: rows[j]}
		ll.pick(j)
	}
	return ll
}

// pick updates the straggler and the reader with GPU j's load.
func (ll *layerLoad) pick(j int) {
	x, s, r := ll.loads[j], ll.loads[ll.straggler], ll.loads[ll.reader]
	if x.Rows > s.Rows || x.Rows == s.Rows && x.Active > s.Active {
		ll.straggler = j
	}
	if x.Active > r.Active || x.Active == r.Active && x.Rows > r.Rows {
		ll.reader = j
	}
}

// heaviest is the layer's load on the stage's slowest GPU, bounded above:
// the most rows any GPU processes with the most experts any GPU reads (one
// GPU's load when one is heaviest in both, as under balanced routing).
func (ll *layerLoad) heaviest() sim.ExpertLoad {
	return sim.ExpertLoad{Active: ll.loads[ll.reader].Active, Rows: ll.loads[ll.straggler].Rows}
}

func sortDurations(d []unit.Duration) { slices.Sort(d) }
