package lookahead

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/dashlab/dashlab/dash"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// Options configure a check.
type Options struct {
	// Tokens is the number of random tokens whose selections are compared
	// (1 to MaxTokens).
	Tokens int
	// Seed seeds every draw: the same seed gives the same report.
	Seed uint64
	// TokensPerDraw is how many tokens share one draw of the weights
	// (W_out, gamma, W_r and the bias); 0 means 1024 (at most MaxTokens). Precomputing W_hat
	// costs about as much as E tokens, so weights are redrawn in blocks.
	TokensPerDraw int
	// AttnWidth overrides the output projection's input width (heads x
	// head_dim) for a cheaper check; 0 uses the model's real width. At most
	// dash.MaxWidth, and one draw of the weights at that width must fit in
	// MaxWeightBytes (see WeightBytes).
	AttnWidth int
	// MaxFlips bounds the flips reported in detail (0 means 20; at most
	// MaxTokens).
	MaxFlips int
}

// Report is the outcome of a check.
type Report struct {
	// Model is the catalogue id.
	Model string `json:"model"`
	// Router describes the router ("sigmoid top-1", "softmax, group-limited 3/8 by max").
	Router string `json:"router"`
	// Eligible is true when the engine uses early selection for this
	// model; Reason says why not.
	Eligible bool   `json:"eligible"`
	Reason   string `json:"reason,omitempty"`
	// Hidden, AttnWidth, Experts and TopK are the dimensions used.
	Hidden    int `json:"hidden"`
	AttnWidth int `json:"attn_width"`
	Experts   int `json:"experts"`
	TopK      int `json:"top_k"`
	// Tokens and Draws count the tokens compared and the weight draws.
	Tokens int `json:"tokens"`
	Draws  int `json:"draws"`
	// Agree counts the tokens whose early and conventional selections are
	// the same set of experts; Disagree the others.
	Agree    int `json:"agree"`
	Disagree int `json:"disagree"`
	// NearTies counts tokens whose conventional logits have a selection
	// boundary (k-th against (k+1)-th expert, or the last kept group
	// against the next) closer than twice that token's FP32 discrepancy
	// between the two paths: only there can rounding flip a selection.
	NearTies int `json:"near_ties"`
	// NearTieFlips counts disagreements at near ties (FP32 rounding);
	// AlgebraicFlips the others (a router the identity does not cover).
	NearTieFlips   int `json:"near_tie_flips"`
	AlgebraicFlips int `json:"algebraic_flips"`
	// MaxRelDiscrepancy is the largest |P_conv - alpha P_early| over all
	// tokens and experts, relative to the token's largest |logit|.
	MaxRelDiscrepancy float64 `json:"max_rel_discrepancy"`
	// Flips details the first disagreements.
	Flips []Flip `json:"flips,omitempty" csv:"-"`
	// ElapsedSeconds is the wall time of the check. It differs from run to
	// run: JSON leaves it out when zero (dashlab writes it with --perf only).
	ElapsedSeconds float64 `json:"elapsed_s,omitempty" csv:"-"`
}

// AgreementPct is the share of tokens whose selections agree, in percent.
func (r Report) AgreementPct() float64 { return 100 * float64(r.Agree) / float64(max(1, r.Tokens)) }

// Flip is one token whose early and conventional selections differ.
type Flip struct {
	// Token is the token's index in the check.
	Token int `json:"token"`
	// Conventional, Early and Float64 are the selected experts (sorted):
	// conventional FP32, lookahead FP32, and conventional in float64.
	Conventional []int `json:"conventional"`
	Early        []int `json:"early"`
	Float64      []int `json:"float64"`
	// BoundaryGap is the conventional FP32 logits' gap at the selection
	// boundary; Discrepancy the token's max |P_conv - alpha P_early|.
	BoundaryGap float64 `json:"boundary_gap"`
	Discrepancy float64 `json:"discrepancy"`
	// NearTie is BoundaryGap < 2 x Discrepancy.
	NearTie bool `json:"near_tie"`
}

// ErrOptions is returned for bad options.
var ErrOptions = errors.New("lookahead: bad options")

