package sim

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/gpu"
	"github.com/dashlab/dashlab/dash/unit"
)

// Row is one request's part of a heterogeneous pass: a decode step or a
// prefill chunk. The KV of a request's first Prompt tokens lives in HBF
// (prefill KV is written there); the KV of the tokens it generates is
// appended in HBM, as in the fixed-batch runner.
type Row struct {
	// Tokens is what the row processes: 1 for a decode step, the chunk
	// length for a prefill chunk.
	Tokens int
	// Cached is the number of the request's tokens whose KV is in the cache
	// before the pass.
	Cached int
	// Prompt is the request's prompt length.
	Prompt int
	// Request identifies the request (serve: its index in the workload):
	// recorded routing (kinds trace and synthetic) reads the experts of
	// its tokens Cached .. Cached+Tokens-1.
	Request int
}

// Decode reports whether the row is a decode step (the whole prompt is
// cached).
func (r Row) Decode() bool { return r.Cached >= r.Prompt }

// Samples reports whether the row produces a token: a decode step, or the
// chunk that completes the prompt (which yields the first token).
func (r Row) Samples() bool { return r.Decode() || r.Cached+r.Tokens == r.Prompt }

func (r Row) validate() error {
	switch {
	case r.Tokens < 1:
		return fmt.Errorf("row tokens = %d: must be at least 1", r.Tokens)
	case r.Prompt < 1:
		return fmt.Errorf("row prompt = %d: must be at least 1", r.Prompt)
	case r.Cached < 0:
		return fmt.Errorf("row cached = %d: must not be negative", r.Cached)
	case r.Decode() && r.Tokens != 1:
		return fmt.Errorf("decode row tokens = %d: a decode step processes 1 token", r.Tokens)
	case !r.Decode() && r.Cached+r.Tokens > r.Prompt:
		return fmt.Errorf("prefill row cached %d + tokens %d exceeds prompt %d", r.Cached, r.Tokens, r.Prompt)
	}
	return nil
}

// PassResult is what one heterogeneous pass took and moved.
type PassResult struct {
	// Duration is the pass's simulated time, from its first operator to the
	// completion of every transfer it issued.
	Duration unit.Duration
	// Tokens, Rows and Sampled count the tokens processed, the rows and the
	// rows that produced a token.
	Tokens, Rows, Sampled int
	// ActiveExperts is the number of distinct routed experts one MoE layer
	// fetched (the first MoE layer's; balanced routing gives every layer
	// the same).
	ActiveExperts int
	// HBMRead, DirectRead and RelayRead are the bytes read per route;
	// Written the KV bytes written (HBF and HBM).
	HBMRead, DirectRead, RelayRead, Written unit.Bytes
	// LinkBusy is the busy time of the busiest link direction during the
	// pass; LinkBusy / Duration is its utilization.
	LinkBusy unit.Duration
	// Replayed reports that the pass reused the measured outcome of an
	// identical earlier pass.
	Replayed bool
}

// Passer runs heterogeneous passes, one after another, on the memory system
// of one experiment (its model, system, GPU and execution switches; the
// experiment's workload only supplies the routing model). Every pass starts
// with the memory system idle, so a pass whose program ran before replays
// its measured duration and statistics exactly (Options.NoJump turns the
// replay off along with the other shortcuts). A Passer is not safe for
// concurrent use.
type Passer struct {
	e      *engine
	exp    dash.Experiment
	pb     *programBuilder
	noJump bool
	step   int
	memo   *PassMemo           // measured passes, maybe shared (passmemo.go)
	seen   map[string]struct{} // the keys of this Passer's own passes
	tmpl   map[[2]int]*pass
	key    []byte
	before []int64
	after  []int64
	t0, t1 traffic
	// kernels and delta are reused for each pass's attention kernels and
	// for a replayed pass's increments.
	kernels []opSpec
	delta   []int64
	// sameAsPrev[i]: layer i attends over the same spans as layer i-1, so
	// its attention kernel is the previous layer's.
	sameAsPrev []bool
	// Passes and Replays count the passes run and those that repeat an
	// earlier pass of this Passer (replayed); SharedHits the passes
	// replayed from what other Passers sharing the memo measured.
	Passes, Replays, SharedHits int
}

// Memory bounds: the memo of measured passes and the program templates are
// dropped when they reach these sizes, so memory stays bounded however long
// a serving run is.
const (
	maxPassMemo  = 1 << 15
	maxTemplates = 4
)

