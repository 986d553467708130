package sim

import (
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// transferChunk is the size of the chunks HBF data move in: the largest
// whole fraction of the page wave, at most half of it, that fits in one
// relay SRAM region. With the paper's parts (an 8 MiB wave, 4 MiB regions)
// it is the region itself, half a wave.
//
// Why a fraction of the wave, not simply the region. The array senses a
// wave at a time and a chunk is sensed whole, within one wave. A chunk that
// does not divide the wave leaves pages of every wave unsensed: with 5 MiB
// regions (1280 of the 2048 pages of a wave) only one chunk fits a wave and
// 37.5% of the array's rate is lost, so a 5 MiB relay region would run
// slower than a 4 MiB one, an artifact of the chunking, not of the buffer. A real base die fills a region from
// whatever waves hold its data. Chunking at a fraction of the wave keeps
// every wave full; the rest of a larger region holds further chunks (more
// credits), so a larger region is never slower.
//
// Why at most half a wave. The HBF SRAM's two wave-sized transfer regions
// then always hold at least four chunks, the double buffering of §IV-B. A
// chunk of a whole wave (an 8 MiB region) would leave two, serialising the
// TSV, the SRAM and the links behind each other.
//
// Below half a wave the chunk shrinks with the region (3 MiB regions move
// 2 MiB chunks). A smaller chunk pipelines the hops (TSV, HBM-HBF link,
// relay SRAM, GPU-HBM link) more finely, which can make a smaller region a
// little faster (about 1% for 2 MiB against 4 MiB regions): store-and-
// forward latency falls with the chunk. That is physical and the
// monotonicity tests allow it.
func transferChunk(wavePages int, page, region unit.Bytes) unit.Bytes {
	best := 1 // pages per chunk: 1 divides every wave and fits every region
	fits := func(q int) bool { return q <= wavePages/2 && unit.Bytes(q)*page <= region }
	for i := 1; i*i <= wavePages; i++ { // the divisors come in pairs i, wavePages/i
		if wavePages%i != 0 {
			continue
		}
		for _, q := range []int{i, wavePages / i} {
			if q > best && fits(q) {
				best = q
			}
		}
	}
	return unit.Bytes(best) * page
}

// TransferChunk is the size of the chunks a system's HBF data move in (see
// transferChunk): what the serial reading pays t_R before
// (dash.HBFSpec.ChunkReadRate).
func TransferChunk(s dash.SystemSpec) unit.Bytes {
	h := s.HBF
	return transferChunk(h.Dies*h.PlanesPerDie*h.SubarraysPerPlane, h.PageSize, s.HBM.RelaySRAM.RegionSize)
}
