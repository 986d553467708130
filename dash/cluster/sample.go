package cluster

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

// Sampled loads (routing.loads: sampled): instead of the routing
// distribution's expectation, every pass draws each MoE layer's
// token-expert pairs, so that the most loaded GPU carries the imbalance
// a real step has (DeepSeek-V3's and EPLB's reason for redundant experts)
// even under balanced popularity. A group's tokens each select k distinct
// experts from the layer's popularity (rejection of repeats, as package
// routing's generator draws them), a pair of an expert with several copies
// going to one at random; with more than exactPairs pairs a group's pairs
// are drawn per expert at once (a multinomial, by conditional binomials:
// repeats within a token are then not excluded, and the distinct tokens a
// GPU receives are the expectation, as in expected mode). The draws are
// seeded by routing.seed, the instance's pass and the layer, so a run is
// deterministic.

// exactPairs bounds the pairs of one group drawn token by token.
const exactPairs = 1 << 13

// Routing load modes.
const (
	LoadsExpected = "expected"
	LoadsSampled  = "sampled"
)

func (r RoutingSpec) sampled() bool { return r.Loads == LoadsSampled }

// sampleLoad draws one layer's loads for a micro-batch whose attention
// groups hold tokens[g] tokens (a single entry: every GPU holds every
// token), with the same outputs as loadOf.
func sampleLoad(lp *layerPlacement, tokens []int, k, t, hidden int, d DispatchSpec, rng *rand.Rand) *layerLoad {
	w := len(lp.gpus)
	e := len(lp.copies)
	cdf := make([]float64, e)
	sum := 0.0
	for x, s := range lp.share {
		sum += s
		cdf[x] = sum
	}
	for x := range cdf {
		cdf[x] /= sum
	}
	cdf[e-1] = 1
	// slotOf[x][g]: the position of expert x in GPU g's list
	slotOf := make([]map[int]int, e)
	for g, xs := range lp.gpus {
		for i, x := range xs {
			if slotOf[x] == nil {
				slotOf[x] = map[int]int{}
			}
			slotOf[x][g] = i
		}
	}
	ll := &layerLoad{loads: make([]sim.ExpertLoad, w)}
	rows := make([]int, w)
	used := make([][]bool, w) // per GPU, per slot: received a row
	for g := range w {
		used[g] = make([]bool, len(lp.gpus[g]))
	}
	senders := len(tokens)
	if senders > 1 {
		senders = w
		ll.pairs = make([][]int, w)
		ll.sent = make([][]int, w)
		ll.dispatch = make([][]unit.Bytes, w)
	}
	var hit []float64
	if d.Dedup && senders > 1 {
		hit = lp.hitProb(k, false)
	}
	kk := min(k, e)
	pick := make([]int, 0, kk)
	for i := range senders {
		n := tokens[0]
		if senders > 1 {
			g, r := i/t, i%t
			n = tokens[g] / t
			if r < tokens[g]%t {
				n++
			}
		}
		pairs := make([]int, w)
		distinct := make([]int, w)
		if n*kk <= exactPairs {
			seen := make([]int, w) // last token that reached each GPU, +1
			for tok := range n {
				pick = pick[:0]
				for range kk {
					x := drawDistinct(rng, cdf, pick)
					pick = append(pick, x)
					c := lp.copies[x]
					g := c[0]
					if len(c) > 1 {
						g = c[rng.IntN(len(c))]
					}
					pairs[g]++
					used[g][slotOf[x][g]] = true
					if seen[g] != tok+1 {
						seen[g] = tok + 1
						distinct[g]++
					}
				}
			}
		} else {
			left, p := n*kk, 1.0
			for x := range e {
				if left == 0 {
					break
				}
				q := lp.share[x] / sum
				var got int
				if x == e-1 || q >= p {
					got = left
				} else {
					got = int(distuv.Binomial{N: float64(left), P: q / p, Src: rng}.Rand())
				}
				left -= got
				p -= q
				c := lp.copies[x]
				for ci, g := range c { // the copies split the pairs evenly, the remainder to the first
					share := got / len(c)
					if ci < got%len(c) {
						share++
					}
					if share > 0 {
						pairs[g] += share
						used[g][slotOf[x][g]] = true
					}
				}
			}
			for g := range w {
				distinct[g] = pairs[g]
				if hit != nil {
					distinct[g] = distinctTokens(n, pairs[g], k, len(lp.gpus[g]), hit[g])
				}
			}
		}
		for g := range w {
			rows[g] += pairs[g]
		}
		if senders > 1 {
			ll.pairs[i] = pairs
			ll.sent[i] = make([]int, w)
			ll.dispatch[i] = make([]unit.Bytes, w)
			for g := range w {
				ll.sent[i][g] = pairs[g]
				if d.Dedup {
					ll.sent[i][g] = distinct[g]
				}
				ll.dispatch[i][g] = unit.Bytes(ll.sent[i][g]) * d.tokenBytes(hidden)
			}
		}
	}
	if senders > 1 {
		ll.combine = make([][]unit.Bytes, w)
		for i := range w {
			ll.combine[i] = make([]unit.Bytes, w)
			for j := range w {
				ll.combine[i][j] = unit.Bytes(ll.sent[j][i]) * unit.Bytes(hidden) * actBytes
			}
		}
	}
	for g := range w {
		active := 0
		for _, u := range used[g] {
			if u {
				active++
			}
		}
		ll.loads[g] = sim.ExpertLoad{Active: active, Rows: rows[g]}
		ll.pick(g)
	}
	return ll
}

// drawDistinct draws an expert from cdf that is not in taken (rejection,
// then exactly among the others when the skew keeps hitting taken ones).
func drawDistinct(r *rand.Rand, cdf []float64, taken []int) int {
	has := func(x int) bool {
		for _, y := range taken {
			if y == x {
				return true
			}
		}
		return false
	}
	for range 32 {
		x := r.Float64()
		lo, hi := 0, len(cdf)-1
		for lo < hi {
			mid := (lo + hi) / 2
			if cdf[mid] <= x {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if !has(lo) {
			return lo
		}
	}
	total, prev := 0.0, 0.0
	for i, c := range cdf {
		if !has(i) {
			total += c - prev
		}
		prev = c
	}
	x := r.Float64() * total
	prev = 0
	last := 0
	for i, c := range cdf {
		p := c - prev
		prev = c
		if has(i) {
			continue
		}
		last = i
		if x < p {
			return i
		}
		x -= p
	}
	return last
}