// NewPasser prepares heterogeneous passes on exp's memory system.
func NewPasser(exp dash.Experiment, opts Options) (*Passer, error) {
	if !exp.Valid() {
		return nil, errors.New("sim: experiment was not built (use dash.NewExperiment()...Build())")
	}
	cfg, err := newConfig(exp)
	if err != nil {
		return nil, err
	}
	e := newEngine(cfg)
	e.useShortcuts(!opts.NoJump)
	e.replayAllSegments()
	e.useAudit(opts)
	p := &Passer{e: e, exp: exp, pb: newProgramBuilder(exp), noJump: opts.NoJump,
		memo: NewPassMemo(exp), seen: map[string]struct{}{}, tmpl: map[[2]int]*pass{}}
	if p.pb.rec, err = newRecorded(exp, p.pb.layers); err != nil {
		return nil, err
	}
	if p.pb.rec != nil {
		p.pb.rec.eng = e
	}
	m := exp.Model()
	p.sameAsPrev = make([]bool, m.NumLayers)
	for i := 1; i < m.NumLayers; i++ {
		p.sameAsPrev[i] = m.SameAttentionSpan(i-1, i)
	}
	return p, nil
}

// Routing is what per-token routing did over the passes so far (kinds
// trace and synthetic; nil for the formula kinds).
func (p *Passer) Routing() *RoutingStats {
	if p.pb == nil || p.pb.rec == nil {
		return nil
	}
	return p.pb.rec.finish()
}

// Now is the simulated time at the end of the last pass.
func (p *Passer) Now() unit.Duration {
	if p.e == nil { // a zero Passer: not made by NewPasser
		return 0
	}
	return p.e.now
}

// Idle advances the clock to t (no pass runs: the GPU waits for work).
// Times in the past are ignored.
func (p *Passer) Idle(t unit.Duration) {
	if p.e != nil && t > p.e.now {
		p.e.shiftTimes(t - p.e.now)
	}
}

// Run simulates one pass over rows, starting now.
func (p *Passer) Run(rows []Row) (PassResult, error) { return p.run(rows, nil) }

// run simulates one pass over rows, of the whole model or of the GPU's part
// of a model-parallel pass (part.go).
func (p *Passer) run(rows []Row, part *Part) (PassResult, error) {
	if p.e == nil {
		return PassResult{}, errors.New("sim: Passer not made by NewPasser")
	}
	if len(rows) == 0 {
		return PassResult{}, errors.New("sim: a pass needs at least one row")
	}
	res := PassResult{Rows: len(rows)}
	for i, r := range rows {
		if err := r.validate(); err != nil {
			return PassResult{}, fmt.Errorf("sim: row %d: %w", i, err)
		}
		res.Tokens += r.Tokens
		if r.Samples() {
			res.Sampled++
		}
	}
	b := p.pb
	b.part = part
	defer func() { b.part = nil }()
	if p.kernels == nil {
		p.kernels = make([]opSpec, b.m.NumLayers)
	}
	kernels := p.kernels
	for i := range kernels {
		if i > 0 && p.sameAsPrev[i] {
			continue // a copy of the layer before, made if the pass runs (shareKernels)
		}
		kernels[i] = b.batchKernel(i, rows)
	}
	p.step++
	routed := b.rec != nil && (part == nil || part.Experts == nil)
	decodeStep := routed // a pass whose rows all decode: a decode step of the routing statistics
	if routed {
		if err := b.routeRows(rows); err != nil {
			return PassResult{}, err
		}
		for _, r := range rows {
			decodeStep = decodeStep && r.Decode()
		}
	}
	if b.random && (part == nil || part.Experts == nil) {
		p.key = nil // random routing: every pass is its own
	} else {
		p.key = p.passKey(p.key[:0], res.Tokens, res.Sampled, kernels)
		p.key = part.appendKey(p.key)
		if routed { // the loads themselves: a memo shared by Passers outlives their numbering
			p.key = append(append(p.key, 'r'), b.rec.key...)
		}
		_, again := p.seen[string(p.key)]
		again = again && !p.noJump
		if !again && !p.noJump {
			if len(p.seen) >= maxPassMemo {
				clear(p.seen)
			}
			p.seen[string(p.key)] = struct{}{}
		}
		if again {
			p.Replays++
		}
		if o, ok := p.memo.get(p.key); ok && !p.noJump {
			p.delta = o.unpack(p.delta)
			p.e.replay(o.res.Duration, p.delta)
			p.Passes++
			if !again {
				p.SharedHits++
			}
			r := o.res
			r.Replayed = true
			if decodeStep {
				b.rec.step(r.Duration)
			}
			return r, nil
		}
	}
	p.shareKernels(kernels)
	ps, fresh := p.program(res.Tokens, res.Sampled, kernels)
	for _, op := range ps.ops {
		if op.routedN > 0 {
			res.ActiveExperts = op.routedN
			break
		}
	}
	e := p.e
	t0 := e.now
	p.before = e.globalCounters(p.before[:0])
	p.traffic(&p.t0)
	if err := e.runPass(ps); err != nil {
		return PassResult{}, err
	}
	if fresh {
		b.recycle(ps)
	}
	p.after = e.globalCounters(p.after[:0])
	p.traffic(&p.t1)
	for i := range p.after {
		p.after[i] -= p.before[i]
	}
	res.Duration = e.now - t0
	if decodeStep {
		b.rec.step(res.Duration)
	}
	fillTraffic(&res, &p.t0, &p.t1)
	p.Passes++
	if p.key != nil && !p.noJump {
		p.memo.put(p.key, newPassOutcome(res, p.after))
	}
	return res, nil
}

