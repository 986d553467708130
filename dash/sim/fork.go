package sim

import (
	"encoding/binary"

	"github.com/dashlab/dashlab/dash/unit"
)

// Forked kernels: the exact shortcut inside the attention kernels of a
// long decode.
//
// Between two writebacks of a layer, its attention kernel differs from one
// decode step to the next only in the decode KV it reads from HBM, which
// grows with the context; its HBF reads (as long as their Direct/Relay
// split, which the HBM KV sets on a grid of whole transfer chunks, stays
// the same: it is in the key), the state it starts from (the replayed
// segment before it leaves the same one) and every other operator are the
// same. An HBM read stream issues its chunks one by one, each of
// min(left to issue, chunk) bytes, and finishes when all have arrived; so
// two kernels that differ only in how much they read from HBM run the same
// events, at the same instants, until one of them issues its last (or a
// partial) chunk: nothing else looks at a stream's size (the kernel's
// compute time, which grows with the context too, is read only when its
// data have all arrived). The state of the smaller kernel (M bytes from
// HBM) at an instant T when every HBM read stream has at least one whole
// chunk left to issue is therefore the state of any larger kernel (M' >= M)
// at T, up to those streams' sizes and what is left to issue of them, the
// operator's total bytes and its compute's end.
//
// The engine records such a checkpoint while it simulates a kernel (when
// an HBM read stream comes within two chunks of its end, the others still
// a whole chunk away), keyed by the state the kernel starts from and its
// operators, less its HBM bytes and its compute; a later kernel with the
// same key and at least as many bytes per HBM stream starts from the
// checkpoint: the statistics advance by the recorded increments, the
// recorded state is installed (times shifted, streams renumbered, as
// replayed segments do), the sizes are corrected, and the simulation goes
// on from T (where it records the next, later checkpoint). Only the end of
// each kernel is simulated step by step. The tests compare the results
// with the event-by-event run (Options.NoJump) bit for bit.

// maxForks bounds the checkpoints kept; they are cleared when full.
const maxForks = 1024

// fork is a checkpoint of a kernel: the time from its start, the
// increments of the statistics since its start, the state (relative to its
// start), and the sizes of the operator's streams, in the order the
// operator lists them.
type fork struct {
	d     Time
	delta []int64
	state *dynState
	sizes []streamBytes
}

// streamBytes is the route and size of one of a kernel's streams.
type streamBytes struct {
	route int32
	total unit.Bytes
}

// forkRec is a kernel being watched for its checkpoint.
type forkRec struct {
	key    string
	t      Time
	pc     int
	before []int64
	sizes  []streamBytes
}

// forkMemo holds the checkpoints of a run and the kernel being watched.
type forkMemo struct {
	byKey map[string]*fork
	key   []byte // the key of the kernel about to start; nil: none
	buf   []byte // reused for key
	rec   *forkRec
	hits  int64
	// before is reused for the watched kernel's counters
	before []int64
}

// forkSig identifies a kernel for its checkpoints: the kernel segment's
// operators (kernelSig) less the kernel's HBM bytes, compute and overhead,
// with the split of its HBF KV over the routes (which the HBM KV sets, see
// kvPart).
func (j *jumper) forkSig(l int) []byte {
	p := j.e.pass
	k := &p.ops[p.attnIdx[l]]
	b := binary.AppendVarint(j.forks.buf[:0], -2)
	b = binary.AppendUvarint(b, p.staticSig[l])
	for _, v := range []int64{int64(k.class), int64(k.weights), b2i(k.replicated), int64(k.kvHBF),
		int64(k.kvWriteHBF), int64(k.kvWriteHBM), int64(k.kvWriteback), int64(k.gather), int64(k.sharedN),
		int64(k.routedN), int64(k.sharedBytes), int64(k.expertSize), b2i(k.routing)} {
		b = binary.AppendVarint(b, v)
	}
	return j.e.appendKVSplit(b, k) // the HBM KV moves the HBF KV's split
}

