package sim

import (
	"encoding/binary"
	"math"
	"slices"
)

// Sampled decode: the option for million-token decodes.
//
// Every decode pass starts with the memory system idle, so a step's
// duration and the increments of every statistic (its record) depend on
// its program only. The exact loop simulates each distinct program once
// and replays it for identical steps; but with paged KV every block of
// context is a new program, and a 1M-token decode has 62,500 of them.
// With Options.DecodeSample = S, the step that starts every S-th block is
// simulated and the steps between two such samples take the records
// interpolated linearly in their block count (the attended KV, which is
// what changes, grows linearly with it). A step that writes KV back adds
// the writeback's own cost: the difference between that step with and
// without its writeback, measured exactly on every S-th writeback of the
// same layers and reused for the writebacks in between. Samples run on a
// separate engine (a recorder) from idle, as every pass does; the run's
// engine only replays records, so times and statistics add up exactly as
// in the exact loop. The test compares both on a decode that spills.

// record is one decode step's duration and statistics increments.
type record struct {
	d     Time
	delta []int64
}

// plus returns r + sign x o.
func (r record) plus(o record, sign int64) record {
	out := record{d: r.d + Time(sign)*o.d, delta: make([]int64, len(r.delta))}
	for i := range r.delta {
		out.delta[i] = r.delta[i] + sign*o.delta[i]
	}
	return out
}

// plusInto is r.plus(o, sign) in dst's storage (grown as needed).
func (r record) plusInto(dst []int64, o record, sign int64) record {
	out := record{d: r.d + Time(sign)*o.d, delta: slices.Grow(dst[:0], len(r.delta))[:len(r.delta)]}
	for i := range r.delta {
		out.delta[i] = r.delta[i] + sign*o.delta[i]
	}
	return out
}

// lerpInto interpolates between a (at x = 0) and b (at x = den) at x = num,
// in dst's storage (grown as needed).
func lerpInto(dst []int64, a, b record, num, den int64) record {
	f := float64(num) / float64(den)
	out := record{d: a.d + Time(math.Round(f*float64(b.d-a.d))), delta: slices.Grow(dst[:0], len(a.delta))[:len(a.delta)]}
	for i, x := range a.delta {
		if d := b.delta[i] - x; d != 0 { // most counters do not move between samples
			x += int64(math.Round(f * float64(d)))
		}
		out.delta[i] = x
	}
	return out
}

// recorder measures decode programs on an engine of its own.
type recorder struct {
	e             *engine
	pb            *programBuilder
	tmpl          *pass
	before, after []int64
	passes        int
}

// measure simulates the current step's program (the ledger's state) for a
// context of ctx tokens; withWB false drops the step's writebacks.
func (r *recorder) measure(ctx, step int, withWB bool) (record, error) {
	if !withWB {
		defer r.dropWritebacks()()
	}
	r.build(ctx, step)
	t0 := r.e.now
	r.before = r.e.globalCounters(r.before[:0])
	p := *r.tmpl
	if err := r.e.runPass(&p); err != nil {
		return record{}, err
	}
	r.after = r.e.globalCounters(r.after[:0])
	rec := record{d: r.e.now - t0, delta: make([]int64, len(r.after))}
	for i := range r.after {
		rec.delta[i] = r.after[i] - r.before[i]
	}
	r.passes++
	return rec, nil
}

// dropWritebacks clears the step's writebacks from the ledger and returns
// the function that puts them back.
func (r *recorder) dropWritebacks() (restore func()) {
	if r.pb.kv == nil {
		return func() {}
	}
	return r.pb.kv.dropWritebacks()
}

// build makes the step's program for a context of ctx tokens (r.tmpl).
func (r *recorder) build(ctx, step int) {
	if r.tmpl == nil {
		p := r.pb.build(true, ctx, step)
		r.tmpl = &p
	} else {
		r.pb.setContext(r.tmpl, ctx, step)
	}
}