// Bounds of a check's options: MaxTokens tokens (a hundred times the CLI's
// default), tokens per draw and flips up to MaxTokens, an attention width up
// to dash.MaxWidth, and at most MaxWeightBytes of FP32 weights held at once
// (W_out, W_r, diag(gamma) W_r and W_hat of one draw: DeepSeek-V3 at its
// real width holds about 490 MB).
const (
	MaxTokens      = 1_000_000
	MaxWeightBytes = 768 << 20
)

// WeightBytes is what one draw of model m's routing weights holds at output
// projection width ow, in bytes (FP32), with the work buffers of a block.
func WeightBytes(m dash.ModelSpec, ow int) float64 {
	h, e := float64(m.HiddenSize), float64(m.FFN.RoutedExperts)
	w := float64(ow)
	return 4 * (w*h + 2*h*e + w*e + h + blockTokens*(3*h+w+2*e))
}

// blockTokens is how many tokens are compared at once.
const blockTokens = 256

// Check compares early and conventional expert selection for model m.
func Check(m dash.ModelSpec, o Options) (Report, error) {
	if o.Tokens < 1 || o.Tokens > MaxTokens {
		return Report{}, fmt.Errorf("%w: tokens = %d: must be from 1 to %d", ErrOptions, o.Tokens, MaxTokens)
	}
	if o.TokensPerDraw < 0 || o.TokensPerDraw > MaxTokens || o.MaxFlips < 0 || o.MaxFlips > MaxTokens {
		return Report{}, fmt.Errorf("%w: tokens per draw = %d, max flips = %d: must be from 0 to %d", ErrOptions, o.TokensPerDraw, o.MaxFlips, MaxTokens)
	}
	if o.AttnWidth < 0 || o.AttnWidth > dash.MaxWidth {
		return Report{}, fmt.Errorf("%w: attention width = %d: must be from 0 (the model's) to %d", ErrOptions, o.AttnWidth, dash.MaxWidth)
	}
	if err := m.Validate(); err != nil {
		return Report{}, err
	}
	if m.FFN.RoutedExperts < 1 || m.FFN.TopK < 1 {
		return Report{}, fmt.Errorf("%w: model %s has no routed experts", ErrOptions, m.ID)
	}
	ow := m.OutputProjectionWidth()
	if o.AttnWidth > 0 {
		ow = o.AttnWidth
	}
	if b := WeightBytes(m, ow); b > MaxWeightBytes {
		return Report{}, fmt.Errorf("%w: model %s at attention width %d (hidden %d, %d experts): one draw of the weights takes about %.3g bytes in FP32, more than the %d MiB a check may hold: give a smaller attention width",
			ErrOptions, m.ID, ow, m.HiddenSize, m.FFN.RoutedExperts, b, MaxWeightBytes>>20)
	}
	start := time.Now()
	rep := Report{Model: m.ID, Router: describeRouter(m), Eligible: m.LookaheadEligible(), Reason: m.LookaheadReason(),
		Hidden: m.HiddenSize, AttnWidth: m.OutputProjectionWidth(), Experts: m.FFN.RoutedExperts, TopK: m.FFN.TopK}
	if o.AttnWidth > 0 {
		rep.AttnWidth = o.AttnWidth
	}
	per := o.TokensPerDraw
	if per == 0 {
		per = 1024
	}
	maxFlips := o.MaxFlips
	if maxFlips == 0 {
		maxFlips = 20
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x6c6f6f6b61686561))
	for done := 0; done < o.Tokens; {
		n := min(per, o.Tokens-done)
		if WeightBytes(m, rep.AttnWidth) > 64<<20 {
			runtime.GC() // the last draw's weights (or model's) go before the next's come
		}
		w := drawWeights(rng, m, rep.AttnWidth)
		rep.Draws++
		for b := 0; b < n; {
			t := min(blockTokens, n-b)
			w.block(rng, t, done+b, &rep, maxFlips)
			b += t
		}
		done += n
	}
	rep.Tokens = o.Tokens
	rep.ElapsedSeconds = time.Since(start).Seconds()
	return rep, nil
}

