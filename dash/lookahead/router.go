package lookahead

import (
	"math"
	"slices"

	"github.com/dashlab/dashlab/dash"
)

// router applies a model's expert selection to one token's logits.
type router struct {
	spec dash.RouterSpec
	topK int
	bias []float32 // expert-specific additive bias (nil when the router has none)
	// scratch
	score, choice []float64
	idx           []int
}

func newRouter(m dash.ModelSpec, bias []float32) *router {
	e := m.FFN.RoutedExperts
	return &router{spec: m.Router, topK: m.FFN.TopK, bias: bias,
		score: make([]float64, e), choice: make([]float64, e), idx: make([]int, e)}
}

// selectInto writes the token's selected experts, sorted by index, into
// dst. With a bias, the logits are scored (softmax or sigmoid, in float64)
// and the bias
// is added for selection, groups are limited when the router says so (group
// score: the best expert of the group, or the sum of the best two with a
// bias, as DeepSeek-V3 does), and the top-k is taken with ties broken by
// the lower index.
func (r *router) selectInto(dst []int, logits []float64) []int {
	switch {
	case r.bias == nil:
		// Without a bias the score function is monotone and selection is
		// done on the logits (as Llama 4's router does): a saturated
		// sigmoid or an underflowed softmax would turn distinct logits into
		// ties.
		copy(r.score, logits)
	case r.spec.Scoring == "softmax":
		mx := math.Inf(-1)
		for _, z := range logits {
			mx = max(mx, z)
		}
		sum := 0.0
		for i, z := range logits {
			r.score[i] = math.Exp(z - mx)
			sum += r.score[i]
		}
		for i := range r.score {
			r.score[i] /= sum
		}
	default: // sigmoid
		for i, z := range logits {
			r.score[i] = 1 / (1 + math.Exp(-z))
		}
	}
	for i := range r.choice {
		r.choice[i] = r.score[i]
		if r.bias != nil {
			r.choice[i] += float64(r.bias[i])
		}
	}
	if r.spec.GroupLimited && r.spec.Groups > 1 {
		r.limitGroups()
	}
	for i := range r.idx {
		r.idx[i] = i
	}
	slices.SortFunc(r.idx, func(a, b int) int { return order(r.choice, a, b) })
	dst = append(dst[:0], r.idx[:r.topK]...)
	slices.Sort(dst)
	return dst
}

// order sorts by descending value, then ascending index.
func order(v []float64, a, b int) int {
	switch {
	case v[a] > v[b]:
		return -1
	case v[a] < v[b]:
		return 1
	}
	return a - b
}

// limitGroups masks the experts outside the best TopKGroups groups.
func (r *router) limitGroups() {
	g := r.spec.Groups
	per := len(r.choice) / g
	gscore := make([]float64, g)
	for k := range g {
		part := slices.Clone(r.choice[k*per : (k+1)*per])
		slices.SortFunc(part, func(a, b float64) int {
			switch {
			case a > b:
				return -1
			case a < b:
				return 1
			}
			return 0
		})
		gscore[k] = part[0]
		if r.bias != nil && len(part) > 1 { // noaux_tc: sum of the best two
			gscore[k] += part[1]
		}
	}
	groups := make([]int, g)
	for i := range groups {
		groups[i] = i
	}
	slices.SortFunc(groups, func(a, b int) int { return order(gscore, a, b) })
	for _, k := range groups[r.spec.TopKGroups:] {
		for i := k * per; i < (k+1)*per; i++ {
			r.choice[i] = math.Inf(-1)
		}
	}
}
