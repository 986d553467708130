package sim

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/gpu"
	"github.com/dashlab/dashlab/dash/unit"
)

// opSpec is one GPU operator of a pass, with the data it reads and writes.
type opSpec struct {
	class OpClass
	layer int // -1 for model-level operators
	// compute is the GPU time with operands on chip; overhead the fixed
	// per-operator time (see package gpu).
	compute, overhead unit.Duration
	// weights read by the operator; replicated when they have an HBM copy
	// (otherwise they live in HBF only).
	weights    unit.Bytes
	replicated bool
	// KV cache read from HBM (decode KV) and from HBF (prefill KV).
	kvHBM, kvHBF unit.Bytes
	// KV written asynchronously: the prefill KV to HBF, decode KV to HBM,
	// and HBM-resident KV written back to HBF over the HBM-HBF path.
	kvWriteHBF, kvWriteHBM, kvWriteback unit.Bytes
	// gather is data read from HBF whose address is known only at the
	// operator's start (embedding rows).
	gather unit.Bytes
	// MoE block: shared experts (predictable) and selected routed experts
	// (known when routing completes), each of expertBytes/sharedBytes.
	sharedN, routedN        int
	sharedBytes, expertSize unit.Bytes
	// cachedN of the routedN selected experts are held by the HBM expert
	// cache and read from HBM when the operator starts; cacheFill bytes of
	// missed experts are written into HBM (the cache's fills).
	cachedN   int
	cacheFill unit.Bytes
	// routing marks the operator whose completion determines the selected
	// experts of the next MoE operator.
	routing bool
}

// cachedBytes is the selected experts' bytes read from the HBM expert
// cache.
func (o *opSpec) cachedBytes() unit.Bytes { return unit.Bytes(o.cachedN) * o.expertSize }

// readsHBF reports whether the operator reads any HBF-resident data:
// weights (every weight has an HBF copy), HBF KV, experts or gathered rows.
func (o *opSpec) readsHBF() bool {
	return o.weights > 0 || o.kvHBF > 0 || o.sharedN > 0 || o.routedN > 0 || o.gather > 0
}

// pass is the operator program of one forward pass.
type pass struct {
	ops []opSpec
	// layerEnd[i] is the index of the last operator of decoder layer i.
	layerEnd []int
	// layerSig[i] identifies layer i's operators: equal signatures mean
	// identical operators.
	layerSig []uint64
	tokens   int // tokens processed (M)
	decode   bool
	// attnIdx[i] is the index of layer i's attention kernel; staticSig[i]
	// the signature of the layer's other operators.
	attnIdx   []int
	staticSig []uint64
	// tailSig identifies the operators after the last layer.
	tailSig uint64
	// routeID numbers the loads the program was built for (recorded
	// routing; 0 otherwise).
	routeID int32
}

// programBuilder derives operator programs from an experiment.
type programBuilder struct {
	m         dash.ModelSpec
	fp        dash.Footprint
	plan      dash.Plan
	layers    []dash.LayerWeights
	timing    dash.Timing
	w         dash.WorkloadSpec
	embedRow  unit.Bytes // bytes of one embedding row
	headBytes unit.Bytes // LM-head weights
	headRepl  bool
	finalNorm unit.Bytes
	wdt       gpu.DType // stored dtype of projection / expert weights
	random    bool      // routing draws experts at random (per step and layer)
	// rec routes passes per token (kinds trace and synthetic; nil for the
	// formula kinds); routeID numbers the loads of the pass being built.
	rec        *recorded
	routeID    int32
	launchOnly bool // memory-bound operators pay only the launch floor
	lookahead  bool // early expert selection (§V-C) applies
	noHBF      bool // the package has no HBF: the prompt's KV lives in HBM
	// extrapolated collects the operator shapes the timing model answered
	// outside its measured range.
	extrapolated map[string]bool
	block        int       // paged-KV block in tokens
	kv           *kvLedger // decode-KV placement when it spills (nil: it never does)
	seed         maphash.Seed
	// predicted caches the timing model's answers: a program asks for the
	// same few shapes in every layer, and a serving run for the same ones
	// in many passes.
	predicted map[gpu.Op][2]unit.Duration
	opsHint   int // operators of the last program built
	// spare holds operator storage of programs no longer used (a Passer's
	// dropped templates and passes built afresh), for the next builds.
	spare [][]opSpec
	// sameSpan[i]: layer i attends over the same span as layer i-1.
	sameSpan []bool
	// copied[i]: setContext copied layer i's kernel from layer i-1.
	copied []bool
	noCopy bool // build every layer (tests: copies equal what building gives)
	// decodeAttn caches the decode kernels' timing by attended span (their
	// only varying field within a run).
	decodeAttn map[int][2]unit.Duration
	// part, when set, is the GPU's part of a model-parallel pass (part.go):
	// its expert loads replace the routing model's, and it may leave the
	// embedding or the LM head out.
	part *Part
}

