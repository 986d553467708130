package dash

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dashlab/dashlab/internal/safeio"
)

// ModelSpec describes an MoE language model's architecture: enough to derive
// every stored tensor (see [ModelSpec.Inventory]), the per-layer operator
// shapes the GPU executes, and the KV-cache footprint. It is a plain value
// with yaml tags; catalogue models live in reference/models/*.yaml, one file
// per model, with their sources.
type ModelSpec struct {
	// ID is the catalogue id, lower-case with dashes ("qwen3-235b-a22b"):
	// at most MaxModelID letters, digits and . _ + - /.
	ID string `yaml:"id"`
	// Name is the display name ("Qwen3-235B-A22B").
	Name string `yaml:"name"`
	// Sources lists where each value was read.
	Sources []string `yaml:"sources,omitempty"`
	// Arch names the tensor layout family: qwen3_moe, mixtral, grok1, llama4,
	// deepseek_mla, glm4_moe or glm_moe_dsa.
	Arch string `yaml:"arch"`
	// HiddenSize is the residual-stream width.
	HiddenSize int `yaml:"hidden_size"`
	// NumLayers counts the decoder layers of the main model (MTP layers are
	// counted in MTPLayers).
	NumLayers int `yaml:"num_layers"`
	// VocabSize is the embedding and LM-head vocabulary.
	VocabSize int `yaml:"vocab_size"`
	// TieEmbeddings is true when the LM head reuses the embedding matrix.
	TieEmbeddings bool `yaml:"tie_embeddings"`
	// MaxContext is the supported context window in tokens (0 when unknown).
	MaxContext int `yaml:"max_context"`
	// Attention describes the attention block.
	Attention AttentionSpec `yaml:"attention"`
	// FFN describes the dense FFN and MoE blocks.
	FFN FFNSpec `yaml:"ffn"`
	// Router describes expert selection.
	Router RouterSpec `yaml:"router"`
	// Norm describes the normalisation layers.
	Norm NormSpec `yaml:"norm"`
	// MTPLayers counts multi-token-prediction decoder layers stored in the
	// checkpoint (DeepSeek-V3: 1). They occupy capacity but are not executed.
	MTPLayers int `yaml:"mtp_layers"`
	// Checkpoint is the dtype layout of the released weights.
	Checkpoint CheckpointSpec `yaml:"checkpoint"`
	// Notes carries caveats (unverified values and the like).
	Notes string `yaml:"notes,omitempty"`
}

// AttentionSpec describes a GQA or MLA attention block.
type AttentionSpec struct {
	// Kind is "gqa" (grouped-query, including MHA and MQA) or "mla"
	// (multi-head latent attention).
	Kind string `yaml:"kind"`
	// Heads is the number of query heads.
	Heads int `yaml:"heads"`
	// KVHeads is the number of key/value heads (GQA). For MLA it is reported
	// as in the model config and does not size the KV cache.
	KVHeads int `yaml:"kv_heads"`
	// HeadDim is the query/key head dimension (MLA: nope + rope).
	HeadDim int `yaml:"head_dim"`
	// QKNorm is true when q and k get a per-head RMSNorm with weights.
	QKNorm bool `yaml:"qk_norm"`
	// Bias is true when the q, k and v projections have biases.
	Bias bool `yaml:"bias"`
	// ChunkSize is the local-attention chunk of chunked-attention layers
	// (Llama 4 iRoPE: 8192 on three of every four layers); 0 for none.
	ChunkSize int `yaml:"chunk_size,omitempty"`
	// GlobalEvery makes every GlobalEvery-th layer (layers GlobalEvery-1,
	// 2*GlobalEvery-1, ...) attend over the whole context when ChunkSize is
	// set (Llama 4: 4, its NoPE layers); 0 chunks every layer.
	GlobalEvery int `yaml:"global_every,omitempty"`
	// MLA holds the latent-attention ranks when Kind is "mla".
	MLA *MLASpec `yaml:"mla,omitempty"`
}

