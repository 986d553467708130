package routing

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Synthetic is the routing generator's parameters: the four properties
// measured MoE routing shows, each a knob, so that skew can be swept
// without a trace. The zero value is uniform routing (every token draws
// its top-k uniformly without replacement, independently).
//
// A token's experts at a layer are drawn slot by slot (k slots, distinct
// experts): with probability Repeat a slot takes the previous token's
// expert of the same slot at the same layer (temporal locality: the top
// choice tends to stay the top choice); otherwise, with
// probability LayerCorr, it follows the token's expert of the same slot at
// the previous MoE layer along a fixed per-layer path (cross-layer
// correlation); otherwise it draws from the layer's popularity for the
// request's task (skew and task mix). A draw that would repeat an expert
// the token already holds at the layer draws from the popularity instead.
//
// Where the values come from (the knob table cites them; 'dashlab routing
// analyze' measures a trace in the same terms):
//
//   - Skew (per-layer popularity): each layer ranks its experts in a
//     seeded random order and selects the expert of rank i with weight
//     1/i^Skew (Zipf). The hottest expert's relative load (its share of the
//     selections over the balanced share k/E) is E / H(E, Skew); DeepSeek-V3
//     (DeepSeek-AI, arXiv:2412.19437, §4.5.3 Fig. 9 and Appendix C Fig. 10)
//     plots per-domain relative expert load on a scale of 0 to 10 for its
//     auxiliary-loss-free 16B model; Qiu et al. (arXiv:2501.11873, §4.2)
//     measure per-domain expert selection frequencies above 0.2 under
//     global-batch balancing (none above 0.15 with micro-batch balancing).
//   - Repeat (temporal locality): Mixtral 8x7B (Jiang et al.,
//     arXiv:2401.04088, §5 Table 5) repeats the first-choice expert between
//     consecutive tokens in a share 0.236 to 0.284 of them at layer 15
//     (random: 1/8) and 0.136 to 0.149 at layer 0, and shares an expert
//     among the top-2 of consecutive tokens in 0.616 to 0.670 at layer 15
//     (random: 1 - (6/8)(5/7)), over eight domains of The Pile.
//   - LayerCorr (cross-layer correlation): ExFlow (Yao et al., IPDPS 2024,
//     arXiv:2401.08383) profiles P(expert at layer l+1 | expert at layer
//     l) and finds it strongly non-uniform in trained models; it publishes
//     no single figure for it, so the knob is swept (0: independent
//     layers).
//   - Tasks and TaskOverlap (per-request task mix): each request draws one
//     of Tasks tasks; a task's popularity at a layer mixes the layer's
//     shared ranking (weight TaskOverlap) with a ranking of its own. Mixtral
//     (§5, Fig. 7) finds its per-domain distributions of The Pile nearly
//     the same (TaskOverlap near 1), DeepSeek-V3 (§4.5.3) finds domains
//     specialise under batch-wise balancing (lower TaskOverlap).
type Synthetic struct {
	// Seed seeds the generator.
	Seed uint64
	// Skew is the Zipf exponent of each layer's expert popularity, from 0
	// (uniform) to MaxSkew.
	Skew float64
	// Repeat is the probability that a slot repeats the previous token's
	// expert of the same slot at the same layer, from 0 to 1.
	Repeat float64
	// LayerCorr is the probability that a slot follows the token's path
	// from the previous MoE layer, from 0 to 1.
	LayerCorr float64
	// Tasks is the number of tasks in the request mix (0 or 1: one), at most
	// MaxTasks.
	Tasks int
	// TaskOverlap is the share of a task's popularity common to all tasks,
	// from 0 (each task its own ranking) to 1 (one ranking).
	TaskOverlap float64
}

// Bounds of the generator's parameters.
const (
	// MaxSkew bounds Synthetic.Skew.
	MaxSkew = 100
	// MaxTasks bounds Synthetic.Tasks.
	MaxTasks = 64
)

