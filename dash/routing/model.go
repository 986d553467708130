package routing

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// Model is what a trace must match: the model's MoE layers, its routed
// experts and its top-k.
type Model struct {
	// ID names the model in errors.
	ID string
	// Layers is the number of decoder layers.
	Layers int
	// MoELayers are the decoder indices of the MoE layers, ascending.
	MoELayers []int
	// Experts is the number of routed experts per MoE layer.
	Experts int
	// TopK is the number of experts a token selects.
	TopK int
}

// validate checks the model's own shape.
func (m Model) validate() error {
	switch {
	case len(m.MoELayers) == 0:
		return fmt.Errorf("routing: model %s has no MoE layers", m.ID)
	case m.Experts < 1 || m.Experts > MaxExpertID+1:
		return fmt.Errorf("routing: model %s: %d routed experts", m.ID, m.Experts)
	case m.TopK < 1 || m.TopK > m.Experts:
		return fmt.Errorf("routing: model %s: top-k %d of %d experts", m.ID, m.TopK, m.Experts)
	case !slices.IsSorted(m.MoELayers) || m.MoELayers[0] < 0 || m.MoELayers[len(m.MoELayers)-1] >= m.Layers:
		return fmt.Errorf("routing: model %s: MoE layers %v of %d decoder layers", m.ID, m.MoELayers, m.Layers)
	}
	return nil
}

// Check reports whether the trace fits model m: a row for every MoE layer
// (decoder layer indices, or MoE ordinals for a capture numbered so) and
// for no other layer, the model's top-k in every row, and expert ids below
// its routed experts. The error names the file and the line of the first
// row that does not fit.
func (t *Trace) Check(m Model) error {
	_, err := t.layerMap(m)
	return err
}

// layerMap returns, for each decoder layer, the trace's layer position of
// it (-1 for a dense layer), after checking the trace against m.
func (t *Trace) layerMap(m Model) ([]int, error) {
	if err := m.validate(); err != nil {
		return nil, err
	}
	fail := func(line int, format string, a ...any) error {
		return &Error{File: t.name, Line: line, Row: t.row, Reason: fmt.Sprintf(format, a...)}
	}
	if t.k != m.TopK {
		return nil, fail(t.firstLine, "%d experts a row: model %s selects top-%d", t.k, m.ID, m.TopK)
	}
	if t.maxID >= m.Experts {
		return nil, fail(t.maxLine, "expert %d: model %s has %d routed experts (ids 0 to %d)", t.maxID, m.ID, m.Experts, m.Experts-1)
	}
	want := m.MoELayers
	if t.ordinal {
		want = make([]int, len(m.MoELayers))
		for i := range want {
			want[i] = i
		}
	}
	name := func(l int) string {
		if t.ordinal {
			return fmt.Sprintf("MoE layer %d", l)
		}
		return fmt.Sprintf("layer %d", l)
	}
	for i, l := range t.layers {
		if _, ok := slices.BinarySearch(want, l); !ok {
			why := "is dense"
			if t.ordinal || l >= m.Layers {
				why = "does not exist"
			}
			if t.ordinal {
				return nil, fail(t.layerLine[i], "%s: model %s has %d MoE layers (0 to %d)", name(l), m.ID, len(want), len(want)-1)
			}
			return nil, fail(t.layerLine[i], "layer %d: in model %s (%d decoder layers, MoE %s) that layer %s", l, m.ID, m.Layers, layerList(m.MoELayers), why)
		}
	}
	if len(t.layers) != len(want) {
		for _, l := range want {
			if _, ok := slices.BinarySearch(t.layers, l); !ok {
				return nil, fail(0, "no rows for %s: model %s routes tokens at %d layers (%s) and the trace covers %d", name(l), m.ID, len(want), layerList(want), len(t.layers))
			}
		}
	}
	pos := make([]int, m.Layers)
	for i := range pos {
		pos[i] = -1
	}
	for i, l := range m.MoELayers {
		pos[l] = i // trace positions follow the MoE layers' order either way
	}
	return pos, nil
}

// Bound is a trace checked against a model: the experts of every
// experiment token at every decoder layer, with the trace's rule for
// tokens beyond it.
//
// The rule: experiment request i reads trace request i, and token t of it
// trace token t. Without wrap, an experiment needing a request or a token
// the trace does not hold is refused (Need); with wrap, request i reads
// trace request i mod R and token t reads token t mod n (n: that trace
// request's tokens), so a long run cycles through the recording.
type Bound struct {
	t    *Trace
	pos  []int // decoder layer -> trace layer position, -1 for dense
	wrap bool
	e    int // the model's routed experts
	// d holds what the bound trace derives from the ids (shared by every
	// Bound of the trace to a model of as many experts).
	d *derived
}

// derived is what bound traces derive from a trace's ids for a model of e
// experts, computed on first use and kept for every Bound of the trace
// with that many experts (so the experiments of a sweep, each built and
// bound anew, share them); safe for concurrent use. first[r] is trace
// request r's FirstUse table; sets and prefix keep the bit sets of Sets
// and PrefixSets (setBytes: the bytes sets holds).
type derived struct {
	mu       sync.Mutex
	first    map[int][]uint32
	sets     map[setKey][]uint64
	setBytes int
	prefix   map[int]prefixSet
}

// derivedTables are a trace's derived tables, by the bound model's
// experts.
type derivedTables struct {
	mu  sync.Mutex
	byE map[int]*derived
}