// MLASpec holds DeepSeek-style multi-head latent attention dimensions.
type MLASpec struct {
	// QLoraRank is the query compression rank (0: no compression).
	QLoraRank int `yaml:"q_lora_rank"`
	// KVLoraRank is the width of the cached KV latent (512).
	KVLoraRank int `yaml:"kv_lora_rank"`
	// QKNopeHeadDim is the per-head query/key width without RoPE.
	QKNopeHeadDim int `yaml:"qk_nope_head_dim"`
	// QKRopeHeadDim is the per-head RoPE width, cached once per token (64).
	QKRopeHeadDim int `yaml:"qk_rope_head_dim"`
	// VHeadDim is the per-head value width.
	VHeadDim int `yaml:"v_head_dim"`
	// Indexer is the DeepSeek-Sparse-Attention lightning indexer (GLM-5);
	// nil when the model has none.
	Indexer *IndexerSpec `yaml:"indexer,omitempty"`
}

// IndexerSpec is a DeepSeek-Sparse-Attention lightning indexer.
type IndexerSpec struct {
	// Heads is the number of indexer heads.
	Heads int `yaml:"heads"`
	// HeadDim is the indexer key width, cached per token.
	HeadDim int `yaml:"head_dim"`
	// TopK is the number of tokens each query attends to.
	TopK int `yaml:"top_k"`
}

// FFNSpec describes the feed-forward blocks: dense FFN layers and MoE layers.
type FFNSpec struct {
	// Activation is "swiglu" (silu(gate) * up) or "geglu" (gelu(gate) * up);
	// both have three matrices per FFN.
	Activation string `yaml:"activation"`
	// DenseIntermediate is the width of dense (non-MoE) FFN layers; 0 when
	// every layer is MoE.
	DenseIntermediate int `yaml:"dense_intermediate"`
	// MoEIntermediate is the width of one routed expert.
	MoEIntermediate int `yaml:"moe_intermediate"`
	// RoutedExperts is the number of routed experts per MoE layer.
	RoutedExperts int `yaml:"routed_experts"`
	// SharedExperts is the number of always-active shared experts per MoE layer.
	SharedExperts int `yaml:"shared_experts"`
	// SharedIntermediate is the total width of the shared expert(s) of a layer.
	SharedIntermediate int `yaml:"shared_intermediate"`
	// TopK is the number of routed experts selected per token.
	TopK int `yaml:"top_k"`
	// MoELayers lists the 0-based MoE layers as ranges: "0-93", "3-60",
	// "1-47/2" (every second layer from 1 to 47), or "1,3,5". Other layers
	// are dense.
	MoELayers string `yaml:"moe_layers"`
}

// RouterSpec describes how a token's experts are selected.
type RouterSpec struct {
	// Scoring is "softmax" or "sigmoid".
	Scoring string `yaml:"scoring"`
	// NormalizeTopK is true when the selected gate weights are renormalised.
	NormalizeTopK bool `yaml:"normalize_top_k"`
	// ExpertBias is true when a per-expert additive bias takes part in
	// selection (DeepSeek-V3 e_score_correction_bias). Such routers are not
	// scale-invariant with an additive term, so lookahead selection is off.
	ExpertBias bool `yaml:"expert_bias"`
	// GroupLimited is true when selection is limited to the best TopKGroups of
	// Groups expert groups.
	GroupLimited bool `yaml:"group_limited"`
	// Groups is the number of expert groups.
	Groups int `yaml:"groups,omitempty"`
	// TopKGroups is the number of groups a token may select from.
	TopKGroups int `yaml:"top_k_groups,omitempty"`
	// ScalingFactor multiplies the routed output (1 when absent; 0 to
	// MaxScalingFactor, finite).
	ScalingFactor float64 `yaml:"scaling_factor,omitempty"`
}

