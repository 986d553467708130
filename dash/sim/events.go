package sim

import "github.com/dashlab/dashlab/dash/unit"

type evKind uint8

const (
	evOpEnd        evKind = iota // a GPU operator finished
	evArrayDone                  // an HBF array finished sensing or programming
	evTSVDone                    // a sensed segment reached HBF SRAM
	evDirectDone                 // a segment crossed the GPU-HBF link (delivered)
	evUpDone                     // a relayed segment crossed the HBF-HBM link into relay SRAM
	evFwdDone                    // a relayed segment crossed the GPU-HBM link (delivered)
	evHBMArrayDone               // an HBM chunk was read from DRAM
	evHBMLinkDone                // an HBM chunk crossed the GPU-HBM link (delivered)
	evWLinkDone                  // a direct write crossed the GPU-HBF link into HBF SRAM
	evRWLinkDone                 // a relay write crossed the GPU-HBM link into relay SRAM
	evRWDownDone                 // a relay write crossed the HBM-HBF link into HBF SRAM
	evProgTSVDone                // a program wave moved from SRAM into the page buffers
	evHBMWLinkDone               // an HBM write crossed the GPU-HBM link
	evHBMWriteDone               // an HBM write reached DRAM
)

// event is one scheduled occurrence. Events are ordered by (t, seq): equal
// times keep their scheduling order, so runs are deterministic.
type event struct {
	t      Time
	seq    uint64
	kind   evKind
	stack  int32
	stream int32
	bytes  unit.Bytes
}

func (a *event) before(b *event) bool {
	return a.t < b.t || a.t == b.t && a.seq < b.seq
}

// eventQueue is a binary min-heap of events.
type eventQueue []event

func (q *eventQueue) push(e event) {
	*q = append(*q, e)
	h := *q
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *eventQueue) pop() event {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].before(&h[l]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}