// traffic is the per-route bytes delivered and each link direction's busy
// time so far.
type traffic struct {
	delivered [numRoutes]unit.Bytes
	busy      []unit.Duration
}

func (p *Passer) traffic(dst *traffic) {
	dst.delivered = p.e.st.delivered
	dst.busy = dst.busy[:0]
	for i := range p.e.links {
		dst.busy = append(dst.busy, p.e.links[i].busy)
	}
}

// fillTraffic sets res's traffic to what moved between t0 and t1.
func fillTraffic(res *PassResult, t0, t1 *traffic) {
	var d [numRoutes]unit.Bytes
	for rt := range t1.delivered {
		d[rt] = t1.delivered[rt] - t0.delivered[rt]
		if !Route(rt).IsRead() {
			res.Written += d[rt]
		}
	}
	res.HBMRead, res.DirectRead, res.RelayRead = d[RouteHBM], d[RouteDirect], d[RouteRelay]
	for i := range t1.busy {
		res.LinkBusy = max(res.LinkBusy, t1.busy[i]-t0.busy[i])
	}
}

// program returns the pass for the given kernels: a template of the same
// token and sampled counts with its attention kernels replaced, or a pass
// built afresh (fresh: its storage may be recycled once it has run).
func (p *Passer) program(tokens, sampled int, kernels []opSpec) (ps *pass, fresh bool) {
	b := p.pb
	sh := shape{tokens: tokens, sampled: sampled, decode: tokens == sampled, step: p.step,
		kernel: func(i int) opSpec { return kernels[i] }}
	if b.random || b.part != nil || b.rec != nil { // built afresh (a pass that ran before replays instead)
		ps := b.buildShape(sh)
		return &ps, true
	}
	k := [2]int{tokens, sampled}
	t, ok := p.tmpl[k]
	if !ok {
		if len(p.tmpl) >= maxTemplates {
			for _, old := range p.tmpl {
				b.recycle(old)
			}
			clear(p.tmpl)
		}
		ps := b.buildShape(sh)
		p.tmpl[k] = &ps
		return &ps, false
	}
	for i, idx := range t.attnIdx {
		t.ops[idx] = kernels[i]
	}
	b.sign(t)
	return t, false
}

// shareKernels copies each layer's kernel that equals the layer before's by
// its spans (sameAsPrev), which run leaves out until a pass is to run: a
// replayed pass needs only the distinct kernels, for its key.
func (p *Passer) shareKernels(kernels []opSpec) {
	for i := 1; i < len(kernels); i++ {
		if p.sameAsPrev[i] {
			kernels[i] = kernels[i-1]
			kernels[i].layer = i
		}
	}
}

// passKey encodes everything a balanced-routing pass's program depends on:
// the token and sampled counts and each layer's attention kernel (a layer
// whose kernel equals the previous layer's adds one byte). A layer that
// shares the previous one's spans (sameAsPrev) has its kernel, not yet
// copied (shareKernels): it is neither read nor compared.
func (p *Passer) passKey(dst []byte, tokens, sampled int, kernels []opSpec) []byte {
	dst = binary.AppendUvarint(dst, uint64(tokens))
	dst = binary.AppendUvarint(dst, uint64(sampled))
	src := 0 // the last layer whose kernel run computed: the previous layer's kernel
	for i, k := range kernels {
		if i > 0 && (p.sameAsPrev[i] || sameKernel(k, kernels[src])) {
			dst = append(dst, 0)
			continue
		}
		src = i
		dst = append(dst, 1)
		for _, v := range []int64{int64(k.compute), int64(k.overhead), int64(k.kvHBM), int64(k.kvHBF),
			int64(k.kvWriteHBF), int64(k.kvWriteHBM), int64(k.kvWriteback)} {
			dst = binary.AppendVarint(dst, v)
		}
	}
	return dst
}