// NormSpec describes the model's normalisation.
type NormSpec struct {
	// Kind is "rmsnorm".
	Kind string `yaml:"kind"`
	// PerLayer counts the hidden-size norms per decoder layer: 2 for pre-norm,
	// 4 for Grok-1's sandwich norms.
	PerLayer int `yaml:"per_layer"`
	// Eps is the epsilon (informational; 0 to MaxNormEps, finite).
	Eps float64 `yaml:"eps,omitempty"`
}

// CheckpointSpec is the dtype layout of the released checkpoint.
type CheckpointSpec struct {
	// Layout is "bf16" (every tensor BF16), "int8-mixed" (Grok-1: INT8
	// attention and expert matrices with BF16 scales, FP32 embedding, router
	// and norms) or "fp8-mixed" (DeepSeek-V3: FP8 e4m3 linear weights with
	// FP32 128x128 block scales, BF16 embeddings, head, norms and router).
	Layout Layout `yaml:"layout"`
}

// Dense reports whether the model has any dense (non-MoE) FFN layer.
func (m ModelSpec) Dense() bool { return m.FFN.DenseIntermediate > 0 }

// MoELayerSet expands FFN.MoELayers into a sorted list of layer indices.
func (m ModelSpec) MoELayerSet() ([]int, error) {
	return parseLayerList(m.FFN.MoELayers, m.NumLayers)
}

// IsMoELayer reports whether layer i is an MoE layer. It returns false for a
// spec whose MoELayers does not parse (Validate reports that).
func (m ModelSpec) IsMoELayer(i int) bool {
	set, err := m.MoELayerSet()
	if err != nil {
		return false
	}
	_, found := slices.BinarySearch(set, i)
	return found
}

// AttentionSpan is the number of context tokens layer i attends to when the
// context holds ctx tokens: ctx, or for a chunked-attention layer the tokens
// of the current chunk (ctx - floor((ctx-1)/ChunkSize)*ChunkSize).
func (m ModelSpec) AttentionSpan(i, ctx int) int {
	c := m.Attention.ChunkSize
	if c <= 0 || ctx <= c {
		return ctx
	}
	if g := m.Attention.GlobalEvery; g > 0 && (i+1)%g == 0 {
		return ctx
	}
	return ctx - ((ctx-1)/c)*c
}

// SameAttentionSpan reports whether layers i and j attend over the same
// span at every context length (see AttentionSpan).
func (m ModelSpec) SameAttentionSpan(i, j int) bool {
	if m.Attention.ChunkSize <= 0 {
		return true
	}
	g := m.Attention.GlobalEvery
	global := func(l int) bool { return g > 0 && (l+1)%g == 0 }
	return global(i) == global(j)
}

// OutputProjectionWidth is the input width of the attention output
// projection: heads x head_dim (MLA: heads x v_head_dim).
func (m ModelSpec) OutputProjectionWidth() int {
	if m.Attention.Kind == "mla" && m.Attention.MLA != nil {
		return m.Attention.Heads * m.Attention.MLA.VHeadDim
	}
	return m.Attention.Heads * m.Attention.HeadDim
}

// LookaheadEligible reports whether exact early expert selection (the
// paper's section V-C) applies: the router must be scale-invariant and free
// of an expert-specific additive bias.
func (m ModelSpec) LookaheadEligible() bool { return m.LookaheadReason() == "" }

// LookaheadReason says why early expert selection does not apply to the
// model's router ("" when it does). A positive per-token factor alpha
// (the RMSNorm's 1/rms) preserves the order of the logits, hence of their
// softmax or sigmoid scores and of group maxima; an expert-specific
// additive bias added after the score function breaks that: the order of
// sigmoid(alpha z) + b depends on alpha.
func (m ModelSpec) LookaheadReason() string {
	if m.Router.ExpertBias {
		return fmt.Sprintf("router of %s adds an expert-specific bias to its %s scores before top-k (noaux_tc-style e_score_correction_bias): "+
			"the order of %s(alpha z) + b depends on the RMS factor alpha, so selection stays late (conventional)", m.ID, m.Router.Scoring, m.Router.Scoring)
	}
	return ""
}

