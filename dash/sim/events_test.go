package sim

import (
	"math"
	"testing"
	"unsafe"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
)

// TestEventIndexFits checks what the event's int16 index (event.at) rests
// on: the topology's limits keep the HBF stacks, and every shipped
// system's routes keep their hops, far below its range; and the event
// stays 32 bytes.
func TestEventIndexFits(t *testing.T) {
	if got := unsafe.Sizeof(event{}); got != 32 {
		t.Errorf("an event takes %d bytes, want 32", got)
	}
	if dash.MaxPairs > math.MaxInt16 {
		t.Fatalf("dash.MaxPairs = %d: more HBF stacks than an event can name", dash.MaxPairs)
	}
	for _, id := range reference.SystemIDs() {
		c, err := newConfig(build(t, "qwen3-30b-a3b", id, 1, 16, 2))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range c.rt.routes {
			if len(r.hops) > 64 {
				t.Errorf("%s: a route of %d hops", id, len(r.hops))
			}
		}
	}
}

// TestQueuePrint checks what the period search's fingerprint rests on: two
// states with the same events seen from now print alike, whatever the
// queue's order and the clock; an event moved in time, of another kind or
// carrying other bytes prints otherwise (these, at least, must not collide).
func TestQueuePrint(t *testing.T) {
	evs := []event{
		{t: 100, kind: evHopDone, stream: 3, at: 1, bytes: 4 << 20},
		{t: 140, kind: evArrayDone, stream: -1, at: 0},
		{t: 140, kind: evTSVDone, stream: 2, at: 1, bytes: 4 << 20},
		{t: 900, kind: evOpEnd, stream: 7, at: -1},
	}
	printOf := func(now Time, shift Time, order []int, edit func(*event)) uint64 {
		e := &engine{now: now}
		for _, k := range order {
			ev := evs[k]
			ev.t += shift
			ev.seq = uint64(k)
			if edit != nil && k == 0 {
				edit(&ev)
			}
			e.q = append(e.q, ev)
		}
		return e.queuePrint()
	}
	base := printOf(50, 0, []int{0, 1, 2, 3}, nil)
	if got := printOf(50, 0, []int{3, 1, 0, 2}, nil); got != base {
		t.Errorf("the queue's order changed the print: %x, want %x", got, base)
	}
	if got := printOf(1050, 1000, []int{2, 0, 3, 1}, nil); got != base {
		t.Errorf("the clock changed the print of the same relative queue: %x, want %x", got, base)
	}
	for name, edit := range map[string]func(*event){
		"time":   func(ev *event) { ev.t++ },
		"kind":   func(ev *event) { ev.kind = evTSVDone },
		"bytes":  func(ev *event) { ev.bytes-- },
		"stream": func(ev *event) { ev.stream = 4 },
		"place":  func(ev *event) { ev.at = 0 },
	} {
		if got := printOf(50, 0, []int{0, 1, 2, 3}, edit); got == base {
			t.Errorf("an event's %s changed and the print did not", name)
		}
	}
	if got := printOf(50, 0, []int{0, 1, 2}, nil); got == base {
		t.Error("an event fewer and the print did not change")
	}
}
