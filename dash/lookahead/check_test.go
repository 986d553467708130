package lookahead

import (
	"errors"
	"slices"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
)

// Every eligible catalogue model agrees on every selection over 10,000
// random tokens, or each disagreement is an FP32 near tie. The attention
// output width is reduced to keep the test fast (the cost is tokens x
// width x hidden); TestRealDimensions and the CLI use the real width.
func TestEligibleModelsAgree(t *testing.T) {
	tokens := 10000
	if testing.Short() {
		tokens = 1000
	}
	for _, id := range reference.ModelIDs() {
		m := reference.MustModel(id)
		if !m.LookaheadEligible() {
			continue
		}
		r, err := Check(m, Options{Tokens: tokens, Seed: 7, TokensPerDraw: tokens, AttnWidth: 256})
		if err != nil {
			t.Fatal(err)
		}
		if r.Tokens != tokens || r.Agree+r.Disagree != tokens {
			t.Fatalf("%s: counted %d+%d of %d tokens", id, r.Agree, r.Disagree, tokens)
		}
		if r.AlgebraicFlips != 0 || r.Disagree != r.NearTieFlips {
			t.Errorf("%s: %d disagreements, %d not near ties: %+v", id, r.Disagree, r.AlgebraicFlips, r.Flips)
		}
		for _, f := range r.Flips {
			if !f.NearTie || f.BoundaryGap >= 2*f.Discrepancy {
				t.Errorf("%s: flip %+v is not a near tie", id, f)
			}
		}
		if r.MaxRelDiscrepancy <= 0 || r.MaxRelDiscrepancy > 1e-3 {
			t.Errorf("%s: FP32 discrepancy %g: expected rounding-sized, nonzero", id, r.MaxRelDiscrepancy)
		}
		t.Logf("%s (%s): %d/%d agree, %d near ties, max rel. discrepancy %.2g", id, r.Router, r.Agree, tokens, r.NearTies, r.MaxRelDiscrepancy)
	}
}

// At the models' real attention widths, a smaller sample.
func TestRealDimensions(t *testing.T) {
	if testing.Short() {
		t.Skip("real dimensions: several GFLOP")
	}
	for _, id := range []string{"llama4-maverick", "qwen3-30b-a3b"} {
		m := reference.MustModel(id)
		r, err := Check(m, Options{Tokens: 256, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if r.AttnWidth != m.OutputProjectionWidth() || r.AlgebraicFlips != 0 {
			t.Errorf("%s: width %d, %d non-near-tie flips", id, r.AttnWidth, r.AlgebraicFlips)
		}
	}
}

// A router with an expert-specific additive bias is not eligible, and a
// constructed case shows why: the same logits scaled by a positive alpha
// select a different expert once the bias is added to their sigmoid.
func TestBiasedRouterFlips(t *testing.T) {
	m := reference.MustModel("deepseek-v3")
	if m.LookaheadEligible() || m.LookaheadReason() == "" {
		t.Fatal("deepseek-v3 (noaux_tc bias) must not be eligible, with a reason")
	}
	top1 := dash.ModelSpec{Router: dash.RouterSpec{Scoring: "sigmoid", ExpertBias: true}, FFN: dash.FFNSpec{RoutedExperts: 2, TopK: 1}}
	bias := []float32{0, 0.105}
	early := []float64{1, 0.5} // X diag(gamma) W_r + O W_hat
	alpha := 4.0               // 1/rms(h)
	conv := []float64{alpha * early[0], alpha * early[1]}
	r := newRouter(top1, bias)
	got, want := r.selectInto(nil, early), r.selectInto(nil, conv)
	if slices.Equal(got, want) {
		t.Fatalf("biased router: early %v equals conventional %v; the construction should flip", got, want)
	}
	// Without the bias the same logits agree.
	r = newRouter(dash.ModelSpec{Router: dash.RouterSpec{Scoring: "sigmoid"}, FFN: top1.FFN}, nil)
	if a, b := r.selectInto(nil, early), r.selectInto(nil, conv); !slices.Equal(a, b) {
		t.Fatalf("unbiased router: early %v, conventional %v", a, b)
	}
	// Over random tokens most selections of the biased router differ, and
	// none of those is a rounding near tie: the difference is algebraic.
	rep, err := Check(m, Options{Tokens: 200, Seed: 1, AttnWidth: 64})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Eligible || rep.Disagree == 0 || rep.AlgebraicFlips != rep.Disagree {
		t.Fatalf("deepseek-v3: eligible %v, %d disagree, %d algebraic", rep.Eligible, rep.Disagree, rep.AlgebraicFlips)
	}
}

// Group-limited routing keeps only the best groups.
func TestGroupLimited(t *testing.T) {
	m := dash.ModelSpec{Router: dash.RouterSpec{Scoring: "softmax", GroupLimited: true, Groups: 2, TopKGroups: 1},
		FFN: dash.FFNSpec{RoutedExperts: 4, TopK: 2}}
	// Group 0 = experts 0,1 (max 3); group 1 = experts 2,3 (max 5).
	got := newRouter(m, nil).selectInto(nil, []float64{3, 2.9, 5, -1})
	if !slices.Equal(got, []int{2, 3}) {
		t.Fatalf("group-limited selection = %v, want [2 3]", got)
	}
	// Ties go to the lower index.
	m.Router.GroupLimited = false
	if got := newRouter(m, nil).selectInto(nil, []float64{1, 2, 2, 2}); !slices.Equal(got, []int{1, 2}) {
		t.Fatalf("tie-break = %v, want [1 2]", got)
	}
}

func TestCheckRejectsBadOptions(t *testing.T) {
	m := reference.MustModel("qwen3-30b-a3b")
	for _, o := range []Options{{Tokens: 0}, {Tokens: 1, AttnWidth: -1}, {Tokens: 1, TokensPerDraw: -2}} {
		if _, err := Check(m, o); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: err = %v, want ErrOptions", o, err)
		}
	}
}