// kernelMissed is called when the kernel segment of layer l, which starts
// now from the state whose key is key, ran never before: its checkpoint is
// looked for when it has started.
func (j *jumper) kernelMissed(l int, key []byte) {
	f := &j.forks
	if f.byKey == nil {
		f.byKey = map[string]*fork{}
	}
	f.key = append(j.forkSig(l), key...)
	f.buf = f.key
}

// kernelStarted is called when the kernel whose key kernelMissed noted has
// started (its streams issued): it starts from the checkpoint of an
// earlier, smaller kernel if there is one, and watches for its own.
func (j *jumper) kernelStarted(i int) {
	f := &j.forks
	key := string(f.key)
	f.key = nil
	e := j.e
	f.before = e.globalCounters(f.before[:0])
	rec := &forkRec{key: key, t: e.now, pc: i, before: f.before, sizes: j.streamSizes(i)}
	if c, ok := f.byKey[key]; ok && j.resume(c, rec) {
		f.hits++
	}
	if e.err == nil {
		f.rec = rec
	}
}

// streamSizes lists the routes and sizes of operator i's streams.
func (j *jumper) streamSizes(i int) []streamBytes {
	e := j.e
	ids := e.ops[i].streams
	out := make([]streamBytes, len(ids))
	for k, id := range ids {
		out[k] = streamBytes{route: e.streams[id].route, total: e.streams[id].total}
	}
	return out
}

// resume moves the kernel that has just started (rec) to checkpoint c, if
// c's kernel read no more from HBM, stream by stream, and the same
// otherwise. It reports whether it did.
func (j *jumper) resume(c *fork, rec *forkRec) bool {
	if len(c.sizes) != len(rec.sizes) {
		return false
	}
	e := j.e
	var grow unit.Bytes
	for k, s := range rec.sizes {
		cs := c.sizes[k]
		dram := e.cfg.rt.routes[s.route].dramRead
		switch {
		case cs.route != s.route:
			return false
		case dram && s.total < cs.total:
			return false
		case !dram && s.total != cs.total:
			return false
		}
		if s.total != cs.total && c.state.ops[0].streams[k] < 0 {
			return false // finished at the checkpoint: the larger stream would not be
		}
		grow += s.total - cs.total
	}
	i := rec.pc
	computeDone := e.ops[i].computeDone
	e.skipTo(c.d, c.delta)
	if e.err != nil {
		return false
	}
	e.install(c.state, rec.t, i)
	op := &e.ops[i]
	op.total += grow
	op.computeDone = computeDone
	for k, id := range op.streams {
		if d := rec.sizes[k].total - c.sizes[k].total; d > 0 {
			st := &e.streams[id]
			st.total += d
			st.toIssue += d
		}
	}
	return true
}

// hbmRead is called after an HBM chunk has been read from DRAM and the
// stream's next issued: when the kernel being watched has an HBM read
// stream within two chunks of its end and none within one, its checkpoint
// is recorded; the watch ends then or when a stream comes within one chunk.
func (j *jumper) hbmRead() {
	r := j.forks.rec
	if r == nil {
		return
	}
	e := j.e
	chunk := e.cfg.hbmChunk
	least := unit.Bytes(-1)
	for _, id := range e.ops[r.pc].streams {
		// A finished stream issues nothing more (resume refuses to grow
		// one). Counting it ended every watch after a resume: install
		// stands one finished stream, of route 0 (an HBM read), for those
		// a checkpoint lists, so no resumed kernel ever left a newer
		// checkpoint and each resumed from an older one, simulating the
		// HBM chunks added since.
		if st := &e.streams[id]; !st.finished && e.cfg.rt.routes[st.route].dramRead && (least < 0 || st.toIssue < least) {
			least = st.toIssue
		}
	}
	if least < 0 || least >= 2*chunk {
		return
	}
	j.forks.rec = nil
	if least < chunk || e.pc != r.pc {
		return
	}
	after := e.globalCounters(make([]int64, 0, len(r.before)))
	for k := range after {
		after[k] -= r.before[k]
	}
	if len(j.forks.byKey) >= maxForks {
		clear(j.forks.byKey)
	}
	j.forks.byKey[r.key] = &fork{d: e.now - r.t, delta: after, state: e.capture(r.t, r.pc), sizes: r.sizes}
}