// takeOps returns empty operator storage for a program: a spare one, or a
// new one the size of the last program.
func (b *programBuilder) takeOps() []opSpec {
	if n := len(b.spare); n > 0 {
		ops := b.spare[n-1]
		b.spare[n-1] = nil
		b.spare = b.spare[:n-1]
		return ops
	}
	return make([]opSpec, 0, b.opsHint)
}

// recycle keeps the operator storage of a program that is no longer used
// (nothing refers to it: a pass's operators are read only while it runs),
// at most maxTemplates of them.
func (b *programBuilder) recycle(p *pass) {
	if len(b.spare) < maxTemplates && cap(p.ops) > 0 {
		b.spare = append(b.spare, p.ops[:0])
	}
	p.ops = nil
}

func newProgramBuilder(e dash.Experiment) *programBuilder {
	m := e.Model()
	inv := e.Inventory()
	b := &programBuilder{
		m: m, fp: e.Footprint(), plan: e.Plan(), layers: inv.Layers(m), timing: e.Timing(), w: e.Workload(),
		seed: maphash.MakeSeed(), block: e.Execution().BlockTokens(), predicted: map[gpu.Op][2]unit.Duration{},
		decodeAttn: map[int][2]unit.Duration{},
	}
	var embed unit.Bytes
	for _, t := range inv.Tensors {
		if t.MTP {
			continue
		}
		switch t.Class {
		case dash.ClassEmbedding:
			embed += t.Bytes()
		case dash.ClassLMHead:
			b.headBytes += t.Bytes()
		case dash.ClassFinalNorm:
			b.finalNorm += t.Bytes()
		}
	}
	b.embedRow = embed / unit.Bytes(max(1, m.VocabSize))
	b.headRepl = b.plan.IsReplicated(dash.ClassLMHead)
	if b.headBytes == 0 { // tied embeddings: the head reads the embedding table (HBF only)
		b.headBytes, b.headRepl = embed, false
	}
	switch m.Checkpoint.Layout {
	case dash.LayoutFP8Mixed:
		b.wdt = gpu.FP8
	case dash.LayoutINT8Mixed:
		b.wdt = gpu.INT8
	}
	b.sameSpan = make([]bool, m.NumLayers)
	for i := 1; i < m.NumLayers; i++ {
		b.sameSpan[i] = m.SameAttentionSpan(i-1, i)
	}
	switch e.Workload().Routing.EffectiveKind() {
	case dash.RoutingUniform, dash.RoutingZipf:
		b.random = true
	}
	b.launchOnly = e.Execution().LaunchOnlyOverhead
	b.lookahead = e.Execution().Lookahead && m.LookaheadEligible()
	b.noHBF = b.plan.HBFStacks == 0
	return b
}

// stepKey identifies a decode step's program: its KV blocks (and
// writeback family) and, under recorded routing, its loads.
type stepKey struct {
	blocks  int
	routing int32
}

// decodeKey identifies the decode programs that are identical: with paged
// KV, every step whose context rounds up to the same block count reads the
// same blocks and runs the same operators. (Random routing differs per
// step: no two steps share a key then; recorded routing adds the step's
// loads.)
func (b *programBuilder) decodeKey(ctx, step int) stepKey {
	if b.random {
		return stepKey{blocks: -step}
	}
	key := roundUp(ctx, b.block)
	if c := b.m.Attention.ChunkSize; c > 0 && c%b.block != 0 {
		key = ctx
	}
	if b.kv != nil && b.kv.total > 0 { // each writeback starts a new family of programs
		wb := 0
		if b.kv.writingBack() {
			wb = 1
		}
		key |= (b.kv.version<<1 | wb) << 32
	}
	return stepKey{blocks: key, routing: b.routeID}
}

