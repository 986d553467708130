package routing

import (
	"fmt"
	"math"
	"slices"
)

// Bounds of a routing trace. A trace is held in memory whole (two bytes an
// expert id), so its size is bounded by the ids it holds, not only by its
// file size: a compressed Parquet file expands.
const (
	// MaxTraceBytes bounds a trace file (512 MiB).
	MaxTraceBytes = 512 << 20
	// MaxLineBytes bounds one JSON Lines row (64 KiB; a row of top-8 with
	// weights is under 300 bytes).
	MaxLineBytes = 64 << 10
	// MaxEntries bounds the expert ids of a trace (2^27, 256 MiB held).
	MaxEntries = 1 << 27
	// MaxRequests bounds the requests of a trace.
	MaxRequests = 1 << 20
	// MaxTokens bounds a request's tokens (as dash.MaxTokens).
	MaxTokens = 1 << 24
	// MaxLayer bounds a layer index (as dash.MaxLayers).
	MaxLayer = 100_000
	// MaxExpertID bounds an expert id (dash.MaxExperts - 1).
	MaxExpertID = 1<<16 - 1
	// MaxTopK bounds the experts of one row.
	MaxTopK = 1024
	// MaxWeight bounds a routing weight (router weights are probabilities,
	// some scaled: DeepSeek-V3 multiplies them by 2.5).
	MaxWeight = 1000
)

// Error is a trace refused: the file, the 1-based line (a JSON Lines line,
// or a Parquet row; 0 for the file as a whole) and the reason.
type Error struct {
	// File names the trace.
	File string
	// Line is the 1-based line or row; 0 for the file as a whole.
	Line int
	// Row reports that Line counts Parquet rows, not text lines.
	Row bool
	// Reason says what is wrong.
	Reason string
}

func (e *Error) Error() string {
	switch {
	case e.Line == 0:
		return fmt.Sprintf("%s: %s", e.File, e.Reason)
	case e.Row:
		return fmt.Sprintf("%s: row %d: %s", e.File, e.Line, e.Reason)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Reason)
}

// Trace is recorded routing: for each request, for each of its tokens in
// order (prompt tokens first, then generated ones), for each MoE layer, the
// experts the router selected, in the router's order (the first is its top
// choice), with optional routing weights. Every token has one row for every
// layer of the trace, and every row the same number of experts (top-k).
//
// A Trace is immutable once read or generated and safe for concurrent use.
type Trace struct {
	name string
	k    int
	// layers are the trace's layer numbers in ascending order: decoder
	// layer indices, or MoE-layer ordinals when ordinal is set (the
	// numbering of captures that hold MoE layers only).
	layers  []int
	ordinal bool
	reqIDs  []int64 // each request's id as written
	start   []int   // start[r] is request r's first token; len R+1
	ids     []uint16
	weights []float32 // nil: the trace has no weights
	// where things were read, for the errors of a model check
	row       bool  // lines are Parquet rows
	firstLine int   // the first row
	layerLine []int // the first row of each layer
	maxID     int
	maxLine   int
	// derived holds what replays derive from the ids (Bound), shared by
	// the trace's Bounds; nil: each Bound derives its own.
	derived *derivedTables
}

// Name is the file the trace was read from (or a generator's label).
func (t *Trace) Name() string { return t.name }

// TopK is the number of experts of every row.
func (t *Trace) TopK() int { return t.k }

// Layers returns the trace's layer numbers, ascending.
func (t *Trace) Layers() []int { return slices.Clone(t.layers) }

// Ordinal reports that the layer numbers count MoE layers only (0 is the
// model's first MoE layer), as in a vLLM capture; otherwise they are
// decoder layer indices.
func (t *Trace) Ordinal() bool { return t.ordinal }

// Requests is the number of requests.
func (t *Trace) Requests() int { return len(t.reqIDs) }

// RequestID is request r's id as written in the file.
func (t *Trace) RequestID(r int) int64 { return t.reqIDs[r] }

// Tokens is the number of tokens of request r.
func (t *Trace) Tokens(r int) int { return t.start[r+1] - t.start[r] }

// MaxExpert is the largest expert id in the trace.
func (t *Trace) MaxExpert() int { return t.maxID }

// HasWeights reports whether the rows carry routing weights.
func (t *Trace) HasWeights() bool { return t.weights != nil }

