package sim

import (
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// Flash management of one HBF stack (§II-B, §V-A2, Fig. 5b).
//
// NAND programs pages and erases blocks, so data are written out of place
// and space comes back only by erasing whole blocks. A page wave programs
// one page in every die, plane and subarray at once, so the stack is
// managed in rows (one page wave) and superblocks (one erase block of every
// plane subarray, PagesPerBlock rows, erased together). Weights fill the
// first superblocks (weight-owned); the KV cache is appended, one program
// wave per row, into KV-owned superblocks, so that garbage collection never
// examines or moves a weight page. When a KV superblock's pages are all
// dead (their requests finished), it is erased directly; only when no free
// superblock is left does the collector relocate the live rows of the
// KV-owned superblock with the fewest, which is where write amplification
// comes from. Timing is the engine's: a program makes the whole array busy
// for t_PROG, so reads of any plane wait for it (program/read
// interference).

// flashBlock is one superblock.
type flashBlock struct {
	weight bool
	rows   []int32 // the owner tag of each written row (-1: dead)
	live   int
	erases int64
}

// flashFTL is the block map of one stack.
type flashFTL struct {
	rowsPerBlock int
	pagesPerRow  int
	blocks       []flashBlock
	free         []int // erased KV-capable superblocks
	open         int   // the KV superblock being filled (-1: none)
	// counters
	hostRows, relocatedRows, erases int64
	weightRelocations               int64 // never anything but 0
}

// newFlashFTL lays weightBytes of weights into the first superblocks of a
// stack of capacity bytes.
func newFlashFTL(capacity, weightBytes unit.Bytes, rowBytes unit.Bytes, rowsPerBlock, pagesPerRow int) *flashFTL {
	blockBytes := rowBytes * unit.Bytes(rowsPerBlock)
	n := int(capacity / blockBytes)
	f := &flashFTL{rowsPerBlock: rowsPerBlock, pagesPerRow: pagesPerRow, blocks: make([]flashBlock, n), open: -1}
	weightBlocks := int((weightBytes + blockBytes - 1) / blockBytes)
	for i := range f.blocks {
		if i < weightBlocks {
			f.blocks[i].weight = true
			continue
		}
		f.free = append(f.free, i)
	}
	return f
}

// writeKV programs one row of KV owned by tag (a request, a batch). It
// returns false when the stack has no room even after collection.
func (f *flashFTL) writeKV(tag int32) bool {
	if !f.place(tag) {
		return false
	}
	f.hostRows++
	return true
}

// place appends a row to the open KV superblock, opening (and if need be
// collecting) one when it is full.
func (f *flashFTL) place(tag int32) bool {
	if f.open < 0 || len(f.blocks[f.open].rows) == f.rowsPerBlock {
		f.open = -1
		if len(f.free) == 0 && !f.collect() {
			return false
		}
		if f.open < 0 {
			f.open, f.free = f.free[0], f.free[1:]
		}
	}
	b := &f.blocks[f.open]
	b.rows = append(b.rows, tag)
	b.live++
	return true
}

// trim marks every row owned by tag dead (its request finished) and
// erases the KV superblocks left without a live row.
func (f *flashFTL) trim(tag int32) {
	for i := range f.blocks {
		b := &f.blocks[i]
		if b.weight {
			continue
		}
		for r, t := range b.rows {
			if t == tag {
				b.rows[r] = -1
				b.live--
			}
		}
		if len(b.rows) > 0 && b.live == 0 {
			f.erase(i)
		}
	}
}

// erase erases a KV superblock and returns it to the free pool.
func (f *flashFTL) erase(i int) {
	b := &f.blocks[i]
	b.rows, b.live = b.rows[:0], 0
	b.erases++
	f.erases++
	if f.open == i {
		f.open = -1
	}
	f.free = append(f.free, i)
}

// collect frees a superblock when none is free: the full KV superblock
// with the fewest live rows (fewer than all) is the victim; it is erased
// and its live rows are programmed again at the start of the erased block,
// which becomes the open block. Weight-owned superblocks are never
// victims. It reports whether room was made.
func (f *flashFTL) collect() bool {
	victim, fewest := -1, f.rowsPerBlock
	for i := range f.blocks {
		b := &f.blocks[i]
		if b.weight || len(b.rows) < f.rowsPerBlock {
			continue
		}
		if b.live < fewest {
			victim, fewest = i, b.live
		}
	}
	if victim < 0 {
		return false // every KV superblock is full of live data
	}
	var live []int32
	for _, t := range f.blocks[victim].rows {
		if t >= 0 {
			live = append(live, t)
		}
	}
	f.erase(victim)
	if len(live) == 0 {
		return true
	}
	// Relocate into the freed block (the only free one), which stays open
	// for the rows that follow.
	f.open, f.free = f.free[len(f.free)-1], f.free[:len(f.free)-1]
	for _, t := range live {
		b := &f.blocks[f.open]
		b.rows = append(b.rows, t)
		b.live++
		f.relocatedRows++
	}
	return true
}

// FlashStats is the flash management of the HBF stacks over a run, for
// endurance and write-cost studies. Rows are page waves (one page in each
// die, plane and subarray); a superblock is one erase block of each.
type FlashStats struct {
	// PagesPerBlock is the erase block in pages; SuperblockBytes a
	// superblock's data (PagesPerBlock page waves).
	PagesPerBlock   int        `json:"pages_per_block"`
	SuperblockBytes unit.Bytes `json:"superblock_bytes"`
	// Superblocks and WeightSuperblocks count a stack's superblocks and the
	// weight-owned ones.
	Superblocks       int `json:"superblocks_per_stack"`
	WeightSuperblocks int `json:"weight_superblocks_per_stack"`
	// KVSuperblocksUsed is the most KV-owned superblocks any stack filled.
	KVSuperblocksUsed int `json:"kv_superblocks_used"`
	// HostPages is the KV pages the run programmed (all stacks);
	// RelocatedPages those garbage collection moved; WeightPagesRelocated
	// the weight pages moved (by construction 0).
	HostPages            int64 `json:"host_pages"`
	RelocatedPages       int64 `json:"relocated_pages"`
	WeightPagesRelocated int64 `json:"weight_pages_relocated"`
	// WriteAmplification is (host + relocated) / host pages (1 when
	// nothing was relocated; 0 when nothing was written).
	WriteAmplification float64 `json:"write_amplification"`
	// Erases counts superblock erases when the batch's KV is released at
	// the end of the run (every KV superblock then holds no live page and
	// is erased without relocation); ErasesPerBlock is the erases per
	// erase block (plane subarray) of the KV-owned superblocks used, and
	// MaxErasesPerBlock the most any block saw.
	Erases            int64   `json:"erases"`
	ErasesPerBlock    float64 `json:"erases_per_kv_block"`
	MaxErasesPerBlock int64   `json:"max_erases_per_block"`
	// ProgramBusy is the stacks' total time programming (t_PROG per wave).
	ProgramBusy unit.Duration `json:"program_busy_ns"`
}

// flashStats replays the run's KV programs (one row per program, in
// order) on each stack's block map, then releases the batch's KV.
func flashStats(exp dash.Experiment, programs []int64, progBusy unit.Duration) FlashStats {
	s, p := exp.System(), exp.Plan()
	h := s.HBF
	rows := h.BlockPages()
	fs := FlashStats{PagesPerBlock: rows, SuperblockBytes: unit.Bytes(rows) * h.PageWave(), ProgramBusy: progBusy}
	wavePages := h.Dies * h.PlanesPerDie * h.SubarraysPerPlane
	var used, kvBlocks int
	for _, n := range programs {
		f := newFlashFTL(h.Capacity, p.HBF.Weights, h.PageWave(), rows, wavePages)
		fs.Superblocks = len(f.blocks)
		fs.WeightSuperblocks = len(f.blocks) - len(f.free)
		for range n {
			if !f.writeKV(0) {
				break
			}
		}
		f.trim(0) // the batch is done: its KV is released
		fs.HostPages += f.hostRows * int64(wavePages)
		fs.RelocatedPages += f.relocatedRows * int64(wavePages)
		fs.WeightPagesRelocated += f.weightRelocations
		fs.Erases += f.erases
		n := 0
		for _, b := range f.blocks {
			if !b.weight && b.erases > 0 {
				n++
				fs.MaxErasesPerBlock = max(fs.MaxErasesPerBlock, b.erases)
			}
		}
		used = max(used, n)
		kvBlocks += n
	}
	fs.KVSuperblocksUsed = used
	if kvBlocks > 0 {
		fs.ErasesPerBlock = float64(fs.Erases) / float64(kvBlocks)
	}
	if fs.HostPages > 0 {
		fs.WriteAmplification = float64(fs.HostPages+fs.RelocatedPages) / float64(fs.HostPages)
	}
	return fs
}