// derivedFor returns the trace's derived tables for a model of e experts
// (a Bound's own when the trace has none: a Trace not made by this
// package's readers or generators).
func (t *Trace) derivedFor(e int) *derived {
	if t.derived == nil {
		return &derived{}
	}
	t.derived.mu.Lock()
	defer t.derived.mu.Unlock()
	d := t.derived.byE[e]
	if d == nil {
		if t.derived.byE == nil {
			t.derived.byE = map[int]*derived{}
		}
		d = &derived{}
		t.derived.byE[e] = d
	}
	return d
}

// Bind checks the trace against m (Check) and binds it.
func (t *Trace) Bind(m Model, wrap bool) (*Bound, error) {
	pos, err := t.layerMap(m)
	if err != nil {
		return nil, err
	}
	return &Bound{t: t, pos: pos, wrap: wrap, e: m.Experts, d: t.derivedFor(m.Experts)}, nil
}

// Trace is the bound trace.
func (b *Bound) Trace() *Trace { return b.t }

// Wrap reports whether tokens beyond the trace wrap around.
func (b *Bound) Wrap() bool { return b.wrap }

// Experts is the number of routed experts of the bound model.
func (b *Bound) NumExperts() int { return b.e }

// Need reports whether the trace holds tokens 0..tokens-1 of experiment
// requests 0..requests-1 under its rule: always with wrap; without it, an
// error naming the file, what it holds and what is needed.
func (b *Bound) Need(requests, tokens int) error {
	if b.wrap || requests <= 0 || tokens <= 0 {
		return nil
	}
	t := b.t
	if requests > t.Requests() {
		return &Error{File: t.name, Reason: fmt.Sprintf("holds %d requests; the experiment needs %d (set workload.routing.wrap: true to cycle through the trace)", t.Requests(), requests)}
	}
	for r := range requests {
		if n := t.Tokens(r); n < tokens {
			return &Error{File: t.name, Reason: fmt.Sprintf("request %d holds %d tokens; the experiment needs %d of each of its first %d requests (set workload.routing.wrap: true to cycle through the trace)",
				t.reqIDs[r], n, tokens, requests)}
		}
	}
	return nil
}

// NeedRequest reports whether the trace holds tokens 0..tokens-1 of
// experiment request req under its rule (always with wrap).
func (b *Bound) NeedRequest(req, tokens int) error {
	if b.wrap || tokens <= 0 {
		return nil
	}
	t := b.t
	if req >= t.Requests() {
		return &Error{File: t.name, Reason: fmt.Sprintf("holds %d requests; the experiment needs request %d (set workload.routing.wrap: true to cycle through the trace)", t.Requests(), req)}
	}
	if n := t.Tokens(req); n < tokens {
		return &Error{File: t.name, Reason: fmt.Sprintf("request %d holds %d tokens; the experiment needs %d of it (set workload.routing.wrap: true to cycle through the trace)", t.reqIDs[req], n, tokens)}
	}
	return nil
}

// Selected returns the experts experiment request req's token tok selects
// at decoder layer layer (nil for a dense layer), under the trace's rule,
// and an error for a token beyond an unwrapped trace.
func (b *Bound) Selected(req, tok, layer int) ([]uint16, error) {
	p := b.pos[layer]
	if p < 0 {
		return nil, nil
	}
	t := b.t
	r := req
	if r >= t.Requests() {
		if !b.wrap {
			return nil, &Error{File: t.name, Reason: fmt.Sprintf("holds %d requests; request %d is beyond it (set workload.routing.wrap: true to cycle through the trace)", t.Requests(), req)}
		}
		r %= t.Requests()
	}
	if n := t.Tokens(r); tok >= n {
		if !b.wrap {
			return nil, &Error{File: t.name, Reason: fmt.Sprintf("request %d holds %d tokens; token %d is beyond it (set workload.routing.wrap: true to cycle through the trace)", t.reqIDs[r], n, tok)}
		}
		tok %= n
	}
	return t.Experts(r, tok, p), nil
}

// Never is FirstUse's entry for an expert a request never selects.
const Never = math.MaxUint32

// FirstUse returns, for experiment request req (under the trace's rule),
// the first token at which each expert is selected at each MoE layer:
// entry o*E + e for MoE ordinal o and expert e, Never when the trace
// request never selects it. The tokens 0..n-1 of the request select
// expert e at layer o exactly when the entry is below n (for n beyond an
// unwrapped trace, Token refuses them first), so a pass's distinct
// experts over request prefixes need no walk over their tokens. The
// tables are computed once per trace request and shared by the trace's
// Bounds (safe for concurrent use); the slice must not be modified.
func (b *Bound) FirstUse(req int) ([]uint32, error) {
	t := b.t
	r := req
	if r >= t.Requests() {
		if !b.wrap {
			_, err := b.Token(req, 0)
			return nil, err
		}
		r %= t.Requests()
	}
	d := b.d
	d.mu.Lock()
	defer d.mu.Unlock()
	if f, ok := d.first[r]; ok {
		return f, nil
	}
	L, k := len(t.layers), t.k
	f := make([]uint32, L*b.e)
	for i := range f {
		f[i] = Never
	}
	for tok := t.Tokens(r) - 1; tok >= 0; tok-- {
		ids := t.ids[(t.start[r]+tok)*L*k : (t.start[r]+tok+1)*L*k]
		for o := range L {
			for _, x := range ids[o*k : (o+1)*k] {
				f[o*b.e+int(x)] = uint32(tok)
			}
		}
	}
	if d.first == nil || len(d.first) >= 1<<12 {
		d.first = map[int][]uint32{}
	}
	d.first[r] = f
	return f, nil
}
