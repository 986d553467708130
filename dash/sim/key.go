package sim

import (
	"encoding/binary"
	"slices"
)

// keyer encodes the state, as the walk shows it, relative to now: two
// states with equal keys have the same future, shifted in time. From the
// same walk it collects, in walk order, the counters that a shortcut from
// the state advances.
//
// Within a pass (layer false) streams and operators keep their numbers and
// the progress counters are left out of the key: a periodic jump advances
// them. At a layer boundary (layer true) streams are named by their
// position among the active streams, operators relative to the program
// counter, and progress is part of the key, so that the states at two
// layer boundaries compare equal when the layers left the memory system in
// the same condition.
type keyer struct {
	b     []byte
	now   int64
	layer bool
	pc    int64
	pos   map[int32]int64 // layer keys: active stream -> position
	cnt   []int64
	rem   []int // within a pass: the indices in cnt of the remaining counters
}

// put appends v to the key as a zigzag varint (binary.AppendVarint's
// encoding). A one-byte value, the common case, is written in place (a
// reslice of k.b, which needs no write barrier).
func (k *keyer) put(v int64) {
	if n := len(k.b); uint64(v+64) < 128 && n < cap(k.b) {
		k.b = k.b[:n+1]
		k.b[n] = byte(v<<1) ^ byte(v>>63)
		return
	}
	k.b = binary.AppendVarint(k.b, v)
}

func (k *keyer) grow() { k.b = slices.Grow(k.b, 1024) }

// count appends v to the counters, as put does to the key.
func (k *keyer) count(v int64) {
	n := len(k.cnt)
	if n == cap(k.cnt) {
		k.cnt = slices.Grow(k.cnt, 256)
	}
	k.cnt = k.cnt[:n+1]
	k.cnt[n] = v
}

func (k *keyer) uses() kinds           { return allKinds }
func (k *keyer) plain(v int64) int64   { k.put(v); return v }
func (k *keyer) instant(v int64) int64 { k.put(max(0, v-k.now)); return v }

// opInstant: an operator's start and the end of its compute. Within a pass
// they are left out: the compute's end is read only once the operator's
// data have all arrived (finishOp), which no periodic jump reaches (every
// stream keeps a period's worth unissued), and a jump leaves them as they
// are; so a long operator streaming its data repeats its state while its
// compute's end draws nearer. Layer keys hold their distance from now.
func (k *keyer) opInstant(v int64) int64 {
	if k.layer {
		k.put(max(0, v-k.now))
	}
	return v
}
func (k *keyer) stat(v int64) int64 { k.count(v); return v }

func (k *keyer) streamID(v int64) int64 {
	if k.layer && v >= 0 {
		k.put(k.position(v))
	} else {
		k.put(v)
	}
	return v
}

func (k *keyer) opID(v int64) int64 {
	if k.layer && v >= 0 {
		k.put(v - k.pc)
	} else {
		k.put(v)
	}
	return v
}

func (k *keyer) streamSize(v int64) int64 {
	if k.layer {
		k.put(v)
	}
	return v
}

func (k *keyer) progress(v int64) int64 {
	if k.layer {
		k.put(v)
	} else {
		k.count(v)
	}
	return v
}

func (k *keyer) remaining(v int64) int64 {
	if !k.layer {
		k.rem = append(k.rem, len(k.cnt))
	}
	return k.progress(v)
}

// position names an active stream by its position in the active list.
func (k *keyer) position(id int64) int64 {
	if p, ok := k.pos[int32(id)]; ok {
		return p
	}
	return -1000 - id // a finished stream: cannot match
}

// key encodes e into k.b and collects into k.cnt the counters a shortcut
// from this state advances: the statistics, and within a pass the progress
// counters too (counterKinds; at a layer boundary statKinds).
func (k *keyer) key(e *engine, layer bool) {
	k.b, k.cnt, k.rem = k.b[:0], k.cnt[:0], k.rem[:0]
	k.now, k.layer, k.pc = int64(e.now), layer, int64(e.pc)
	if layer {
		if k.pos == nil {
			k.pos = map[int32]int64{}
		}
		clear(k.pos)
		for i, id := range e.active {
			k.pos[id] = int64(i)
		}
	}
	// Events in (time, sequence) order, which the key needs (without the
	// sequence numbers): a sorted queue is still a valid heap.
	sortEvents(e.q)
	e.walk(walker{v: k, uses: allKinds})
}