// Validate reports a parameter out of its range, naming the field by its
// workload path.
func (s Synthetic) Validate() error {
	unitInterval := func(name string, v float64) error {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("workload.routing.%s = %v: must be from 0 to 1", name, v)
		}
		return nil
	}
	switch {
	case !(s.Skew >= 0 && s.Skew <= MaxSkew):
		return fmt.Errorf("workload.routing.skew = %v: must be from 0 to %d", s.Skew, MaxSkew)
	case s.Tasks < 0 || s.Tasks > MaxTasks:
		return fmt.Errorf("workload.routing.tasks = %d: must be from 0 to %d", s.Tasks, MaxTasks)
	}
	if err := unitInterval("repeat", s.Repeat); err != nil {
		return err
	}
	if err := unitInterval("layer_corr", s.LayerCorr); err != nil {
		return err
	}
	return unitInterval("task_overlap", s.TaskOverlap)
}

// HotLoad is the relative load of a layer's hottest expert under skew s
// with e experts and top-1 routing: its share of the selections over the
// balanced share, e / H(e, s) (the metric of DeepSeek-V3's Fig. 9). Top-k
// selection without replacement flattens it: the hottest expert is
// selected at most once a token, so its relative load is at most e / k
// (Analyze measures a trace's).
func HotLoad(e int, s float64) float64 {
	var h float64
	for i := 1; i <= e; i++ {
		h += math.Pow(float64(i), -s)
	}
	return float64(e) / h
}

// generator draws routing for one model.
type generator struct {
	s     Synthetic
	m     Model
	tasks int
	// pop[task][layer] is the popularity (built on first use)
	pop  [][]*popularity
	path [][]uint16 // path[l][e]: the expert at MoE layer l that expert e at layer l-1 leads to
}

// popularity is one layer's expert popularity for one task: the weights
// and Walker's alias table over them (one draw in constant time).
type popularity struct {
	w     []float64 // normalised weights
	prob  []uint32  // alias-table thresholds (of 2^32)
	alias []uint16
}

func newGenerator(s Synthetic, m Model) *generator {
	g := &generator{s: s, m: m, tasks: max(1, s.Tasks)}
	g.pop = make([][]*popularity, g.tasks)
	L, E := len(m.MoELayers), m.Experts
	g.path = make([][]uint16, L)
	for l := 1; l < L; l++ {
		r := rand.New(rand.NewPCG(s.Seed^0x7a7b, uint64(l)))
		g.path[l] = make([]uint16, E)
		for i, e := range r.Perm(E) {
			g.path[l][i] = uint16(e)
		}
	}
	return g
}

// zipf returns weights 1/rank^s over a seeded permutation of e experts.
func zipf(e int, s float64, seed, stream uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, stream))
	w := make([]float64, e)
	for rank, x := range r.Perm(e) {
		w[x] = math.Pow(float64(rank+1), -s)
	}
	return w
}

// table is the popularity of task at MoE layer l.
func (g *generator) table(task, l int) *popularity {
	if g.pop[task] == nil {
		g.pop[task] = make([]*popularity, len(g.m.MoELayers))
	}
	if p := g.pop[task][l]; p != nil {
		return p
	}
	E := g.m.Experts
	base := zipf(E, g.s.Skew, g.s.Seed, uint64(l)*2+1)
	w := base
	if g.tasks > 1 && g.s.TaskOverlap < 1 {
		own := zipf(E, g.s.Skew, g.s.Seed^uint64(task+1)*0x9e3779b97f4a7c15, uint64(l)*2+2)
		var sb, so float64
		for i := range base {
			sb += base[i]
			so += own[i]
		}
		w = make([]float64, E)
		for i := range w {
			w[i] = g.s.TaskOverlap*base[i]/sb + (1-g.s.TaskOverlap)*own[i]/so
		}
	}
	p := newPopularity(w)
	g.pop[task][l] = p
	return p
}