func roundUp(n, k int) int { return (n + k - 1) / k * k }

// predictAttn is predict for attention kernels.
func (b *programBuilder) predictAttn(op gpu.Op) (compute, overhead unit.Duration) {
	return b.predict(op)
}

// maxPredicted bounds the cache of timing answers (cleared when full).
const maxPredicted = 1 << 14

// predict is the timing model's compute and overhead of op, cached (the
// model is a pure function of the operator's shape).
func (b *programBuilder) predict(op gpu.Op) (compute, overhead unit.Duration) {
	if v, ok := b.predicted[op]; ok {
		return v[0], v[1]
	}
	c, o := b.predictNew(op)
	if len(b.predicted) >= maxPredicted {
		clear(b.predicted)
	}
	b.predicted[op] = [2]unit.Duration{c, o}
	return c, o
}

func (b *programBuilder) predictNew(op gpu.Op) (compute, overhead unit.Duration) {
	p := b.timing.Predict(op)
	if p.Extrapolated {
		if b.extrapolated == nil {
			b.extrapolated = map[string]bool{}
		}
		b.extrapolated[describeOp(op)] = true
	}
	if b.launchOnly && p.Latency-p.Overhead > p.Compute && p.Overhead > p.LaunchFloor { // memory-bound
		return p.Compute, p.LaunchFloor
	}
	return p.Compute, p.Overhead
}

func (b *programBuilder) gemm(class OpClass, layer, m, k, n int, weights unit.Bytes, repl bool) opSpec {
	c, o := b.predict(gpu.Op{Kind: gpu.GEMM, M: m, K: k, N: n, WeightDType: b.wdt})
	return opSpec{class: class, layer: layer, compute: c, overhead: o, weights: weights, replicated: repl}
}

func (b *programBuilder) norm(layer, m, dim int, weights unit.Bytes, class OpClass) opSpec {
	c, o := b.predict(gpu.Op{Kind: gpu.RMSNorm, M: m, Dim: dim})
	return opSpec{class: class, layer: layer, compute: c, overhead: o, weights: weights,
		replicated: b.plan.IsReplicated(dash.ClassNorm)}
}

// split divides total into parts proportional to weights, exactly.
func split(total unit.Bytes, weights ...int64) []unit.Bytes {
	var sum int64
	for _, w := range weights {
		sum += w
	}
	out := make([]unit.Bytes, len(weights))
	var given unit.Bytes
	for i, w := range weights {
		if i == len(weights)-1 {
			out[i] = total - given
			break
		}
		out[i] = unit.Bytes(float64(total) * float64(w) / float64(sum))
		given += out[i]
	}
	return out
}

// build returns the program of a prefill pass (decode=false, ctx = the
// prompt length) or of one decode step (decode=true, ctx = tokens in the
// context including the one being generated). step seeds random routing.
func (b *programBuilder) build(decode bool, ctx, step int) pass {
	w := b.w
	sh := shape{tokens: w.Batch * w.Prompt, sampled: w.Batch, decode: decode, step: step,
		kernel: func(i int) opSpec { return b.attnKernel(i, decode, ctx) }}
	if decode {
		sh.tokens = w.Batch
	}
	return b.buildShape(sh)
}

// shape is what a pass's program depends on beyond the model: the tokens
// processed (M), the sequences that sample a token (the LM head's rows; 0
// leaves the head out), each layer's attention kernel and the step that
// seeds random routing.
type shape struct {
	tokens, sampled int
	decode          bool
	step            int
	kernel          func(layer int) opSpec
}