// batchKernel is layer i's attention kernel over a heterogeneous batch.
// Decode rows attend over their own contexts (whole paged-KV blocks, the
// prompt's part read from HBF, the generated part from HBM) and append one
// token's KV in HBM; they run as one ragged decode kernel timed as a batch
// of equal work (the rows' mean span). Prefill chunks attend causally over
// their own tokens and the request's earlier chunks (read from HBF) and
// write their KV to HBF; each distinct chunk shape is timed as its own
// kernel and the times add. The kernel's overhead is paid once. A batch of
// identical rows gives exactly the fixed-batch runner's kernel.
func (b *programBuilder) batchKernel(i int, rows []Row) opSpec {
	m := b.m
	a := m.Attention
	kvTok := b.fp.KVBytesPerTokenPerLayer
	kernel := opSpec{class: ClassAttention, layer: i}
	nDec, readTotal := 0, 0
	type chunk struct{ q, kv int }
	var chunks []chunk
	var chunkN []int
	for _, r := range rows {
		if r.Decode() {
			ctx := r.Cached + r.Tokens
			span := m.AttentionSpan(i, ctx)
			read := roundUp(span, b.block)
			inHBF := max(0, r.Prompt-(ctx-span))
			if b.noHBF {
				inHBF = 0
			}
			kernel.kvHBF += unit.Bytes(inHBF) * kvTok
			kernel.kvHBM += unit.Bytes(read-inHBF) * kvTok
			kernel.kvWriteHBM += kvTok
			nDec++
			readTotal += read
			continue
		}
		end := r.Cached + r.Tokens
		prior := min(r.Cached, max(0, m.AttentionSpan(i, end)-r.Tokens))
		if b.noHBF { // the request's earlier chunks and this one's KV are in HBM
			kernel.kvHBM += unit.Bytes(prior) * kvTok
			kernel.kvWriteHBM += unit.Bytes(r.Tokens) * kvTok
		} else {
			kernel.kvHBF += unit.Bytes(prior) * kvTok
			kernel.kvWriteHBF += unit.Bytes(r.Tokens) * kvTok
		}
		c := chunk{q: r.Tokens, kv: prior + r.Tokens}
		if r.Cached == 0 {
			c.kv = -1 // a whole prompt or a first chunk: the fixed-batch kernel
		}
		found := false
		for k := range chunks {
			if chunks[k] == c {
				chunkN[k]++
				found = true
				break
			}
		}
		if !found {
			chunks, chunkN = append(chunks, c), append(chunkN, 1)
		}
	}
	add := func(op gpu.Op) {
		c, o := b.predictAttn(op)
		kernel.compute += c
		kernel.overhead = max(kernel.overhead, o)
	}
	if nDec > 0 {
		kvLen := (readTotal + nDec - 1) / nDec
		if a.Kind == "mla" {
			add(gpu.Op{Kind: gpu.AttnDecodeMLA, Batch: nDec, KVLen: kvLen, Heads: a.Heads,
				LatentDim: a.MLA.KVLoraRank, RopeDim: a.MLA.QKRopeHeadDim})
		} else {
			add(gpu.Op{Kind: gpu.AttnDecode, Batch: nDec, KVLen: kvLen, Heads: a.Heads, KVHeads: a.KVHeads, HeadDim: a.HeadDim})
		}
	}
	for k, c := range chunks {
		add(b.prefillOp(i, chunkN[k], c.q, c.kv))
	}
	return kernel
}

// prefillOp is the attention kernel of n prefill rows of q new tokens
// attending over kv tokens (kv < 0: a first chunk, attending over its own
// q tokens, with the fixed-batch runner's treatment of chunked attention).
func (b *programBuilder) prefillOp(i, n, q, kv int) gpu.Op {
	a := b.m.Attention
	kvHeads, headDim := a.KVHeads, a.HeadDim
	if a.Kind == "mla" {
		kvHeads = a.Heads
	}
	if kv >= 0 {
		return gpu.Op{Kind: gpu.AttnPrefill, Batch: n, QLen: q, KVLen: kv, Heads: a.Heads, KVHeads: kvHeads, HeadDim: headDim}
	}
	op := gpu.Op{Kind: gpu.AttnPrefill, Batch: n, QLen: q, KVLen: q, Heads: a.Heads, KVHeads: kvHeads, HeadDim: headDim}
	if span := b.m.AttentionSpan(i, q); span < q && a.ChunkSize > 0 {
		// Chunked attention: each chunk attends causally within itself.
		chunks := (q + a.ChunkSize - 1) / a.ChunkSize
		op.Batch, op.QLen, op.KVLen = n*chunks, a.ChunkSize, a.ChunkSize
	}
	return op
}

// sameKernel reports whether two layers' attention kernels are equal but
// for their layer index.
func sameKernel(a, b opSpec) bool {
	a.layer = b.layer
	return a == b
}
