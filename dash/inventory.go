package dash

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/dash/unit"

	"github.com/dashlab/dashlab/internal/safeio"
)

// TensorClass says what part of the model a stored tensor belongs to.
type TensorClass int

// Tensor classes. A quantisation scale has the class of the weight it scales.
const (
	// ClassEmbedding is the token-embedding matrix (also the LM head when
	// embeddings are tied).
	ClassEmbedding TensorClass = iota
	// ClassLMHead is an untied output projection.
	ClassLMHead
	// ClassFinalNorm is the norm after the last decoder layer.
	ClassFinalNorm
	// ClassAttention covers the q/k/v/o and MLA projections and biases, the
	// per-head q/k norms, the MLA-internal q_a/kv_a norms and the DSA
	// lightning indexer.
	ClassAttention
	// ClassNorm covers the hidden-size norms of a decoder layer (2 for
	// pre-norm, 4 for Grok-1's sandwich norms).
	ClassNorm
	// ClassRouter covers the router's gate weight and its per-expert bias.
	ClassRouter
	// ClassDenseFFN covers the FFN matrices of a dense (non-MoE) layer.
	ClassDenseFFN
	// ClassSharedExpert covers the always-active shared expert(s) of an MoE
	// layer.
	ClassSharedExpert
	// ClassRoutedExpert covers the routed experts of an MoE layer.
	ClassRoutedExpert
	// ClassMTPGlue covers the tensors only a multi-token-prediction layer
	// has: enorm, hnorm, eh_proj, shared_head.norm and any copies of the
	// embedding and LM head it stores.
	ClassMTPGlue
)

var tensorClassNames = [...]string{
	ClassEmbedding: "embedding", ClassLMHead: "lm_head", ClassFinalNorm: "final_norm",
	ClassAttention: "attention", ClassNorm: "norm", ClassRouter: "router",
	ClassDenseFFN: "dense_ffn", ClassSharedExpert: "shared_expert",
	ClassRoutedExpert: "routed_expert", ClassMTPGlue: "mtp_glue",
}

// String returns the class name in snake case ("routed_expert").
func (c TensorClass) String() string {
	if c >= 0 && int(c) < len(tensorClassNames) {
		return tensorClassNames[c]
	}
	return "TensorClass(" + strconv.Itoa(int(c)) + ")"
}

// Tensor is one kind of stored tensor: Count identical tensors (for
// instance the down projection of each of 256 routed experts of a layer).
type Tensor struct {
	// Name is the checkpoint name with the concrete layer number and "{E}"
	// standing for the expert index when Count > 1, e.g.
	// "model.layers.3.mlp.experts.{E}.down_proj.weight_scale_inv". Names
	// follow the Hugging Face layout of the arch; fused expert tensors
	// (Llama 4's gate_up_proj) are listed per expert and per matrix.
	Name string
	// Layer is the decoder layer, -1 for model-level tensors and
	// NumLayers+i for MTP layer i.
	Layer int
	// Class says what part of the model the tensor belongs to.
	Class TensorClass
	// Count is the number of identical tensors this entry stands for (>= 1).
	Count int
	// Shape is the shape of one tensor; linear weights are PyTorch
	// [out, in].
	Shape []int64
	// DType is the storage type.
	DType DType
	// Scale is true for a quantisation scale (not a model parameter).
	Scale bool
	// MTP is true for tensors of a multi-token-prediction layer: stored in
	// the checkpoint, never executed by the simulator.
	MTP bool
}