// buildShape returns the program of a pass of the given shape.
func (b *programBuilder) buildShape(sh shape) pass {
	m := b.m
	tokens, step := sh.tokens, sh.step
	p := pass{tokens: tokens, decode: sh.decode, ops: b.takeOps(), routeID: b.routeID}
	hidden := m.HiddenSize
	attnRepl := b.plan.IsReplicated(dash.ClassAttention)
	embed := opSpec{class: ClassEmbed, layer: -1, gather: unit.Bytes(tokens) * b.embedRow}
	_, embed.overhead = b.predict(gpu.Op{Kind: gpu.RMSNorm, M: tokens, Dim: hidden})
	if b.part != nil && b.part.NoEmbed { // a later pipeline stage: an empty operator in its place
		embed = opSpec{class: ClassEmbed, layer: -1}
	}
	p.ops = append(p.ops, embed)
	p.attnIdx = make([]int, m.NumLayers)
	// A layer whose weights equal an earlier one's runs the same operators
	// but for its kernel (balanced routing selects the same experts in
	// every layer): its block is copied (the models repeat one layer 48 to
	// 94 times), and so is its signature.
	// Under recorded routing a layer is copied when its load is the same
	// too.
	copyable := !b.random && (b.part == nil || b.part.Experts == nil) && !b.noCopy
	type copyKey struct {
		lw   dash.LayerWeights
		load ExpertLoad
	}
	firstOf := map[copyKey]int{}
	src := make([]int, m.NumLayers)
	for i := range m.NumLayers {
		lw := b.layers[i]
		src[i] = -1
		if copyable {
			same := copyKey{lw: lw}
			same.lw.Layer = 0
			if b.rec != nil {
				same.load = b.rec.cur[i]
			}
			if k, ok := firstOf[same]; ok {
				src[i] = k
				b.copyLayer(&p, k, i, sh.kernel(i))
				continue
			}
			firstOf[same] = i
		}
		p.ops = append(p.ops, b.norm(i, tokens, hidden, lw.Norms, ClassNorm))
		early := lw.MoE && b.lookahead
		var extraN int
		var extraBytes unit.Bytes
		if early { // the input term of the routing logits rides with the first projection
			extraN, extraBytes = m.FFN.RoutedExperts, lw.Router
		}
		attn := b.attention(i, lw.Attention, attnRepl, tokens, sh.kernel(i), extraN, extraBytes)
		for k := range attn {
			if attn[k].class == ClassAttention {
				p.attnIdx[i] = len(p.ops) + k
				if early { // the attention term and top-k as soon as attention ends
					attn = slices.Insert(attn, k+1, b.earlyRouting(i, tokens)...)
					break
				}
			}
		}
		p.ops = append(p.ops, attn...)
		for range max(0, m.Norm.PerLayer-2) / 2 { // sandwich norms (Grok-1): one after attention
			p.ops = append(p.ops, b.norm(i, tokens, hidden, 0, ClassNorm))
		}
		p.ops = append(p.ops, b.norm(i, tokens, hidden, 0, ClassNorm))
		if lw.MoE {
			if !early {
				p.ops = append(p.ops, b.router(i, lw, tokens)...)
			}
			p.ops = append(p.ops, b.expertBlock(i, lw, tokens, step))
		} else {
			inter := m.FFN.DenseIntermediate
			parts := split(lw.DenseFFN, 2, 1)
			repl := b.plan.IsReplicated(dash.ClassDenseFFN)
			p.ops = append(p.ops, b.gemm(ClassDenseFFN, i, tokens, hidden, 2*inter, parts[0], repl),
				b.gemm(ClassDenseFFN, i, tokens, inter, hidden, parts[1], repl))
		}
		for range max(0, m.Norm.PerLayer-2) / 2 { // sandwich norm after the FFN
			p.ops = append(p.ops, b.norm(i, tokens, hidden, 0, ClassNorm))
		}
		p.layerEnd = append(p.layerEnd, len(p.ops)-1)
	}
	if sh.sampled > 0 && (b.part == nil || !b.part.NoHead) {
		p.ops = append(p.ops, b.norm(-1, sh.sampled, hidden, b.finalNorm, ClassLMHead))
		p.ops[len(p.ops)-1].replicated = b.plan.IsReplicated(dash.ClassFinalNorm)
		p.ops = append(p.ops, b.gemm(ClassLMHead, -1, sh.sampled, hidden, m.VocabSize, b.headBytes, b.headRepl))
	}
	b.opsHint = len(p.ops)
	p.layerSig = make([]uint64, m.NumLayers)
	b.staticSigs(&p, src)
	b.sign(&p)
	p.tailSig = b.signature(p.ops[p.layerEnd[len(p.layerEnd)-1]+1:]) ^ uint64(sh.sampled)
	return p
}