func describeRouter(m dash.ModelSpec) string {
	r := m.Router
	s := fmt.Sprintf("%s top-%d", r.Scoring, m.FFN.TopK)
	if r.GroupLimited && r.Groups > 1 {
		by := "max"
		if r.ExpertBias {
			by = "top-2 sum"
		}
		s += fmt.Sprintf(", group-limited %d/%d by %s", r.TopKGroups, r.Groups, by)
	}
	if r.ExpertBias {
		s += ", expert bias"
	}
	return s
}

// weights is one draw of a layer's routing weights.
type weights struct {
	m           dash.ModelSpec
	hidden, ow  int
	experts     int
	wout        []float32 // ow x hidden
	gamma       []float32 // hidden
	wr          []float32 // hidden x experts
	gr          []float32 // diag(gamma) W_r, hidden x experts
	what        []float32 // W_out diag(gamma) W_r, ow x experts
	conv, early *router
	eps         float64
}

func drawWeights(rng *rand.Rand, m dash.ModelSpec, ow int) *weights {
	h, e := m.HiddenSize, m.FFN.RoutedExperts
	w := &weights{m: m, hidden: h, ow: ow, experts: e, eps: m.Norm.Eps}
	if w.eps <= 0 {
		w.eps = 1e-6
	}
	w.wout = normals(rng, ow*h, 1/math.Sqrt(float64(ow)))
	w.gamma = make([]float32, h)
	for i := range w.gamma { // trained RMSNorm gains: positive, spread around 1
		w.gamma[i] = float32(math.Exp(0.3 * rng.NormFloat64()))
	}
	w.wr = normals(rng, h*e, 1/math.Sqrt(float64(h)))
	w.gr = make([]float32, h*e)
	for i := range h {
		for j := range e {
			w.gr[i*e+j] = w.gamma[i] * w.wr[i*e+j]
		}
	}
	w.what = make([]float32, ow*e)
	gemm(ow, h, e, w.wout, w.gr, 0, w.what)
	var bias []float32
	if m.Router.ExpertBias {
		bias = normals(rng, e, 0.1)
	}
	w.conv, w.early = newRouter(m, bias), newRouter(m, bias)
	return w
}

func normals(rng *rand.Rand, n int, scale float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(scale * rng.NormFloat64())
	}
	return v
}

// gemm is C = A B + beta C for row-major A (m x k), B (k x n), C (m x n).
func gemm(m, k, n int, a, b []float32, beta float32, c []float32) {
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1,
		blas32.General{Rows: m, Cols: k, Stride: k, Data: a},
		blas32.General{Rows: k, Cols: n, Stride: n, Data: b},
		beta, blas32.General{Rows: m, Cols: n, Stride: n, Data: c})
}

