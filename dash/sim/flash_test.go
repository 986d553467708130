package sim

import (
	"testing"

	"github.com/dashlab/dashlab/dash/unit"
)

// Garbage collection erases KV superblocks without live pages directly,
// relocates the live rows of a victim only when nothing is free, and never
// touches a weight-owned superblock.
func TestFlashGCNeverMovesWeights(t *testing.T) {
	const row = unit.MiB
	// 10 superblocks of 4 rows; weights fill 2.5 superblocks -> 3 weight-owned.
	f := newFlashFTL(40*row, 10*row, row, 4, 8)
	if got := len(f.free); got != 7 {
		t.Fatalf("%d free superblocks, want 7", got)
	}
	weights := func() {
		t.Helper()
		for i, b := range f.blocks {
			if b.weight && (b.erases != 0 || len(b.rows) != 0) {
				t.Fatalf("weight superblock %d touched: %+v", i, b)
			}
		}
	}
	// Requests 1..7 each fill one superblock.
	for tag := int32(1); tag <= 7; tag++ {
		for range 4 {
			if !f.writeKV(tag) {
				t.Fatalf("write %d failed", tag)
			}
		}
	}
	if f.writeKV(8) {
		t.Fatal("a full stack of live KV accepted another row")
	}
	weights()
	// Request 3 finishes: its superblock is erased directly, no relocation.
	f.trim(3)
	if f.erases != 1 || f.relocatedRows != 0 || len(f.free) != 1 {
		t.Fatalf("after trim: %d erases, %d relocated, %d free", f.erases, f.relocatedRows, len(f.free))
	}
	for range 4 {
		f.writeKV(8)
	}
	// Kill half of two requests' rows by interleaving: request 9 and 10
	// share superblocks with dead rows -> GC must relocate live rows.
	f.trim(8)
	for range 2 {
		f.writeKV(9)
		f.writeKV(10)
	}
	f.trim(10) // superblock now holds 2 live (9) + 2 dead (10)
	for range 2 {
		if !f.writeKV(11) {
			t.Fatal("GC could not make room")
		}
	}
	if f.relocatedRows == 0 {
		t.Fatal("expected relocation of live rows when nothing was free")
	}
	weights()
	if wa := float64(f.hostRows+f.relocatedRows) / float64(f.hostRows); wa <= 1 {
		t.Fatalf("write amplification %v", wa)
	}
}

// A run's flash statistics: every KV program is one row, all erased when
// the batch's KV is released, write amplification 1, no weight page moved.
func TestFlashStatsOfARun(t *testing.T) {
	exp := spillExp(t, 4096)
	r := run(t, exp, Options{})
	fs := r.Flash
	var programs int64
	for _, h := range r.HBF {
		programs += h.Programs
	}
	wave := int64(exp.System().HBF.Dies * exp.System().HBF.PlanesPerDie * exp.System().HBF.SubarraysPerPlane)
	if fs.HostPages != programs*wave || fs.RelocatedPages != 0 || fs.WeightPagesRelocated != 0 || fs.WriteAmplification != 1 {
		t.Fatalf("flash %+v, %d programs", fs, programs)
	}
	if fs.Erases == 0 || fs.ErasesPerBlock != 1 || fs.WeightSuperblocks == 0 || fs.KVSuperblocksUsed == 0 {
		t.Fatalf("flash %+v", fs)
	}
	if fs.ProgramBusy != unit.Duration(programs)*exp.System().HBF.TProg {
		t.Fatalf("program busy %v for %d programs", fs.ProgramBusy, programs)
	}
}