// copyLayer appends layer i as a copy of layer k's operators, with its own
// kernel.
func (b *programBuilder) copyLayer(p *pass, k, i int, kernel opSpec) {
	start := 1
	if k > 0 {
		start = p.layerEnd[k-1] + 1
	}
	base := len(p.ops)
	p.ops = append(p.ops, p.ops[start:p.layerEnd[k]+1]...)
	for q := base; q < len(p.ops); q++ {
		p.ops[q].layer = i
	}
	p.attnIdx[i] = base + p.attnIdx[k] - start
	p.ops[p.attnIdx[i]] = kernel
	p.layerEnd = append(p.layerEnd, len(p.ops)-1)
}

// staticSigs computes the signature of each layer's operators other than
// its attention kernel; a layer copied from layer src[i] (>= 0) shares it.
func (b *programBuilder) staticSigs(p *pass, src []int) {
	p.staticSig = make([]uint64, len(p.layerEnd))
	start := 1
	for i, end := range p.layerEnd {
		if src != nil && src[i] >= 0 {
			p.staticSig[i] = p.staticSig[src[i]]
			start = end + 1
			continue
		}
		k := p.attnIdx[i]
		kernel := p.ops[k]
		p.ops[k] = opSpec{class: ClassAttention, layer: i}
		p.staticSig[i] = b.signature(p.ops[start : end+1])
		p.ops[k] = kernel
		start = end + 1
	}
}

// sign computes the layer signatures of p: the signature of the operators
// other than the attention kernel (computed once) combined with the
// kernel's.
func (b *programBuilder) sign(p *pass) { b.signKnown(p, nil) }

// signKnown is sign, told which layers' kernels are copies of the previous
// layer's (copied[i]; nil: none known), which it need not compare.
func (b *programBuilder) signKnown(p *pass, copied []bool) {
	if p.staticSig == nil {
		b.staticSigs(p, nil)
	}
	var kernelSig uint64
	for i, k := range p.attnIdx {
		if i == 0 || (copied == nil || !copied[i]) && !sameKernel(p.ops[k], p.ops[p.attnIdx[i-1]]) {
			kernelSig = b.signature(p.ops[k : k+1])
		}
		p.layerSig[i] = p.staticSig[i] ^ (kernelSig * 0x9e3779b97f4a7c15)
	}
}

// setContext turns the decode program p into the one for a context of ctx
// tokens: only the attention kernels depend on it.
func (b *programBuilder) setContext(p *pass, ctx, step int) {
	if len(b.copied) != len(p.attnIdx) {
		b.copied = make([]bool, len(p.attnIdx))
	}
	for i, k := range p.attnIdx {
		b.copied[i] = i > 0 && b.sameSpan[i] && (b.kv == nil || b.kv.sameAsPrev(i))
		if b.copied[i] {
			kernel := p.ops[p.attnIdx[i-1]] // the previous layer's, whose inputs it shares
			kernel.layer = i
			p.ops[k] = kernel
			continue
		}
		p.ops[k] = b.attnKernel(i, true, ctx)
	}
	if b.random || b.rec != nil && p.routeID != b.routeID { // the experts differ from step to step
		*p = b.build(true, ctx, step)
		return
	}
	b.signKnown(p, b.copied)
}