// block draws t tokens and compares their selections.
func (w *weights) block(rng *rand.Rand, t, first int, rep *Report, maxFlips int) {
	h, ow, e := w.hidden, w.ow, w.experts
	x := make([]float32, t*h)
	for i := range t {
		// The residual stream's scale varies from token to token (and layer
		// to layer): alpha = 1/rms(h) is far from 1.
		s := math.Exp2(-2 + 6*rng.Float64())
		for j := range h {
			x[i*h+j] = float32(s * rng.NormFloat64())
		}
	}
	o := normals(rng, t*ow, 1)
	// Conventional: h = X + O W_out; P = alpha (h o gamma) W_r.
	hs := slices.Clone(x)
	gemm(t, ow, h, o, w.wout, 1, hs)
	alpha := make([]float32, t)
	n := make([]float32, t*h)
	for i := range t {
		ss := 0.0
		for _, v := range hs[i*h : (i+1)*h] {
			ss += float64(v) * float64(v)
		}
		alpha[i] = float32(1 / math.Sqrt(ss/float64(h)+w.eps))
		for j := range h {
			n[i*h+j] = alpha[i] * hs[i*h+j] * w.gamma[j]
		}
	}
	pc := make([]float32, t*e)
	gemm(t, h, e, n, w.wr, 0, pc)
	// Early: X diag(gamma) W_r + O W_hat.
	pe := make([]float32, t*e)
	gemm(t, h, e, x, w.gr, 0, pe)
	gemm(t, ow, e, o, w.what, 1, pe)

	var sc, se []int
	for i := range t {
		zc, ze := pc[i*e:(i+1)*e], pe[i*e:(i+1)*e]
		disc, big := 0.0, 0.0
		for j := range e {
			disc = max(disc, math.Abs(float64(zc[j])-float64(alpha[i])*float64(ze[j])))
			big = max(big, math.Abs(float64(zc[j])))
		}
		rep.MaxRelDiscrepancy = max(rep.MaxRelDiscrepancy, disc/max(big, 1e-30))
		gap := w.boundaryGap(zc)
		near := gap < 2*disc
		if near {
			rep.NearTies++
		}
		sc = w.conv.selectInto(sc, widen(zc))
		se = w.early.selectInto(se, widen(ze))
		if slices.Equal(sc, se) {
			rep.Agree++
			continue
		}
		rep.Disagree++
		if near && rep.Eligible {
			rep.NearTieFlips++
		} else {
			rep.AlgebraicFlips++
		}
		if len(rep.Flips) < maxFlips {
			rep.Flips = append(rep.Flips, Flip{Token: first + i, Conventional: slices.Clone(sc), Early: slices.Clone(se),
				Float64: w.reference(x[i*h:(i+1)*h], o[i*ow:(i+1)*ow]), BoundaryGap: gap, Discrepancy: disc, NearTie: near})
		}
	}
}

// boundaryGap is the smallest gap of the conventional logits at a
// selection boundary: for group-limited routers, the last kept group's
// maximum against the next group's, and the k-th against the (k+1)-th
// logit among the kept groups' experts; otherwise the k-th against the
// (k+1)-th logit.
func (w *weights) boundaryGap(z []float32) float64 {
	v := widen(z)
	gap := math.Inf(1)
	r := w.m.Router
	kept := v
	if r.GroupLimited && r.Groups > 1 && r.TopKGroups < r.Groups {
		per := len(v) / r.Groups
		gm := make([]float64, r.Groups)
		for g := range gm {
			gm[g] = slices.Max(v[g*per : (g+1)*per])
		}
		order := make([]int, r.Groups)
		for g := range order {
			order[g] = g
		}
		slices.SortFunc(order, func(a, b int) int { return cmpDesc(gm[a], gm[b]) })
		gap = gm[order[r.TopKGroups-1]] - gm[order[r.TopKGroups]]
		kept = nil
		for _, g := range order[:r.TopKGroups] {
			kept = append(kept, v[g*per:(g+1)*per]...)
		}
	}
	sorted := slices.Clone(kept)
	slices.SortFunc(sorted, cmpDesc)
	if k := w.m.FFN.TopK; k < len(sorted) {
		gap = min(gap, sorted[k-1]-sorted[k])
	}
	return gap
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// reference is the conventional selection of one token in float64 from the
// same FP32 inputs.
func (w *weights) reference(x, o []float32) []int {
	h, e := w.hidden, w.experts
	hs := make([]float64, h)
	for j := range h {
		hs[j] = float64(x[j])
	}
	for i, oi := range o {
		if oi == 0 {
			continue
		}
		row := w.wout[i*h : (i+1)*h]
		for j, v := range row {
			hs[j] += float64(oi) * float64(v)
		}
	}
	ss := 0.0
	for _, v := range hs {
		ss += v * v
	}
	alpha := 1 / math.Sqrt(ss/float64(h)+w.eps)
	z := make([]float64, e)
	for j := range h {
		nj := alpha * hs[j] * float64(w.gamma[j])
		for k := range e {
			z[k] += nj * float64(w.wr[j*e+k])
		}
	}
	return newRouter(w.m, w.conv.bias).selectInto(nil, z)
}

func widen(z []float32) []float64 {
	v := make([]float64, len(z))
	for i, x := range z {
		v[i] = float64(x)
	}
	return v
}
