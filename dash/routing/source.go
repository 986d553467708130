package routing

import (
	"math/rand/v2"
)

// Source gives the experts each token selects: a bound trace, or the
// generator drawing them as they are asked for. A Source is used by one
// simulation at a time (the generator keeps each request's state).
type Source interface {
	// Token returns the experts token tok of experiment request req selects
	// at every MoE layer: k ids per layer, the layers in the model's
	// order. The slice is valid until the next call and must not be
	// modified.
	Token(req, tok int) ([]uint16, error)
}

// Token implements Source under the trace's rule (see Bound).
func (b *Bound) Token(req, tok int) ([]uint16, error) {
	r, tok, err := b.locate(req, tok)
	if err != nil {
		return nil, err
	}
	t := b.t
	w := len(t.layers) * t.k
	i := (t.start[r] + tok) * w
	return t.ids[i : i+w : i+w], nil
}

func (b *Bound) firstMoE() int {
	for l, p := range b.pos {
		if p >= 0 {
			return l
		}
	}
	return 0
}

// genSource is the generator as a Source: each request's tokens are drawn
// in order as they are asked for, keeping only the last token and the
// request's random stream, so memory does not grow with the tokens; a
// request asked for an earlier token is drawn again from its start (the
// draws are deterministic).
type genSource struct {
	g    *generator
	reqs map[int]*genRequest
}

type genRequest struct {
	r          *rand.PCG
	task       int
	next       int      // the next token to draw
	cur, spare []uint16 // the last token drawn, and a scratch buffer
}

// maxGenRequests bounds the requests a genSource keeps state for (a
// request dropped is drawn again from its start if asked for).
const maxGenRequests = 1 << 14

// NewSource returns the generator s for model m as a Source.
func NewSource(s Synthetic, m Model) (Source, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := m.validate(); err != nil {
		return nil, err
	}
	return &genSource{g: newGenerator(s, m), reqs: map[int]*genRequest{}}, nil
}

func (s *genSource) Token(req, tok int) ([]uint16, error) {
	q := s.reqs[req]
	if q == nil || tok < q.next-1 {
		if len(s.reqs) >= maxGenRequests {
			clear(s.reqs)
		}
		w := len(s.g.m.MoELayers) * s.g.m.TopK
		r, task := s.g.stream(req)
		q = &genRequest{r: r, task: task, cur: make([]uint16, w), spare: make([]uint16, w)}
		s.reqs[req] = q
	}
	for q.next <= tok {
		var prev []uint16
		if q.next > 0 {
			prev = q.cur
		}
		q.spare, q.cur = q.cur, q.spare
		s.g.token(q.r, q.task, prev, q.cur)
		q.next++
	}
	return q.cur, nil
}