// attention returns the attention block of layer i: projections, the
// attention kernel (with its KV reads and writes) and the output projection.
// extraN output columns and extraBytes of weights join the first
// projection (lookahead's input term of the routing logits: the layer input
// times diag(gamma) W_r, rescaled per token by the attention norm's
// factor, a GEMM on the same input).
func (b *programBuilder) attention(i int, bytes unit.Bytes, repl bool, tokens int, kernel opSpec, extraN int, extraBytes unit.Bytes) []opSpec {
	m := b.m
	a := m.Attention
	hidden := m.HiddenSize

	if a.Kind != "mla" {
		qkvN := (a.Heads + 2*a.KVHeads) * a.HeadDim
		oK := a.Heads * a.HeadDim
		parts := split(bytes, int64(qkvN)*int64(hidden), int64(oK)*int64(hidden))
		return []opSpec{
			b.gemm(ClassAttnProj, i, tokens, hidden, qkvN+extraN, parts[0]+extraBytes, repl),
			kernel,
			b.gemm(ClassAttnProj, i, tokens, oK, hidden, parts[1], repl),
		}
	}
	l := a.MLA
	qk := l.QKNopeHeadDim + l.QKRopeHeadDim
	aN := l.QLoraRank + l.KVLoraRank + l.QKRopeHeadDim // fused q_a + kv_a (with the rope key)
	qbK, qbN := l.QLoraRank, a.Heads*qk
	if l.QLoraRank == 0 { // no query compression: q_proj is hidden x heads*qk
		aN, qbK = l.KVLoraRank+l.QKRopeHeadDim, hidden
	}
	kvbN := a.Heads * (l.QKNopeHeadDim + l.VHeadDim)
	oK := a.Heads * l.VHeadDim
	parts := split(bytes, int64(hidden)*int64(aN), int64(qbK)*int64(qbN), int64(l.KVLoraRank)*int64(kvbN), int64(oK)*int64(hidden))
	ops := []opSpec{
		b.gemm(ClassAttnProj, i, tokens, hidden, aN+extraN, parts[0]+extraBytes, repl),
		b.norm(i, tokens, max(1, l.QLoraRank+l.KVLoraRank), 0, ClassAttnProj),
		b.gemm(ClassAttnProj, i, tokens, qbK, qbN, parts[1], repl),
		b.gemm(ClassAttnProj, i, tokens, l.KVLoraRank, kvbN, parts[2], repl),
		kernel,
		b.gemm(ClassAttnProj, i, tokens, oK, hidden, parts[3], repl),
	}
	return ops
}

// router returns the conventional router of layer i: the router GEMM on the
// normalised hidden state and the top-k selection, which completes routing.
func (b *programBuilder) router(i int, lw dash.LayerWeights, tokens int) []opSpec {
	f := b.m.FFN
	return []opSpec{
		b.gemm(ClassRouter, i, tokens, b.m.HiddenSize, f.RoutedExperts, lw.Router, b.plan.IsReplicated(dash.ClassRouter)),
		b.topK(i, tokens),
	}
}

// topK is the scoring and top-k selection; it completes routing.
func (b *programBuilder) topK(i, tokens int) opSpec {
	f := b.m.FFN
	rc, ro := b.predict(gpu.Op{Kind: gpu.Route, M: tokens, Experts: f.RoutedExperts, TopK: f.TopK})
	return opSpec{class: ClassRouter, layer: i, compute: rc, overhead: ro, routing: true}
}

// earlyRouting is lookahead selection's attention term (the attention
// output times the derived W_out diag(gamma) W_r, added to the input term
// computed with the first projection) and the top-k that completes
// routing: the RMS scale is a positive factor shared by a token's logits
// and does not change their order (§V-C). It replaces the conventional
// router GEMM and top-k after the post-attention norm.
func (b *programBuilder) earlyRouting(i, tokens int) []opSpec {
	f := b.m.FFN
	term := b.gemm(ClassRouter, i, tokens, b.m.OutputProjectionWidth(), f.RoutedExperts,
		dash.LookaheadRouterBytes(b.m), b.plan.IsReplicated(dash.ClassRouter))
	return []opSpec{term, b.topK(i, tokens)}
}

