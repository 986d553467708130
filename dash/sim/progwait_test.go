package sim

import (
	"testing"

	"github.com/dashlab/dashlab/dash/unit"
)

// TestProgramWaitShiftsReplicatedWeightsToHBM checks that the split of
// replicated weights counts the programs committed ahead of the HBF reads
// (weightPart, programWait): with no wait it is the rates' split; the HBF
// share shrinks as the wait grows, is gone once HBM alone finishes within
// the wait, and every byte is read either way. Then that programWait counts
// the program running, the waves pending and the waves an in-flight write
// will fill, past the operator's earliest start.
func TestProgramWaitShiftsReplicatedWeightsToHBM(t *testing.T) {
	exp := build(t, "qwen3-235b-a22b", "dash", 1, 64, 2)
	cfg, err := newConfig(exp)
	if err != nil {
		t.Fatal(err)
	}
	e := newEngine(cfg)
	rt := &e.cfg.rt
	w := 64 * unit.MiB
	spec := opSpec{class: ClassAttnProj, weights: w, replicated: true}
	hbfShare := func(wait Time) unit.Bytes {
		parts := e.readParts(&spec, false, wait)
		var all, hbf unit.Bytes
		for r, b := range parts {
			all += b
			if rt.routes[r].sense >= 0 {
				hbf += b
			}
		}
		if all != w {
			t.Fatalf("wait %v: %v read of %v", wait, all, w)
		}
		return hbf
	}
	prev := hbfShare(0)
	if prev == 0 {
		t.Fatal("no HBF share without a wait: the case tests nothing")
	}
	for _, wait := range []Time{1_000, 3_000, 10_000, 20_000} {
		got := hbfShare(wait)
		if got > prev {
			t.Errorf("wait %v: HBF share %v, more than %v at a shorter wait", wait, got, prev)
		}
		prev = got
	}
	// A wait twice as long as HBM alone takes to read a pair's part leaves
	// HBF nothing.
	alone := float64(perStack(w, rt.pairs, 0)) / e.routeRate(rt.hbmRead[rt.cellHBM[0][0]])
	if wait := Time(2 * alone * 1e9); hbfShare(wait) != 0 {
		t.Errorf("wait %v (HBM alone %.3g s): HBF share %v, want none", wait, alone, hbfShare(wait))
	}

	s := &e.hbf[0]
	s.programActive, s.progPages, s.progUntil = true, e.cfg.wavePages, e.now+40_000
	s.progPending = append(s.progPending, progWave{bytes: 1, slots: 1}, progWave{bytes: 1, slots: 1})
	want := 40_000 + 2*e.cfg.tProg
	if got := e.programWait(e.pc); got != want {
		t.Errorf("programWait: %v, want %v (40 us left of the running program and two waves pending)", got, want)
	}
	e.cfg.suspend = true
	if got := e.programWait(e.pc); got != 0 {
		t.Errorf("programWait with program suspend: %v, want 0", got)
	}
}
