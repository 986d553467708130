package routing

// Selection bit sets: a replay asks, for each pass, which distinct experts
// its tokens select at each MoE layer, the union of their rows. Over the
// trace's ids that is top-k bit writes per token and layer; over bit sets
// of the tokens' selections it is one OR per word (SetWords words a layer:
// two for 128 experts, the size of the eight ids of a top-8 row). The
// bound trace computes the sets in blocks of a trace request's tokens on
// first use and keeps them (bounded) for every Bound of the trace, so the
// runs of a study or a sweep over one trace compute each block once.

// setBlock is the number of a trace request's tokens whose bit sets are
// computed together.
const setBlock = 16

// maxSetBytes bounds the bit sets a bound trace keeps (64 MiB; past it the
// blocks kept are dropped and computed again when asked for). A variable
// for the tests.
var maxSetBytes = 64 << 20

// maxPrefixSets bounds the request prefixes whose bit sets a bound trace
// keeps.
const maxPrefixSets = 1 << 12

// setKey names a block of a trace request's tokens.
type setKey struct{ r, block int }

// prefixSet is the bit sets of a trace request's first n tokens.
type prefixSet struct {
	n    int
	sets []uint64
}

// SetWords is the number of 64-bit words of one MoE layer's bit set in
// Sets and PrefixSets: ceil(experts / 64).
func (b *Bound) SetWords() int { return (b.e + 63) / 64 }

// locate maps experiment request req's token tok to the trace's request
// and token under the trace's rule, or returns Token's error for a token
// beyond an unwrapped trace.
func (b *Bound) locate(req, tok int) (int, int, error) {
	t := b.t
	r := req
	if r >= t.Requests() {
		if !b.wrap {
			_, err := b.Selected(req, tok, b.firstMoE())
			return 0, 0, err
		}
		r %= t.Requests()
	}
	if n := t.Tokens(r); tok >= n {
		if !b.wrap {
			_, err := b.Selected(req, tok, b.firstMoE())
			return 0, 0, err
		}
		tok %= n
	}
	return r, tok, nil
}

// Sets returns the experts token tok of experiment request req selects
// (Token) as bit sets: SetWords words per MoE layer, the layers in the
// model's order; bit x of word w of layer o is set when the token selects
// expert 64w + x there. The slice is shared (safe for concurrent use) and
// must not be modified.
func (b *Bound) Sets(req, tok int) ([]uint64, error) {
	r, tok, err := b.locate(req, tok)
	if err != nil {
		return nil, err
	}
	stride := len(b.t.layers) * b.SetWords()
	blk := tok / setBlock
	d := b.d
	d.mu.Lock()
	s, ok := d.sets[setKey{r, blk}]
	if !ok {
		s = b.fillSets(r, blk, stride)
	}
	d.mu.Unlock()
	i := (tok - blk*setBlock) * stride
	return s[i : i+stride : i+stride], nil
}

// fillSets computes and keeps the bit sets of block blk of trace request
// r (b.d.mu held).
func (b *Bound) fillSets(r, blk, stride int) []uint64 {
	t := b.t
	W, L, k := b.SetWords(), len(t.layers), t.k
	first := blk * setBlock
	n := min(setBlock, t.Tokens(r)-first)
	s := make([]uint64, n*stride)
	for j := range n {
		ids := t.ids[(t.start[r]+first+j)*L*k : (t.start[r]+first+j+1)*L*k]
		row := s[j*stride : (j+1)*stride]
		for i, x := range ids {
			row[(i/k)*W+int(x>>6)] |= 1 << (x & 63)
		}
	}
	d := b.d
	if bytes := 8 * len(s); d.sets == nil || d.setBytes+bytes > maxSetBytes {
		d.sets, d.setBytes = map[setKey][]uint64{}, 0
	}
	d.sets[setKey{r, blk}] = s
	d.setBytes += 8 * len(s)
	return s
}

// PrefixSets returns the distinct experts tokens 0..n-1 of experiment
// request req select, as bit sets laid out as Sets' (from the request's
// FirstUse table: expert e of layer o is set when its first use is below
// n). The last prefix asked of each trace request is kept; the slice is
// shared and must not be modified. For n beyond an unwrapped trace it
// returns Token's error.
func (b *Bound) PrefixSets(req, n int) ([]uint64, error) {
	if n <= 0 {
		return make([]uint64, len(b.t.layers)*b.SetWords()), nil
	}
	if _, _, err := b.locate(req, n-1); err != nil {
		return nil, err
	}
	f, err := b.FirstUse(req)
	if err != nil {
		return nil, err
	}
	r := req % b.t.Requests()
	d := b.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if p, ok := d.prefix[r]; ok && p.n == n {
		return p.sets, nil
	}
	W := b.SetWords()
	s := make([]uint64, len(b.t.layers)*W)
	m := uint32(n)
	for o := range b.t.layers {
		set := s[o*W : (o+1)*W : (o+1)*W]
		for x, first := range f[o*b.e : (o+1)*b.e] {
			if first < m {
				set[x>>6] |= 1 << (x & 63)
			}
		}
	}
	if d.prefix == nil || len(d.prefix) >= maxPrefixSets {
		d.prefix = map[int]prefixSet{}
	}
	d.prefix[r] = prefixSet{n: n, sets: s}
	return s, nil
}
