package sim

import (
	"slices"

	"github.com/dashlab/dashlab/dash/unit"
)

type evKind uint8

const (
	evOpEnd       evKind = iota // a GPU operator finished
	evArrayDone                 // an HBF array finished sensing or programming
	evTSVDone                   // a sensed segment reached HBF SRAM
	evProgTSVDone               // a program wave moved from SRAM into the page buffers
	evHopDone                   // a chunk finished a hop of its route (at: the hop)
)

// event is one scheduled occurrence. Events are ordered by (t, seq): equal
// times keep their scheduling order, so runs are deterministic.
//
// An event takes 32 bytes (a heap of them moves less than of 40): at is
// an int16, which holds any HBF stack (at most dash.MaxPairs) and any hop
// of a route (TestEventIndexFits).
type event struct {
	t      Time
	seq    uint64
	bytes  unit.Bytes
	stream int32
	at     int16 // the HBF stack (array and TSV events) or the hop (evHopDone)
	kind   evKind
}

func (a *event) before(b *event) bool {
	return a.t < b.t || a.t == b.t && a.seq < b.seq
}

// eventQueue is a 4-ary min-heap of events: shallower than a binary heap,
// with the children of a node adjacent in memory.
type eventQueue []event

func (q *eventQueue) push(e event) {
	*q = append(*q, e)
	h := *q
	i := len(h) - 1
	for i > 0 { // parents later than e move down into the hole
		p := (i - 1) / 4
		if !e.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func (q *eventQueue) pop() event {
	h := *q
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < c+4 && k < n; k++ {
			if h[k].before(&h[m]) {
				m = k
			}
		}
		if !h[m].before(&last) {
			break
		}
		h[i] = h[m]
		i = m
	}
	if n > 0 {
		h[i] = last
	}
	*q = h
	return top
}

// sortEvents puts events in (time, sequence) order, which is also a valid
// heap. A queue is short and, being a heap, nearly in order: insertion
// sort, without a comparison callback, unless it is long.
func sortEvents(q []event) {
	if len(q) > 64 {
		slices.SortFunc(q, func(a, b event) int {
			if a.before(&b) {
				return -1
			}
			if b.before(&a) {
				return 1
			}
			return 0
		})
		return
	}
	for i := 1; i < len(q); i++ {
		x := q[i]
		j := i
		for ; j > 0 && x.before(&q[j-1]); j-- {
			q[j] = q[j-1]
		}
		q[j] = x
	}
}