// sampledDecode runs decode steps 1..L_out-1 sampling every S-th block,
// taking base steps from shared when another run measured them (nil: none).
func (e *engine) sampledDecode(shared *DecodeSamples, pb *programBuilder, prompt, output, S int, firstWB *int) error {
	rec := &recorder{e: newEngine(e.cfg), pb: pb}
	rec.e.replaySegments()
	rec.e.budget = e.budget
	blk := pb.block
	type pend struct {
		round    int
		hasExtra bool
		extra    record  // the writeback's cost, added to the interpolated base
		exact    *record // a step measured exactly
	}
	plain := func(p pend, round int) bool { return p.round == round && !p.hasExtra && p.exact == nil }
	var pending []pend
	var last record
	lastRound := -1
	// Each writeback's layers (the ledger's waves, as a key) with its
	// measured cost and how often it came.
	type writeback struct {
		delta record
		seen  int
	}
	wbs := map[string]*writeback{}
	var wbKey []byte
	var mixed, withExtra []int64 // scratch for the records flush applies
	// The run's engine queues the records (replays.go): m x a record for a
	// run of m steps of one block, applied in bulk at the end.
	apply := func(r record, m int) error {
		e.queueReplay(r.d, r.delta, m)
		if e.err == nil {
			e.err = e.checkBudget()
		}
		return e.err
	}
	flush := func(next record, nextRound int) error {
		for k := 0; k < len(pending); {
			p := pending[k]
			var r record
			switch {
			case p.exact != nil:
				r = *p.exact
			case p.round == lastRound || nextRound == lastRound:
				r = last
			default:
				r = lerpInto(mixed, last, next, int64(p.round-lastRound), int64(nextRound-lastRound))
				mixed = r.delta
			}
			m := 1
			if p.hasExtra {
				r = r.plusInto(withExtra, p.extra, 1)
				withExtra = r.delta
			} else if p.exact == nil { // the steps of the block that follow take the same record
				for k+m < len(pending) && plain(pending[k+m], p.round) {
					m++
				}
			}
			if err := apply(r, m); err != nil {
				return err
			}
			k += m
		}
		pending = pending[:0]
		return nil
	}
	prevRound := -1
	for s := 1; s < output; s++ {
		ctx := prompt + s
		var wb *writeback // the step's writeback, if it writes one
		if pb.kv != nil {
			pb.kv.advance()
			if *firstWB == 0 && pb.kv.total > 0 {
				*firstWB = s
			}
			if pb.kv.writingBack() {
				wbKey = wbKey[:0]
				for _, n := range pb.kv.waves {
					wbKey = binary.AppendUvarint(wbKey, uint64(n))
				}
				if wb = wbs[string(wbKey)]; wb == nil {
					wb = &writeback{}
					wbs[string(wbKey)] = wb
				}
			}
		}
		round := roundUp(ctx, blk)
		sample := s == 1 || s == output-1 || (round != prevRound && (round/blk)%S == 0)
		prevRound = round
		if sample {
			base, err := shared.base(rec, ctx, s)
			if err != nil {
				return err
			}
			own := base
			if wb != nil {
				if own, err = rec.measure(ctx, s, true); err != nil {
					return err
				}
				wb.delta = own.plus(base, -1)
				wb.seen++
			}
			if lastRound < 0 {
				last, lastRound = base, round
			}
			if err := flush(base, round); err != nil {
				return err
			}
			if err := apply(own, 1); err != nil {
				return err
			}
			last, lastRound = base, round
			continue
		}
		p := pend{round: round}
		if wb != nil {
			if wb.seen%S == 0 { // measure this writeback exactly
				base, err := shared.base(rec, ctx, s)
				if err != nil {
					return err
				}
				own, err := rec.measure(ctx, s, true)
				if err != nil {
					return err
				}
				wb.delta = own.plus(base, -1)
			}
			wb.seen++
			p.hasExtra, p.extra = true, wb.delta
		}
		pending = append(pending, p)
	}
	e.sampled = rec.passes
	e.recorded = rec.e.cut
	e.processed += rec.e.processed
	if err := flush(last, lastRound); err != nil {
		return err
	}
	e.flushReplays()
	return e.err
}