// Elements returns Count times the product of Shape.
func (t Tensor) Elements() int64 {
	n := int64(t.Count)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Bytes returns the storage of all Count tensors.
func (t Tensor) Bytes() unit.Bytes { return unit.Bytes(t.Elements()) * t.DType.Size() }

// Inventory lists every tensor of a model's checkpoint, about one entry per
// tensor kind per layer (Count carries the expert multiplicity).
type Inventory struct {
	// Model is the ModelSpec ID the inventory was derived from.
	Model string
	// Tensors are the entries: model-level tensors, decoder layers in order,
	// then MTP layers.
	Tensors []Tensor
}

// Inventory derives the checkpoint's tensor list from the spec. Tensor
// shapes follow the arch's layer structure; dtypes follow
// Checkpoint.Layout:
//
//   - "bf16": every tensor BF16.
//   - "int8-mixed" (Grok-1): INT8 attention q/k/v/o and FFN/expert
//     matrices, each with BF16 scales of shape [1, out] for q/k/v and
//     gate/up and [8, out] for o and down (the input axis in 8 blocks);
//     every other tensor (embedding, router, norms) FP32.
//   - "fp8-mixed" (DeepSeek-V3, Kimi-K2): FP8 e4m3 attention, indexer and
//     FFN/expert matrices (the MTP decoder layer included), each with an
//     FP32 weight_scale_inv of shape [ceil(out/128), ceil(in/128)]; FP32
//     e_score_correction_bias; BF16 embedding, LM head, norms, biases,
//     router gate weight, MTP eh_proj and MTP embed/head copies.
//
// MTP layers are full MoE decoder layers plus enorm, hnorm, eh_proj
// [hidden, 2*hidden] and shared_head.norm; deepseek_mla MTP layers also
// store their own embedding and LM-head copies (DeepSeek-V3), GLM MTP layers
// do not. It returns an error when m fails Validate or uses a layout the
// inventory cannot build.
func (m ModelSpec) Inventory() (Inventory, error) {
	if err := m.Validate(); err != nil {
		return Inventory{}, err
	}
	names, err := m.inventoryCheck()
	if err != nil {
		return Inventory{}, err
	}
	moe, err := m.MoELayerSet()
	if err != nil { // unreachable after Validate; kept so no path panics
		return Inventory{}, err
	}
	isMoE := make([]bool, m.NumLayers)
	for _, l := range moe {
		isMoE[l] = true
	}
	// Two passes: the first only measures, so that the second allocates
	// every slice once at its exact size.
	b := &invBuilder{m: m, names: names, layout: m.Checkpoint.Layout, dry: true}
	b.build(isMoE)
	b.reserve()
	b.build(isMoE)
	return Inventory{Model: m.ID, Tensors: b.finish()}, nil
}

// build adds the model-level tensors, the decoder layers and the MTP layers.
func (b *invBuilder) build(isMoE []bool) {
	m := b.m
	b.modelLevel()
	for l := range m.NumLayers {
		b.decoderLayer(l, isMoE[l], false)
	}
	for i := range m.MTPLayers {
		b.decoderLayer(m.NumLayers+i, true, true)
		b.mtpGlue(m.NumLayers + i)
	}
}

// inventoryCheck returns the arch's naming, or an error for what Validate
// allows but the inventory cannot build.
func (m ModelSpec) inventoryCheck() (invArchNames, error) {
	names, ok := invArches[m.Arch]
	if !ok {
		known := make([]string, 0, len(invArches))
		for k := range invArches {
			known = append(known, k)
		}
		slices.Sort(known)
		return names, fmt.Errorf("model %s: arch = %s: inventory knows only %s", m.label(), safeio.Quote(m.Arch), strings.Join(known, ", "))
	}
	if m.Attention.Kind == "mla" && (m.Attention.Bias || m.Attention.QKNorm) {
		return names, fmt.Errorf("model %s: attention.bias = %v, attention.qk_norm = %v: not supported with attention.kind \"mla\"",
			m.label(), m.Attention.Bias, m.Attention.QKNorm)
	}
	return names, nil
}

// invArchNames holds the checkpoint naming of one arch.
type invArchNames struct {
	prefix  string    // before "layers.", "embed_tokens" and "norm"
	head    string    // full name of the untied LM head
	attn    string    // attention module inside a layer
	dense   string    // dense FFN module inside a layer
	router  string    // router weight, without ".weight"
	experts string    // routed experts module, ending in "{E}."
	shared  string    // shared expert module
	proj    [3]string // gate, up and down weight names ("gate_proj.weight")
	norms   []string  // per-layer hidden-size norms, in order
	// mtpCopies is true when an MTP layer stores its own embedding and LM
	// head (DeepSeek-V3) rather than sharing the main model's.
	mtpCopies bool
}

var (
	invPreNorms  = []string{"input_layernorm", "post_attention_layernorm"}
	invSwiGLU    = [3]string{"gate_proj.weight", "up_proj.weight", "down_proj.weight"}
	invDeepSeekN = invArchNames{prefix: "model.", head: "lm_head.weight", attn: "self_attn.", dense: "mlp.",
		router: "mlp.gate", experts: "mlp.experts.{E}.", shared: "mlp.shared_experts.", proj: invSwiGLU, norms: invPreNorms}
)

// invArches maps ModelSpec.Arch to its checkpoint naming.
var invArches = map[string]invArchNames{
	"qwen3_moe": {prefix: "model.", head: "lm_head.weight", attn: "self_attn.", dense: "mlp.",
		router: "mlp.gate", experts: "mlp.experts.{E}.", shared: "mlp.shared_expert.", proj: invSwiGLU, norms: invPreNorms},
	"mixtral": {prefix: "model.", head: "lm_head.weight", attn: "self_attn.", dense: "mlp.",
		router: "block_sparse_moe.gate", experts: "block_sparse_moe.experts.{E}.", shared: "block_sparse_moe.shared_expert.",
		proj: [3]string{"w1.weight", "w3.weight", "w2.weight"}, norms: invPreNorms},
	"grok1": {prefix: "model.", head: "lm_head.weight", attn: "attn.", dense: "mlp.",
		router: "moe_block.gate", experts: "moe_block.experts.{E}.", shared: "moe_block.shared_expert.",
		proj:  [3]string{"linear.weight", "linear_v.weight", "linear_1.weight"},
		norms: []string{"pre_attn_norm", "post_attn_norm", "pre_moe_norm", "post_moe_norm"}},
	"llama4": {prefix: "language_model.model.", head: "language_model.lm_head.weight", attn: "self_attn.",
		dense: "feed_forward.", router: "feed_forward.router", experts: "feed_forward.experts.{E}.",
		shared: "feed_forward.shared_expert.", proj: invSwiGLU, norms: invPreNorms},
	"deepseek_mla": withMTPCopies(invDeepSeekN),
	"glm4_moe":     invDeepSeekN,
	"glm_moe_dsa":  invDeepSeekN,
}

// withMTPCopies returns n for an arch whose MTP layers store their own
// embedding and LM head.
func withMTPCopies(n invArchNames) invArchNames {
	n.mtpCopies = true
	return n
}

// invRole decides a tensor's dtype and whether it gets a scale.
type invRole int

const (
	// roleColLinear is a quantisable matrix whose output axis is split
	// across devices (q/k/v, gate/up, MLA down-projections).
	roleColLinear invRole = iota
	// roleRowLinear is a quantisable matrix whose input axis is split (o,
	// down).
	roleRowLinear
	// roleEmbed is an embedding or LM head (or an MTP copy of one).
	roleEmbed
	// roleSmall is a norm, a bias, a router gate or an unquantised matrix.
	roleSmall
	// roleRouterBias is the per-expert selection bias.
	roleRouterBias
)

const (
	// invFP8Block is the side of DeepSeek's square FP8 scaling blocks.
	invFP8Block = 128
	// invInt8RowBlocks is the number of input-axis blocks of Grok-1's
	// row-parallel scales.
	invInt8RowBlocks = 8
)

// invBuilder appends tensor entries. To keep the inventory cheap, every
// name is written into one byte buffer and every shape into one []int64;
// finish turns the buffer into a single string that the names slice. In a
// dry run it only counts what it would append.
type invBuilder struct {
	m       ModelSpec
	names   invArchNames
	layout  Layout
	tensors []Tensor
	nameBuf strings.Builder
	spans   [][2]int // tensors[i].Name = nameBuf.String()[spans[i][0]:spans[i][1]]
	dims    []int64
	layer   int
	mtp     bool
	lprefix []byte // "model.layers.12.", reused from layer to layer

	dry                        bool
	nTensors, nNameBytes, nDim int
}

// reserve ends a dry run: it allocates exactly what the run counted.
func (b *invBuilder) reserve() {
	b.dry = false
	b.tensors = make([]Tensor, 0, b.nTensors)
	b.spans = make([][2]int, 0, b.nTensors)
	b.nameBuf.Grow(b.nNameBytes)
	b.dims = make([]int64, 0, b.nDim)
}

// push appends t, named b.lprefix+module+name+suffix, with a copy of shape.
func (b *invBuilder) push(t Tensor, module, name, suffix string, shape ...int64) {
	if b.dry {
		b.nTensors++
		b.nNameBytes += len(b.lprefix) + len(module) + len(name) + len(suffix)
		b.nDim += len(shape)
		return
	}
	start := b.nameBuf.Len()
	b.nameBuf.Write(b.lprefix)
	b.nameBuf.WriteString(module)
	b.nameBuf.WriteString(name)
	b.nameBuf.WriteString(suffix)
	b.spans = append(b.spans, [2]int{start, b.nameBuf.Len()})
	d := len(b.dims)
	b.dims = append(b.dims, shape...)
	t.Shape = b.dims[d:len(b.dims):len(b.dims)]
	b.tensors = append(b.tensors, t)
}

// finish sets every tensor's name and returns the tensors.
func (b *invBuilder) finish() []Tensor {
	all := b.nameBuf.String() // no copy: the names share one allocation
	for i, sp := range b.spans {
		b.tensors[i].Name = all[sp[0]:sp[1]]
	}
	return b.tensors
}

// dtype returns the storage type of a tensor with role r.
func (b *invBuilder) dtype(r invRole) DType {
	quantised := r == roleColLinear || r == roleRowLinear
	switch b.layout {
	case LayoutINT8Mixed:
		if quantised {
			return INT8
		}
		return FP32
	case LayoutFP8Mixed:
		switch {
		case quantised:
			return FP8
		case r == roleRouterBias:
			return FP32
		}
	}
	return BF16
}

// add appends count tensors of the given shape, named module+name after the
// layer prefix, and their scale if the layout quantises role r. Names are
// passed in two parts so that building them allocates nothing.
func (b *invBuilder) add(module, name string, class TensorClass, count int, r invRole, shape ...int64) {
	t := Tensor{Layer: b.layer, Class: class, Count: count, DType: b.dtype(r), MTP: b.mtp}
	b.push(t, module, name, "", shape...)
	if r != roleColLinear && r != roleRowLinear {
		return
	}
	base := strings.TrimSuffix(name, ".weight")
	t.Scale = true
	switch b.layout {
	case LayoutINT8Mixed:
		rows := int64(1)
		if r == roleRowLinear {
			rows = invInt8RowBlocks
		}
		t.DType = BF16
		b.push(t, module, base, ".scales", rows, shape[0])
	case LayoutFP8Mixed:
		t.DType = FP32
		b.push(t, module, base, ".weight_scale_inv", ceilDiv(shape[0], invFP8Block), ceilDiv(shape[1], invFP8Block))
	}
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// at moves the builder to layer l (-1: model level).
func (b *invBuilder) at(l int, mtp bool) {
	b.layer, b.mtp = l, mtp
	b.lprefix = append(b.lprefix[:0], b.names.prefix...)
	if l >= 0 {
		b.lprefix = append(strconv.AppendInt(append(b.lprefix, "layers."...), int64(l), 10), '.')
	}
}

// modelLevel adds the embedding, final norm and LM head.
func (b *invBuilder) modelLevel() {
	m := b.m
	h, v := int64(m.HiddenSize), int64(m.VocabSize)
	b.at(-1, false)
	b.add("", "embed_tokens.weight", ClassEmbedding, 1, roleEmbed, v, h)
	b.add("", "norm.weight", ClassFinalNorm, 1, roleSmall, h)
	if !m.TieEmbeddings {
		b.lprefix = b.lprefix[:0]
		b.add("", b.names.head, ClassLMHead, 1, roleEmbed, v, h)
	}
}

// decoderLayer adds the attention, norms and FFN of layer l.
func (b *invBuilder) decoderLayer(l int, moe, mtp bool) {
	b.at(l, mtp)
	if b.m.Attention.Kind == "mla" {
		b.mlaAttention()
	} else {
		b.gqaAttention()
	}
	h := int64(b.m.HiddenSize)
	for i := range b.m.Norm.PerLayer {
		b.add(b.normName(i), ".weight", ClassNorm, 1, roleSmall, h)
	}
	if moe {
		b.moeBlock()
	} else {
		b.ffn(b.names.dense, ClassDenseFFN, 1, int64(b.m.FFN.DenseIntermediate))
	}
}

// normName names the i-th per-layer norm.
func (b *invBuilder) normName(i int) string {
	if i < len(b.names.norms) {
		return b.names.norms[i]
	}
	return "norm_" + strconv.Itoa(i)
}

// gqaAttention adds q/k/v/o, their biases and the q/k norms.
func (b *invBuilder) gqaAttention() {
	a, h := b.m.Attention, int64(b.m.HiddenSize)
	q, kv := int64(a.Heads*a.HeadDim), int64(a.KVHeads*a.HeadDim)
	p := b.names.attn
	b.add(p, "q_proj.weight", ClassAttention, 1, roleColLinear, q, h)
	b.add(p, "k_proj.weight", ClassAttention, 1, roleColLinear, kv, h)
	b.add(p, "v_proj.weight", ClassAttention, 1, roleColLinear, kv, h)
	b.add(p, "o_proj.weight", ClassAttention, 1, roleRowLinear, h, q)
	if a.Bias {
		b.add(p, "q_proj.bias", ClassAttention, 1, roleSmall, q)
		b.add(p, "k_proj.bias", ClassAttention, 1, roleSmall, kv)
		b.add(p, "v_proj.bias", ClassAttention, 1, roleSmall, kv)
	}
	if a.QKNorm {
		b.add(p, "q_norm.weight", ClassAttention, 1, roleSmall, int64(a.HeadDim))
		b.add(p, "k_norm.weight", ClassAttention, 1, roleSmall, int64(a.HeadDim))
	}
}

// mlaAttention adds the multi-head latent attention projections, their
// internal norms and the DSA indexer.
func (b *invBuilder) mlaAttention() {
	a, h := b.m.Attention, int64(b.m.HiddenSize)
	l := a.MLA
	heads, rope := int64(a.Heads), int64(l.QKRopeHeadDim)
	qk := int64(l.QKNopeHeadDim) + rope
	p := b.names.attn
	qIn := h // input of the query up-projection (and of the indexer's)
	if l.QLoraRank > 0 {
		qIn = int64(l.QLoraRank)
		b.add(p, "q_a_proj.weight", ClassAttention, 1, roleColLinear, qIn, h)
		b.add(p, "q_a_layernorm.weight", ClassAttention, 1, roleSmall, qIn)
		b.add(p, "q_b_proj.weight", ClassAttention, 1, roleColLinear, heads*qk, qIn)
	} else {
		b.add(p, "q_proj.weight", ClassAttention, 1, roleColLinear, heads*qk, h)
	}
	kvr := int64(l.KVLoraRank)
	b.add(p, "kv_a_proj_with_mqa.weight", ClassAttention, 1, roleColLinear, kvr+rope, h)
	b.add(p, "kv_a_layernorm.weight", ClassAttention, 1, roleSmall, kvr)
	b.add(p, "kv_b_proj.weight", ClassAttention, 1, roleColLinear, heads*(int64(l.QKNopeHeadDim)+int64(l.VHeadDim)), kvr)
	b.add(p, "o_proj.weight", ClassAttention, 1, roleRowLinear, h, heads*int64(l.VHeadDim))
	if ix := l.Indexer; ix != nil {
		ip, ihd := p+"indexer.", int64(ix.HeadDim)
		b.add(ip, "wq_b.weight", ClassAttention, 1, roleColLinear, int64(ix.Heads)*ihd, qIn)
		b.add(ip, "wk.weight", ClassAttention, 1, roleColLinear, ihd, h)
		b.add(ip, "k_norm.weight", ClassAttention, 1, roleSmall, ihd)
		b.add(ip, "k_norm.bias", ClassAttention, 1, roleSmall, ihd)
		b.add(ip, "weights_proj.weight", ClassAttention, 1, roleColLinear, int64(ix.Heads), h)
	}
}

// moeBlock adds the router, the shared expert(s) and the routed experts.
func (b *invBuilder) moeBlock() {
	f, h := b.m.FFN, int64(b.m.HiddenSize)
	e := int64(f.RoutedExperts)
	b.add(b.names.router, ".weight", ClassRouter, 1, roleSmall, e, h)
	if b.m.Router.ExpertBias {
		b.add(b.names.router, ".e_score_correction_bias", ClassRouter, 1, roleRouterBias, e)
	}
	if f.SharedExperts > 0 {
		b.ffn(b.names.shared, ClassSharedExpert, 1, int64(f.SharedIntermediate))
	}
	b.ffn(b.names.experts, ClassRoutedExpert, f.RoutedExperts, int64(f.MoEIntermediate))
}

// ffn adds count gated FFNs (gate, up, down) of width inter under module.
func (b *invBuilder) ffn(module string, class TensorClass, count int, inter int64) {
	h := int64(b.m.HiddenSize)
	b.add(module, b.names.proj[0], class, count, roleColLinear, inter, h)
	b.add(module, b.names.proj[1], class, count, roleColLinear, inter, h)
	b.add(module, b.names.proj[2], class, count, roleRowLinear, h, inter)
}

// mtpGlue adds the MTP-only tensors of MTP layer l.
func (b *invBuilder) mtpGlue(l int) {
	b.at(l, true)
	h, v := int64(b.m.HiddenSize), int64(b.m.VocabSize)
	b.add("", "enorm.weight", ClassMTPGlue, 1, roleSmall, h)
	b.add("", "hnorm.weight", ClassMTPGlue, 1, roleSmall, h)
	b.add("", "eh_proj.weight", ClassMTPGlue, 1, roleSmall, h, 2*h)
	b.add("", "shared_head.norm.weight", ClassMTPGlue, 1, roleSmall, h)
	if b.names.mtpCopies {
		b.add("", "embed_tokens.weight", ClassMTPGlue, 1, roleEmbed, v, h)
		b.add("", "shared_head.head.weight", ClassMTPGlue, 1, roleEmbed, v, h)
	}
}

// Footprint summarises a model's parameters and checkpoint bytes.
//
// Parameter counts exclude quantisation scales; the *Params fields other
// than MTPParams cover the main model only. Byte fields include scales.
// Bytes = MainBytes + MTPBytes, MainBytes = RoutedExpertBytes +
// SharedExpertBytes + NonExpertBytes, and ScaleBytes is the part of Bytes
// (main and MTP) that is quantisation scales.
type Footprint struct {
	// Params counts the main model's parameters (no MTP, no scales).
	Params int64
	// MTPParams counts the parameters of the MTP layers, their glue and any
	// embedding/head copies.
	MTPParams int64
	// RoutedParams counts the routed experts of every MoE layer.
	RoutedParams int64
	// SharedParams counts the shared experts of every MoE layer.
	SharedParams int64
	// NonExpertParams is Params - RoutedParams - SharedParams: attention,
	// norms, routers, dense FFNs, embedding and LM head.
	NonExpertParams int64
	// EmbeddingParams counts the embedding and LM head (a tied matrix once).
	EmbeddingParams int64
	// ActiveParams counts the parameters one token uses: every non-expert
	// parameter (embedding and head included), the shared experts and TopK
	// routed experts of every MoE layer.
	ActiveParams int64

	// Bytes is the whole checkpoint: main model, MTP layers and scales
	// (Table II's "Weights").
	Bytes unit.Bytes
	// MainBytes is the main model, its scales included.
	MainBytes unit.Bytes
	// MTPBytes is the MTP layers, their scales included.
	MTPBytes unit.Bytes
	// ScaleBytes is the quantisation scales of main model and MTP layers.
	ScaleBytes unit.Bytes
	// RoutedExpertBytes is the main model's routed experts with scales.
	RoutedExpertBytes unit.Bytes
	// SharedExpertBytes is the main model's shared experts with scales.
	SharedExpertBytes unit.Bytes
	// NonExpertBytes is the rest of the main model with scales.
	NonExpertBytes unit.Bytes

	// ExpertSharePct is 100 * RoutedParams / Params: the routed experts'
	// share of the main model's parameters. Of the definitions tried
	// (routed or routed+shared, over all parameters or over parameters less
	// embedding and head, in parameters or checkpoint bytes) its catalogue
	// range (the reproduction's fig1.expert_share_pct.* rows) is the closest
	// to the paper's Fig. 1 claim of 94.1-98.8%.
	ExpertSharePct float64
	// BytesPerExpert is one routed expert of one MoE layer, scales
	// included: the unit an expert fetch moves.
	BytesPerExpert unit.Bytes
	// KVBytesPerTokenPerLayer is the BF16 KV cache one token adds to one
	// layer: GQA 2 * kv_heads * head_dim * 2 B; MLA (kv_lora_rank +
	// qk_rope_head_dim) * 2 B, plus the DSA indexer's key head_dim * 2 B
	// when the model has an indexer (GLM-5).
	KVBytesPerTokenPerLayer unit.Bytes
	// MoELayers and DenseLayers count the main model's layers by FFN kind.
	MoELayers, DenseLayers int
}

// Footprint derives the inventory and summarises it; see
// [Inventory.Footprint].
func (m ModelSpec) Footprint() (Footprint, error) {
	inv, err := m.Inventory()
	if err != nil {
		return Footprint{}, err
	}
	return inv.Footprint(m), nil
}

// Footprint summarises inv, which must have been derived from m (m supplies
// TopK, the layer count and the KV geometry).
func (inv Inventory) Footprint(m ModelSpec) Footprint {
	var f Footprint
	var activeRouted int64
	firstMoE := -1
	for _, t := range inv.Tensors {
		n, bytes := t.Elements(), t.Bytes()
		f.Bytes += bytes
		if t.Scale {
			f.ScaleBytes += bytes
		}
		if t.MTP {
			f.MTPBytes += bytes
			if !t.Scale {
				f.MTPParams += n
			}
			continue
		}
		f.MainBytes += bytes
		switch t.Class {
		case ClassRoutedExpert:
			f.RoutedExpertBytes += bytes
			if firstMoE < 0 {
				firstMoE = t.Layer
			}
			if t.Layer == firstMoE {
				f.BytesPerExpert += bytes / unit.Bytes(t.Count)
			}
		case ClassSharedExpert:
			f.SharedExpertBytes += bytes
		}
		if t.Scale {
			continue
		}
		f.Params += n
		switch t.Class {
		case ClassRoutedExpert:
			f.RoutedParams += n
			activeRouted += n / int64(t.Count) * int64(m.FFN.TopK)
		case ClassSharedExpert:
			f.SharedParams += n
		case ClassEmbedding, ClassLMHead:
			f.EmbeddingParams += n
		}
	}
	f.NonExpertParams = f.Params - f.RoutedParams - f.SharedParams
	f.NonExpertBytes = f.MainBytes - f.RoutedExpertBytes - f.SharedExpertBytes
	f.ActiveParams = f.NonExpertParams + f.SharedParams + activeRouted
	if f.Params > 0 {
		f.ExpertSharePct = 100 * float64(f.RoutedParams) / float64(f.Params)
	}
	f.KVBytesPerTokenPerLayer = inventoryKVBytes(m)
	if set, err := m.MoELayerSet(); err == nil {
		f.MoELayers = len(set)
		f.DenseLayers = m.NumLayers - len(set)
	}
	return f
}

// inventoryKVBytes returns the BF16 KV-cache bytes one token adds to one
// layer (see Footprint.KVBytesPerTokenPerLayer).
func inventoryKVBytes(m ModelSpec) unit.Bytes {
	bf16 := BF16.Size()
	a := m.Attention
	if a.Kind != "mla" || a.MLA == nil {
		return unit.Bytes(2*a.KVHeads*a.HeadDim) * bf16
	}
	kv := unit.Bytes(a.MLA.KVLoraRank+a.MLA.QKRopeHeadDim) * bf16
	if a.MLA.Indexer != nil {
		kv += unit.Bytes(a.MLA.Indexer.HeadDim) * bf16
	}
	return kv
}

// LayerWeights is the checkpoint bytes of one main-model decoder layer, by
// part, scales included.
type LayerWeights struct {
	// Layer is the 0-based decoder layer.
	Layer int
	// MoE is true for an MoE layer, false for a dense one.
	MoE bool
	// Attention, Norms, Router, DenseFFN and SharedExperts are the bytes of
	// the layer's tensors of that class.
	Attention, Norms, Router, DenseFFN, SharedExperts unit.Bytes
	// RoutedExpert is the bytes of ONE routed expert; the layer stores
	// RoutedExperts of them.
	RoutedExpert unit.Bytes
	// RoutedExperts is the number of routed experts (0 in a dense layer).
	RoutedExperts int
}

// Total returns the layer's bytes: every part plus all its routed experts.
func (w LayerWeights) Total() unit.Bytes {
	return w.Attention + w.Norms + w.Router + w.DenseFFN + w.SharedExperts +
		w.RoutedExpert*unit.Bytes(w.RoutedExperts)
}

// Layers returns the bytes of main-model layers 0..m.NumLayers-1 in order.
// Model-level tensors (embedding, final norm, LM head) and MTP layers are
// not included.
func (inv Inventory) Layers(m ModelSpec) []LayerWeights {
	if m.NumLayers <= 0 {
		return nil
	}
	out := make([]LayerWeights, m.NumLayers)
	for i := range out {
		out[i].Layer = i
	}
	for _, t := range inv.Tensors {
		if t.MTP || t.Layer < 0 || t.Layer >= m.NumLayers {
			continue
		}
		w := &out[t.Layer]
		bytes := t.Bytes()
		switch t.Class {
		case ClassAttention:
			w.Attention += bytes
		case ClassNorm:
			w.Norms += bytes
		case ClassRouter:
			w.Router += bytes
		case ClassDenseFFN:
			w.DenseFFN += bytes
		case ClassSharedExpert:
			w.SharedExperts += bytes
		case ClassRoutedExpert:
			w.MoE = true
			w.RoutedExpert += bytes / unit.Bytes(t.Count)
			w.RoutedExperts = t.Count
		}
	}
	return out
}