// expertBlock returns the MoE block of layer i.
func (b *programBuilder) expertBlock(i int, lw dash.LayerWeights, tokens, step int) opSpec {
	m := b.m
	f := m.FFN
	active, rows := b.selectExperts(i, tokens, step)
	block := opSpec{class: ClassExperts, layer: i, routedN: active, expertSize: lw.RoutedExpert}
	if b.part != nil && b.part.Experts != nil { // a GPU's part: its expert cache's hits as the part says
		ld := b.part.Experts[i]
		block.cachedN, block.cacheFill = ld.Cached, unit.Bytes(ld.Filled)*lw.RoutedExpert
	} else if b.rec != nil {
		ld := b.rec.cur[i]
		block.cachedN, block.cacheFill = ld.Cached, unit.Bytes(ld.Filled)*lw.RoutedExpert
	}
	var c, o unit.Duration
	if active > 0 { // a GPU of an expert-parallel group may receive no routed rows
		c, o = b.predict(gpu.Op{Kind: gpu.Grouped, Experts: active, Rows: rows, Hidden: m.HiddenSize, Inter: f.MoEIntermediate, WeightDType: b.wdt})
	}
	if f.SharedExperts > 0 {
		block.sharedN = f.SharedExperts
		block.sharedBytes = lw.SharedExperts / unit.Bytes(f.SharedExperts)
		sc, so := b.predict(gpu.Op{Kind: gpu.Grouped, Experts: 1, Rows: tokens, Hidden: m.HiddenSize, Inter: f.SharedIntermediate, WeightDType: b.wdt})
		c += sc
		o = max(o, so)
	}
	block.compute, block.overhead = c, o
	return block
}

// selectExperts returns the number of distinct experts the tokens of layer
// i select and the mean rows per selected expert.
func (b *programBuilder) selectExperts(layer, tokens, step int) (active, rows int) {
	f := b.m.FFN
	if b.part != nil && b.part.Experts != nil {
		return b.part.Experts[layer].Active, b.part.Experts[layer].perExpert()
	}
	if b.rec != nil { // counted from the pass's tokens before the build
		return b.rec.cur[layer].Active, b.rec.cur[layer].perExpert()
	}
	picks := tokens * f.TopK
	if !b.random { // balanced: B*k selections over min(E, B*k) experts
		active = min(f.RoutedExperts, picks)
		return active, (picks + active - 1) / active
	}
	rt := b.w.Routing
	// Seed each (step, layer) independently so results do not depend on the
	// order in which passes are built.
	r := rand.New(rand.NewPCG(uint64(rt.Seed)^uint64(step)*0x9e3779b97f4a7c15, uint64(layer)+1))
	if tokens*f.TopK >= 64*f.RoutedExperts { // every expert is selected with overwhelming probability
		return f.RoutedExperts, (picks + f.RoutedExperts - 1) / f.RoutedExperts
	}
	weights := make([]float64, f.RoutedExperts)
	perm := r.Perm(f.RoutedExperts)
	for rank, e := range perm {
		weights[e] = 1
		if rt.EffectiveKind() == dash.RoutingZipf {
			weights[e] = 1 / math.Pow(float64(rank+1), rt.ZipfS)
		}
	}
	used := make([]bool, f.RoutedExperts)
	chosen := make([]bool, f.RoutedExperts)
	for range tokens {
		clear(chosen)
		for range f.TopK {
			e := sampleWithout(r, weights, chosen)
			chosen[e], used[e] = true, true
		}
	}
	for _, u := range used {
		if u {
			active++
		}
	}
	return active, (picks + active - 1) / active
}

// sampleWithout draws an index proportionally to weights among those not
// yet chosen.
func sampleWithout(r *rand.Rand, weights []float64, chosen []bool) int {
	total := 0.0
	for i, w := range weights {
		if !chosen[i] {
			total += w
		}
	}
	x := r.Float64() * total
	last := 0
	for i, w := range weights {
		if chosen[i] {
			continue
		}
		last = i
		if x < w {
			return i
		}
		x -= w
	}
	return last
}

