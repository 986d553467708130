// Package lookahead checks numerically that lookahead expert selection (the
// paper's section V-C) picks the same experts as conventional routing.
//
// Conventional routing computes the residual h = X + O W_out, normalises it
// (RMSNorm: alpha = 1/rms(h), then the per-channel gain gamma) and scores the
// experts with P = alpha (h o gamma) W_r. Lookahead splits the logits into
// an input term X diag(gamma) W_r, computed before attention, and an
// attention term O W_hat with W_hat = W_out diag(gamma) W_r precomputed, so
// the top-k is known as soon as attention ends. The two differ by the
// positive per-token factor alpha, which does not change the order of the
// logits, nor of their softmax or sigmoid scores, nor of group maxima: the
// selections agree exactly in real arithmetic.
//
// [Check] draws random X, O, W_out, gamma and W_r at a model's real
// dimensions, computes both paths in FP32 with gonum's BLAS, and counts the
// tokens whose selections agree (ties broken by the lower expert index in
// both). In FP32 the two paths round differently (the association of the
// products differs), so two experts whose scores are closer than the
// rounding error can swap: each disagreement is recomputed in float64 and
// reported with its score gap and the FP32 discrepancy of that token, so a
// flip is shown to be a near tie, not an algebraic difference.
//
// Routers with an expert-specific additive bias (DeepSeek-V3's noaux_tc,
// Kimi K2, GLM) are not eligible: sigmoid(alpha z) + b is not ordered like
// sigmoid(z) + b. The engine keeps late selection for them
// ([dash.ModelSpec.LookaheadReason] says why); Check still runs both paths,
// reports the early path's selections as what lookahead would have chosen,
// and counts how many would differ.
package lookahead