// Experts returns the experts token tok of request r selected at the
// trace's layer position l (an index into Layers), in the router's order.
// The slice is the trace's own: do not modify it.
func (t *Trace) Experts(r, tok, l int) []uint16 {
	i := ((t.start[r]+tok)*len(t.layers) + l) * t.k
	return t.ids[i : i+t.k : i+t.k]
}

// Weights returns the routing weights of Experts(r, tok, l), or nil when
// the trace has none.
func (t *Trace) Weights(r, tok, l int) []float32 {
	if t.weights == nil {
		return nil
	}
	i := ((t.start[r]+tok)*len(t.layers) + l) * t.k
	return t.weights[i : i+t.k : i+t.k]
}

// builder checks rows as they arrive, in the order a trace requires:
// requests contiguous, each request's tokens from 0 in order, each token's
// rows in ascending layer order, the first token's layers setting the
// layers of every token.
type builder struct {
	t        *Trace
	seenReq  map[int64]bool
	curReq   int64
	curTok   int
	pos      int  // the next layer position expected within the token
	learning bool // the first token: layers are being learnt
	rows     int
	chosen   []bool // scratch: duplicate check
}

func newBuilder(name string, row bool) *builder {
	return &builder{t: &Trace{name: name, row: row, derived: &derivedTables{}}, seenReq: map[int64]bool{}, learning: true}
}

func (b *builder) fail(line int, format string, a ...any) error {
	return &Error{File: b.t.name, Line: line, Row: b.t.row, Reason: fmt.Sprintf(format, a...)}
}

// add takes one row. weights is nil for a row without them.
func (b *builder) add(line int, req, tok, layer int64, experts []int64, weights []float64) error {
	t := b.t
	switch {
	case req < 0 || req > math.MaxInt32:
		return b.fail(line, "request = %d: must be an integer from 0 to %d", req, math.MaxInt32)
	case tok < 0 || tok >= MaxTokens:
		return b.fail(line, "token = %d: must be an integer from 0 to %d", tok, MaxTokens-1)
	case layer < 0 || layer >= MaxLayer:
		return b.fail(line, "layer = %d: must be an integer from 0 to %d", layer, MaxLayer-1)
	case len(experts) == 0:
		return b.fail(line, "experts is empty: a row holds the token's selected experts")
	case len(experts) > MaxTopK:
		return b.fail(line, "%d experts: at most %d", len(experts), MaxTopK)
	}
	if b.rows == 0 {
		t.k = len(experts)
		t.firstLine = line
		if weights != nil {
			t.weights = []float32{}
		}
	}
	if len(experts) != t.k {
		return b.fail(line, "%d experts: every row has the top-k of the first row (%s has %d)", len(experts), b.where(t.firstLine), t.k)
	}
	if (weights != nil) != (t.weights != nil) {
		if weights == nil {
			return b.fail(line, "no weights: the first row (%s) has weights, so every row must", b.where(t.firstLine))
		}
		return b.fail(line, "weights given: the first row (%s) has none, so no row may", b.where(t.firstLine))
	}
	if weights != nil && len(weights) != len(experts) {
		return b.fail(line, "%d weights for %d experts: one weight per expert", len(weights), len(experts))
	}
	if cap(b.chosen) < MaxExpertID+1 {
		b.chosen = make([]bool, MaxExpertID+1)
	}
	for i, e := range experts {
		if e < 0 || e > MaxExpertID {
			b.clearChosen(experts[:i])
			return b.fail(line, "expert %d: ids are integers from 0 to %d", e, MaxExpertID)
		}
		if b.chosen[e] {
			b.clearChosen(experts[:i])
			return b.fail(line, "expert %d appears twice: a token selects distinct experts", e)
		}
		b.chosen[e] = true
	}
	b.clearChosen(experts)
	for _, w := range weights {
		if math.IsNaN(w) || w < 0 || w > MaxWeight {
			return b.fail(line, "weight %v: must be a finite number from 0 to %d", w, MaxWeight)
		}
	}
	// Order: a new request, the next token, or the next layer.
	newReq := b.rows == 0 || req != b.curReq
	if newReq {
		if b.seenReq[req] {
			return b.fail(line, "request %d appears again after request %d: the rows of a request must be contiguous", req, b.curReq)
		}
		if len(t.reqIDs) >= MaxRequests {
			return b.fail(line, "more than %d requests", MaxRequests)
		}
		if b.rows > 0 {
			if err := b.endToken(line); err != nil {
				return err
			}
		}
		if tok != 0 {
			return b.fail(line, "request %d starts at token %d: a request's tokens start at 0", req, tok)
		}
		b.seenReq[req] = true
		t.reqIDs = append(t.reqIDs, req)
		t.start = append(t.start, b.tokens())
		b.curReq, b.curTok, b.pos = req, 0, 0
	} else if tok != int64(b.curTok) {
		if tok != int64(b.curTok)+1 {
			return b.fail(line, "request %d token %d after token %d: tokens come in order without gaps", req, tok, b.curTok)
		}
		if err := b.endToken(line); err != nil {
			return err
		}
		b.curTok++
		b.pos = 0
	}
	if b.learning {
		if n := len(t.layers); n > 0 && int(layer) <= t.layers[n-1] {
			return b.fail(line, "layer %d after layer %d: a token's rows come in ascending layer order, once each", layer, t.layers[n-1])
		}
		t.layers = append(t.layers, int(layer))
		t.layerLine = append(t.layerLine, line)
	} else {
		if b.pos >= len(t.layers) {
			return b.fail(line, "layer %d: token %d of request %d already has a row for every layer of the trace (%s)", layer, tok, req, layerList(t.layers))
		}
		if want := t.layers[b.pos]; int(layer) != want {
			return b.fail(line, "layer %d: expected layer %d (every token has rows for the layers of the trace's first token, %s, in that order)", layer, want, layerList(t.layers))
		}
	}
	b.pos++
	if len(t.ids)+t.k > MaxEntries {
		return b.fail(line, "more than %d expert ids in all", MaxEntries)
	}
	for _, e := range experts {
		t.ids = append(t.ids, uint16(e))
		if int(e) > t.maxID || t.maxLine == 0 {
			t.maxID, t.maxLine = int(e), line
		}
	}
	for _, w := range weights {
		t.weights = append(t.weights, float32(w))
	}
	b.rows++
	return nil
}