// newPopularity normalises w and builds its alias table (Vose's method).
func newPopularity(w []float64) *popularity {
	n := len(w)
	var sum float64
	for _, x := range w {
		sum += x
	}
	p := &popularity{w: make([]float64, n), prob: make([]uint32, n), alias: make([]uint16, n)}
	scaled := make([]float64, n)
	var small, large []int
	for i, x := range w {
		p.w[i] = x / sum
		scaled[i] = p.w[i] * float64(n)
		if scaled[i] < 1 {
			small = append(small, i)
		} else {
			large = append(large, i)
		}
	}
	for len(small) > 0 && len(large) > 0 {
		s, l := small[len(small)-1], large[len(large)-1]
		small = small[:len(small)-1]
		p.prob[s] = uint32(math.Min(scaled[s], 1) * math.MaxUint32)
		p.alias[s] = uint16(l)
		scaled[l] -= 1 - scaled[s]
		if scaled[l] < 1 {
			large = large[:len(large)-1]
			small = append(small, l)
		}
	}
	for _, i := range append(small, large...) {
		p.prob[i], p.alias[i] = math.MaxUint32, uint16(i)
	}
	return p
}

// draw samples an expert from p, avoiding those in taken.
func draw(r *rand.PCG, p *popularity, taken []uint16) uint16 {
	n := uint64(len(p.prob))
	for range 32 {
		u := r.Uint64()
		i := (u >> 32) * n >> 32
		e := uint16(i)
		if uint32(u) >= p.prob[i] {
			e = p.alias[i]
		}
		if !holds(taken, e) {
			return e
		}
	}
	// A heavy skew keeps hitting the taken experts: draw among the others
	// exactly.
	var total float64
	for i, w := range p.w {
		if !holds(taken, uint16(i)) {
			total += w
		}
	}
	x := unitFloat(r) * total
	last := 0
	for i, w := range p.w {
		if holds(taken, uint16(i)) {
			continue
		}
		last = i
		if x < w {
			return uint16(i)
		}
		x -= w
	}
	return uint16(last)
}

func holds(s []uint16, e uint16) bool {
	for _, x := range s {
		if x == e {
			return true
		}
	}
	return false
}

// token draws one token's experts at every MoE layer into out (L*k ids),
// given the previous token's (prev, nil at a request's first token), from
// the request's stream r.
func (g *generator) token(r *rand.PCG, task int, prev, out []uint16) {
	L, k := len(g.m.MoELayers), g.m.TopK
	s := g.s
	for l := range L {
		row := out[l*k : l*k : (l+1)*k]
		pop := g.table(task, l)
		for j := range k {
			e, ok := uint16(0), false
			if prev != nil && s.Repeat > 0 && unitFloat(r) < s.Repeat {
				e = prev[l*k+j]
				ok = !holds(row, e)
			}
			if !ok && l > 0 && s.LayerCorr > 0 && unitFloat(r) < s.LayerCorr {
				e = g.path[l][out[(l-1)*k+j]]
				ok = !holds(row, e)
			}
			if !ok {
				e = draw(r, pop, row)
			}
			row = append(row, e)
		}
	}
}