// parseLayerList parses "0-93", "1-47/2", "1,3,5" or a mix into sorted,
// unique layer indices within [0, n).
func parseLayerList(s string, n int) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		step := 1
		if i := strings.Index(part, "/"); i >= 0 {
			v, err := strconv.Atoi(strings.TrimSpace(part[i+1:]))
			if err != nil || v < 1 {
				return nil, fmt.Errorf("layer list %s: bad step in %s", safeio.Quote(s), safeio.Quote(part))
			}
			step, part = v, strings.TrimSpace(part[:i])
		}
		lo, hi := part, part
		if i := strings.Index(part, "-"); i >= 0 {
			lo, hi = strings.TrimSpace(part[:i]), strings.TrimSpace(part[i+1:])
		}
		a, errA := strconv.Atoi(lo)
		b, errB := strconv.Atoi(hi)
		if errA != nil || errB != nil {
			return nil, fmt.Errorf("layer list %s: %s is not a layer or a range a-b", safeio.Quote(s), safeio.Quote(part))
		}
		if a > b {
			return nil, fmt.Errorf("layer list %s: range %s runs backwards", safeio.Quote(s), safeio.Quote(part))
		}
		if a < 0 || b >= n {
			return nil, fmt.Errorf("layer list %s: %s is outside layers 0-%d", safeio.Quote(s), safeio.Quote(part), n-1)
		}
		if len(out)+(b-a)/step >= 16*n+16 { // bounds the work of a hostile list
			return nil, fmt.Errorf("layer list %s: names more than 16 x %d layers", safeio.Quote(s), n)
		}
		for i := a; i <= b; i += step {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Validate checks the spec and returns every problem found, each naming the
// field and its bad value.
func (m ModelSpec) Validate() error {
	var errs []error
	bad := func(field string, v any, why string) {
		errs = append(errs, fmt.Errorf("model %s: %s = %v: %s", m.label(), field, v, why))
	}
	switch {
	case m.ID == "":
		bad("id", `""`, "must be set")
	case len(m.ID) > MaxModelID || !modelID().MatchString(m.ID):
		bad("id", safeio.Quote(m.ID), fmt.Sprintf("want at most %d letters, digits and . _ + - / (starting with a letter or digit)", MaxModelID))
	}
	if len(m.Name) > MaxModelName || strings.ContainsAny(m.Name, "\n\r") {
		bad("name", safeio.Quote(m.Name), fmt.Sprintf("want one line of at most %d bytes", MaxModelName))
	}
	if !(m.Norm.Eps >= 0 && m.Norm.Eps <= MaxNormEps) {
		bad("norm.eps", m.Norm.Eps, fmt.Sprintf("outside the plausible range 0 (absent) .. %g", MaxNormEps))
	}
	if !(m.Router.ScalingFactor >= 0 && m.Router.ScalingFactor <= MaxScalingFactor) {
		bad("router.scaling_factor", m.Router.ScalingFactor, fmt.Sprintf("outside the plausible range 0 (absent: 1) .. %g", float64(MaxScalingFactor)))
	}
	for _, err := range m.limits() {
		errs = append(errs, fmt.Errorf("model %s: %w", m.label(), err))
	}
	if m.FFN.TopK > m.FFN.RoutedExperts && m.FFN.RoutedExperts > 0 {
		bad("ffn.top_k", m.FFN.TopK, fmt.Sprintf("exceeds ffn.routed_experts (%d)", m.FFN.RoutedExperts))
	}
	if (m.FFN.SharedExperts > 0) != (m.FFN.SharedIntermediate > 0) {
		bad("ffn.shared_intermediate", m.FFN.SharedIntermediate,
			fmt.Sprintf("must be positive exactly when ffn.shared_experts (%d) is", m.FFN.SharedExperts))
	}
	switch m.FFN.Activation {
	case "swiglu", "geglu":
	default:
		bad("ffn.activation", safeio.Quote(string(m.FFN.Activation)), `must be "swiglu" or "geglu"`)
	}
	switch m.Attention.Kind {
	case "gqa":
		if m.Attention.KVHeads <= 0 || (m.Attention.Heads > 0 && m.Attention.Heads%m.Attention.KVHeads != 0) {
			bad("attention.kv_heads", m.Attention.KVHeads, fmt.Sprintf("must be positive and divide attention.heads (%d)", m.Attention.Heads))
		}
		if m.Attention.MLA != nil {
			bad("attention.mla", "set", `only allowed with attention.kind "mla"`)
		}
	case "mla":
		if m.Attention.MLA == nil {
			bad("attention.mla", "missing", `required with attention.kind "mla"`)
		} else {
			l := m.Attention.MLA
			for _, p := range []struct {
				name string
				v    int
			}{{"q_lora_rank", l.QLoraRank}, {"kv_lora_rank", l.KVLoraRank}, {"qk_nope_head_dim", l.QKNopeHeadDim},
				{"qk_rope_head_dim", l.QKRopeHeadDim}, {"v_head_dim", l.VHeadDim}} {
				if p.v < 0 || (p.v == 0 && p.name != "q_lora_rank") {
					bad("attention.mla."+p.name, p.v, "must be positive")
				}
			}
		}
	default:
		bad("attention.kind", safeio.Quote(string(m.Attention.Kind)), `must be "gqa" or "mla"`)
	}
	switch m.Router.Scoring {
	case "softmax", "sigmoid":
	default:
		bad("router.scoring", safeio.Quote(string(m.Router.Scoring)), `must be "softmax" or "sigmoid"`)
	}
	if m.Router.GroupLimited && (m.Router.Groups <= 0 || m.Router.TopKGroups <= 0 || m.Router.TopKGroups > m.Router.Groups) {
		bad("router.top_k_groups", m.Router.TopKGroups, fmt.Sprintf("needs 0 < top_k_groups <= groups (%d) when group_limited", m.Router.Groups))
	}
	if m.Norm.Kind != "rmsnorm" {
		bad("norm.kind", safeio.Quote(string(m.Norm.Kind)), `must be "rmsnorm"`)
	}
	switch m.Checkpoint.Layout {
	case LayoutBF16, LayoutINT8Mixed, LayoutFP8Mixed:
	default:
		bad("checkpoint.layout", safeio.Quote(string(m.Checkpoint.Layout)), `must be "bf16", "int8-mixed" or "fp8-mixed"`)
	}
	if m.NumLayers > 0 && m.NumLayers <= MaxLayers { // beyond, limits() reports num_layers
		set, err := m.MoELayerSet()
		if err != nil {
			bad("ffn.moe_layers", safeio.Quote(string(m.FFN.MoELayers)), err.Error())
		} else {
			if len(set) == 0 {
				bad("ffn.moe_layers", safeio.Quote(string(m.FFN.MoELayers)), "an MoE model needs at least one MoE layer")
			}
			if len(set) < m.NumLayers && m.FFN.DenseIntermediate == 0 {
				bad("ffn.dense_intermediate", 0, fmt.Sprintf("%d layers are dense but they have no width", m.NumLayers-len(set)))
			}
		}
	}
	return errors.Join(errs...)
}

func (m ModelSpec) label() string {
	if m.ID != "" {
		return safeio.Clip(m.ID)
	}
	return "(no id)"
}

// Bounds of a model file's text and real-valued fields (the integer sizes
// are bounded in limits.go): MaxModelID bytes of id (letters, digits and
// . _ + - /, as in a derived "qwen3-235b-a22b/tp1-ep8"), MaxModelName bytes of name, norm.eps from 0 to MaxNormEps
// (catalogue: 1e-6, 1e-5) and router.scaling_factor from 0 to
// MaxScalingFactor (catalogue: 1 to 16); NaN and infinities are refused.
const (
	MaxModelID       = 256
	MaxModelName     = 256
	MaxNormEps       = 0.1
	MaxScalingFactor = 1000
)

var modelID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._+/-]*$`) })