func (b *builder) clearChosen(experts []int64) {
	for _, e := range experts {
		if e >= 0 && e <= MaxExpertID {
			b.chosen[e] = false
		}
	}
}

// tokens is the number of whole tokens taken so far.
func (b *builder) tokens() int {
	if len(b.t.layers) == 0 {
		return 0
	}
	return len(b.t.ids) / (b.t.k * len(b.t.layers))
}

// endToken checks that the token just ended has every layer.
func (b *builder) endToken(line int) error {
	t := b.t
	if b.learning {
		b.learning = false
		return nil
	}
	if b.pos != len(t.layers) {
		return b.fail(line, "token %d of request %d has rows for %d of the trace's %d layers (%s): it lacks layer %d",
			b.curTok, b.curReq, b.pos, len(t.layers), layerList(t.layers), t.layers[b.pos])
	}
	if b.curTok+1 >= MaxTokens {
		return b.fail(line, "request %d: more than %d tokens", b.curReq, MaxTokens)
	}
	return nil
}

func (b *builder) done(ordinal bool) (*Trace, error) {
	t := b.t
	if b.rows == 0 {
		return nil, &Error{File: t.name, Reason: "no rows"}
	}
	if !b.learning && b.pos != len(t.layers) {
		return nil, &Error{File: t.name, Reason: fmt.Sprintf("the last token (token %d of request %d) has rows for %d of the trace's %d layers (%s)",
			b.curTok, b.curReq, b.pos, len(t.layers), layerList(t.layers))}
	}
	t.start = append(t.start, b.tokens())
	t.ordinal = ordinal
	b.chosen = nil
	return t, nil
}

func (b *builder) where(line int) string {
	if b.t.row {
		return fmt.Sprintf("row %d", line)
	}
	return fmt.Sprintf("line %d", line)
}

// layerList writes layer numbers compactly: "0-47" or "0, 2, 4".
func layerList(ls []int) string {
	if len(ls) == 0 {
		return "none"
	}
	contiguous := true
	for i := 1; i < len(ls); i++ {
		if ls[i] != ls[i-1]+1 {
			contiguous = false
		}
	}
	if contiguous && len(ls) > 2 {
		return fmt.Sprintf("layers %d-%d", ls[0], ls[len(ls)-1])
	}
	s := "layers "
	for i, l := range ls {
		if i > 0 {
			s += ", "
		}
		if i == 8 && len(ls) > 10 {
			return s + fmt.Sprintf("... (%d layers)", len(ls))
		}
		s += fmt.Sprint(l)
	}
	return s
}