// Generate draws a trace of requests requests of tokens tokens each for
// model m (layer numbers: m's MoE layers). It is deterministic in s.
func Generate(s Synthetic, m Model, requests, tokens int) (*Trace, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := m.validate(); err != nil {
		return nil, err
	}
	L, k := len(m.MoELayers), m.TopK
	if requests < 1 || tokens < 1 || requests > MaxRequests || int64(requests)*int64(tokens)*int64(L*k) > MaxEntries {
		return nil, fmt.Errorf("routing: %d requests of %d tokens at %d layers of top-%d: outside 1..%d expert ids", requests, tokens, L, k, MaxEntries)
	}
	g := newGenerator(s, m)
	t := &Trace{name: fmt.Sprintf("synthetic(seed %d, skew %g, repeat %g, layer_corr %g, tasks %d, task_overlap %g)", s.Seed, s.Skew, s.Repeat, s.LayerCorr, max(1, s.Tasks), s.TaskOverlap),
		k: k, layers: append([]int(nil), m.MoELayers...), ids: make([]uint16, requests*tokens*L*k), derived: &derivedTables{}}
	w := L * k
	for req := range requests {
		r, task := g.stream(req)
		var prev []uint16
		for tok := range tokens {
			out := t.ids[(req*tokens+tok)*w : (req*tokens+tok+1)*w]
			g.token(r, task, prev, out)
			prev = out
		}
		t.reqIDs = append(t.reqIDs, int64(req))
		t.start = append(t.start, req*tokens)
	}
	t.start = append(t.start, requests*tokens)
	t.finish()
	return t, nil
}

// stream is request req's random stream and task.
func (g *generator) stream(req int) (*rand.PCG, int) {
	r := g.source(req)
	return r, int(r.Uint64() % uint64(g.tasks))
}

// unitFloat is a uniform number in [0, 1) from r (the PCG called directly:
// the generator draws hundreds of millions).
func unitFloat(r *rand.PCG) float64 { return float64(r.Uint64()>>11) * 0x1p-53 }

// source is request req's random source.
func (g *generator) source(req int) *rand.PCG { return rand.NewPCG(g.s.Seed, uint64(req)+0x51ed) }

// finish sets what a model check reads of a trace made in memory.
func (t *Trace) finish() {
	t.layerLine = make([]int, len(t.layers))
	t.firstLine, t.maxLine = 0, 0
	for _, e := range t.ids {
		t.maxID = max(t.maxID, int(e))
	}
}

// Balanced is the trace of the paper's "analytical routing with balanced
// per-expert rows" for a fixed batch of batch requests with prompt-token
// prompts and output generated tokens: a pass's B x tokens x k selections
// spread over min(E, B x tokens x k) consecutive experts. Prefill token t
// of request r (the pass's token index i = r x prompt + t) selects experts
// (i k + j) mod E; decode token t of request r selects (r k + j) mod E, so
// every decode step reads min(E, B k) distinct experts, as balanced
// routing does. The trace holds prompt + output - 1 tokens a request (the
// last generated token is never processed).
func Balanced(m Model, batch, prompt, output int) (*Trace, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	L, k, E := len(m.MoELayers), m.TopK, m.Experts
	n := prompt + output - 1
	if batch < 1 || prompt < 1 || output < 1 || int64(batch)*int64(n)*int64(L*k) > MaxEntries {
		return nil, fmt.Errorf("routing: balanced trace of %d requests of %d tokens at %d layers of top-%d: outside 1..%d expert ids", batch, n, L, k, MaxEntries)
	}
	t := &Trace{name: fmt.Sprintf("balanced(B=%d, %d/%d)", batch, prompt, output), k: k, layers: append([]int(nil), m.MoELayers...),
		ids: make([]uint16, 0, batch*n*L*k), derived: &derivedTables{}}
	for r := range batch {
		t.reqIDs = append(t.reqIDs, int64(r))
		t.start = append(t.start, r*n)
		for tok := range n {
			base := r * k
			if tok < prompt {
				base = (r*prompt + tok) * k
			}
			for range L {
				for j := range k {
					t.ids = append(t.ids, uint16((base+j)%E))
				}
			}
		}
	}
	t.start = append(t.start, batch*n)
	t.finish()
	return t, nil
}

// MixtralRepeat is the Repeat that gives Mixtral's measured temporal
// locality at its middle layer on Mixtral's shape (8 experts, top-2): see
// TestMixtralCalibration, which holds the generated trace's first-choice
// and top-2 repetition within Table 5's layer-15 ranges (Jiang et al.,
// arXiv:2401.04088).
const MixtralRepeat = 0.16
