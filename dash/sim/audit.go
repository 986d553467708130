package sim

import (
	"fmt"
	"math"

	"github.com/dashlab/dashlab/dash/unit"
)

// auditor checks a run's physics as the engine runs it (tests set
// Options.audit): every booking of a server (link direction, DRAM array,
// TSV) starts after the previous one ends and lasts at least its bytes at
// the server's rate, so that no resource carries data faster than its rate
// over any interval; no pool holds more chunks than its regions or fewer
// than none; no NAND array has more page waves in flight than its read
// pipeline allows; the GPU staging buffer never overflows; and every
// operator receives, from each memory, the bytes it needs of it (with
// shortcuts off, every delivery is seen). It never changes what the engine
// does.
type auditor struct {
	cfg *config
	// lastEnd is each server's latest booking end: links, then DRAM
	// arrays, then TSVs.
	lastEnd []Time
	// fromHBM and fromHBF are the bytes each operator of the pass has
	// received from each memory.
	fromHBM, fromHBF []unit.Bytes
	// ops counts the operators checked; errs the first violations.
	ops  int
	errs []string
	// deliveries is false when shortcuts may skip deliveries (per-operator
	// checks off).
	deliveries bool
}

const maxAuditErrors = 8

func (a *auditor) fail(format string, args ...any) {
	if len(a.errs) < maxAuditErrors {
		a.errs = append(a.errs, fmt.Sprintf(format, args...))
	}
}

// Err is the violations seen, as one error (nil: none).
func (a *auditor) Err() error {
	if a == nil || len(a.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%d violations, first: %v", len(a.errs), a.errs)
}

func (a *auditor) start(c *config, ops int) {
	if a.cfg == nil {
		a.cfg = c
		a.lastEnd = make([]Time, len(c.rt.links)+c.nHBM+c.nHBF)
	}
	a.fromHBM = append(a.fromHBM[:0], make([]unit.Bytes, ops)...)
	a.fromHBF = append(a.fromHBF[:0], make([]unit.Bytes, ops)...)
}

// book checks a booking of server id (in lastEnd's numbering) at rate.
func (a *auditor) book(id int, what string, start, end Time, b unit.Bytes, rate unit.BytesPerSecond) {
	if start < a.lastEnd[id] {
		a.fail("%s: a booking starts at %v, before the previous one ends (%v)", what, start, a.lastEnd[id])
	}
	if min := float64(b) / float64(rate) * 1e9; float64(end-start) < min-1e-6 || math.IsNaN(min) {
		a.fail("%s: %v in %v, faster than its %v", what, b, end-start, rate)
	}
	a.lastEnd[id] = max(a.lastEnd[id], end)
}

// transfer checks a hop's booking (hop h of a route).
func (a *auditor) transfer(h *hop, start, end Time, b unit.Bytes) {
	if h.link >= 0 {
		info := a.cfg.rt.links[h.link]
		a.book(int(h.link), fmt.Sprintf("link %s of pair %d", info.label, info.pair), start, end, b, info.rate)
		return
	}
	a.book(len(a.cfg.rt.links)+int(h.dram), fmt.Sprintf("hbm%d DRAM", h.dram), start, end, b, a.cfg.hbmRate)
}

// tsv checks a booking of HBF stack s's TSV.
func (a *auditor) tsv(s int, start, end Time, b unit.Bytes) {
	a.book(len(a.cfg.rt.links)+a.cfg.nHBM+s, fmt.Sprintf("hbf%d TSV", s), start, end, b, a.cfg.tsv)
}

// pool checks a pool's free regions after a change.
func (a *auditor) pool(id int32, free int) {
	if free < 0 || free > a.cfg.rt.poolSlots[id] {
		a.fail("pool %d: %d of %d regions free", id, free, a.cfg.rt.poolSlots[id])
	}
}

// array checks a NAND array's read pipeline after a sense starts.
func (a *auditor) array(stack int, s *hbfStack) {
	if a.cfg.readWaves == 0 {
		return
	}
	n := len(s.sensing) + len(s.dataReg)
	if !a.cfg.cacheRead && len(s.cacheReg) > 0 {
		n++
	}
	if n > a.cfg.readWaves {
		a.fail("hbf%d: %d page waves in flight, the read pipeline holds %d", stack, n, a.cfg.readWaves)
	}
}

// staged checks the GPU staging buffer.
func (a *auditor) staged(b, limit unit.Bytes) {
	if b > limit || b < 0 {
		a.fail("GPU staging buffer holds %v of %v", b, limit)
	}
}

// delivered counts a read's bytes for its operator by the memory they left.
func (a *auditor) delivered(st *stream, r *route, b unit.Bytes) {
	if st.consumer < 0 || !r.toGPU {
		return
	}
	if r.sense >= 0 {
		a.fromHBF[st.consumer] += b
	} else {
		a.fromHBM[st.consumer] += b
	}
}

// opEnded checks that operator i received every byte it reads, each from
// a memory that holds it: its HBM KV from HBM; its HBF KV, gathered rows,
// experts and the weights with no HBM copy from HBF (everything from HBM
// in a package without HBF); replicated weights from either.
func (a *auditor) opEnded(i int, spec *opSpec) {
	a.ops++
	if !a.deliveries {
		return
	}
	hbm, hbf := a.fromHBM[i], a.fromHBF[i]
	if got, need := hbm+hbf, spec.readBytes(); got != need {
		a.fail("%v operator of layer %d received %v of the %v it reads", spec.class, spec.layer, got, need)
	}
	needHBM, needHBF := spec.kvHBM, spec.kvHBF+spec.gather+unit.Bytes(spec.sharedN)*spec.sharedBytes+unit.Bytes(spec.routedN)*spec.expertSize
	if !spec.replicated {
		needHBF += spec.weights
	}
	if a.cfg.nHBF == 0 {
		needHBM, needHBF = needHBM+needHBF, 0
	}
	if hbm < needHBM || hbf < needHBF {
		a.fail("%v operator of layer %d: %v from HBM, %v from HBF; it needs at least %v and %v", spec.class, spec.layer, hbm, hbf, needHBM, needHBF)
	}
}