// signature hashes the fields of ops that determine their simulation.
func (b *programBuilder) signature(ops []opSpec) uint64 {
	var h maphash.Hash
	h.SetSeed(b.seed)
	var buf [18 * 8]byte // one operator's fields, little-endian
	for _, o := range ops {
		for k, v := range [18]int64{int64(o.class), int64(o.compute), int64(o.overhead), int64(o.weights), b2i(o.replicated),
			int64(o.kvHBM), int64(o.kvHBF), int64(o.kvWriteHBF), int64(o.kvWriteHBM), int64(o.kvWriteback), int64(o.gather),
			int64(o.sharedN), int64(o.routedN), int64(o.sharedBytes), int64(o.expertSize), b2i(o.routing),
			int64(o.cachedN), int64(o.cacheFill)} {
			binary.LittleEndian.PutUint64(buf[8*k:], uint64(v))
		}
		h.Write(buf[:])
	}
	return h.Sum64()
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// attnKernel is layer i's attention kernel: its compute and the KV it reads
// (decode: the attended span of the context, in whole paged-KV blocks, the
// prompt's part and the decode KV written back so far from HBF, the rest
// from HBM) or writes (prefill: the prompt's KV, to HBF; decode: the new
// token's KV to HBM and, when the ledger says so, the layer's oldest page
// wave of decode KV back from HBM to HBF).
func (b *programBuilder) attnKernel(i int, decode bool, ctx int) opSpec {
	m, w := b.m, b.w
	a := m.Attention
	kvTok := b.fp.KVBytesPerTokenPerLayer
	kernel := opSpec{class: ClassAttention, layer: i}
	var attnOp gpu.Op
	if decode {
		span := m.AttentionSpan(i, ctx)
		first := ctx - span // first attended token
		read := roundUp(span, b.block)
		hbfEnd := w.Prompt // tokens before it live in HBF
		if b.noHBF {
			hbfEnd = 0
		}
		if b.kv != nil {
			hbfEnd += b.kv.hbfTokens(i)
			kernel.kvWriteback = b.kv.writeback(i)
		}
		inHBF := max(0, min(hbfEnd, ctx)-first)
		kernel.kvHBF = unit.Bytes(w.Batch) * unit.Bytes(inHBF) * kvTok
		kernel.kvHBM = unit.Bytes(w.Batch) * unit.Bytes(read-inHBF) * kvTok
		span = read
		kernel.kvWriteHBM = unit.Bytes(w.Batch) * kvTok
		if v, ok := b.decodeAttn[span]; ok {
			kernel.compute, kernel.overhead = v[0], v[1]
			return kernel
		}
		if a.Kind == "mla" {
			attnOp = gpu.Op{Kind: gpu.AttnDecodeMLA, Batch: w.Batch, KVLen: span, Heads: a.Heads,
				LatentDim: a.MLA.KVLoraRank, RopeDim: a.MLA.QKRopeHeadDim}
		} else {
			attnOp = gpu.Op{Kind: gpu.AttnDecode, Batch: w.Batch, KVLen: span, Heads: a.Heads, KVHeads: a.KVHeads, HeadDim: a.HeadDim}
		}
		kernel.compute, kernel.overhead = b.predictAttn(attnOp)
		b.decodeAttn[span] = [2]unit.Duration{kernel.compute, kernel.overhead}
		return kernel
	} else {
		kernel.kvWriteHBF = unit.Bytes(w.Batch) * unit.Bytes(w.Prompt) * kvTok
		if b.noHBF {
			kernel.kvWriteHBM, kernel.kvWriteHBF = kernel.kvWriteHBF, 0
		}
		attnOp = b.prefillOp(i, w.Batch, w.Prompt, -1)
	}
	kernel.compute, kernel.overhead = b.predictAttn(attnOp)
	return kernel
}

// describeOp names an operator shape for reports.
func describeOp(op gpu.Op) string {
	switch op.Kind {
	case gpu.GEMM:
		return fmt.Sprintf("gemm M=%d K=%d N=%d", op.M, op.K, op.N)
	case gpu.Grouped:
		return fmt.Sprintf("grouped E=%d rows=%d hidden=%d inter=%d", op.Experts, op.Rows, op.Hidden, op.Inter)
	case gpu.AttnPrefill:
		return fmt.Sprintf("attn-prefill B=%d L=%d heads=%d/%d dim=%d", op.Batch, op.QLen, op.Heads, op.KVHeads, op.HeadDim)
	case gpu.AttnDecode, gpu.AttnDecodeMLA:
		return fmt.Sprintf("%v B=%d KV=%d heads=%d", op.Kind, op.Batch, op.KVLen, op.Heads)
	default:
		return fmt.Sprintf("%v M=%d", op.Kind, op.M)
	}
}
