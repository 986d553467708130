// Package energy estimates the memory system's energy per generated token
// from what one simulation moved (beyond the paper, which reports link power
// only, §IV-A).
//
// Four terms, each priced by a parameter of [Params]:
//
//   - Links: every byte of every route, times the link crossings of that
//     route (Direct, HBM, the write routes and writeback cross one link;
//     Relay and relay writes cross two: HBF -> HBM base die -> GPU), at
//     the UCIe energy per bit. Relay data pass the HBM base die's router
//     without touching the DRAM array.
//   - HBF reads: every page wave the NAND arrays sensed, whole (a wave is
//     sensed whole even when a transfer uses part of it).
//   - HBF programs: every page wave programmed.
//   - HBM: bytes read from or written to the DRAM array (the HBM route,
//     HBM writes, and the HBM side of KV writeback).
//
// GPU compute, SRAM buffers and the base dies' logic are not counted. The
// defaults are cited in [DefaultParams]; HBF vendors publish no energy
// figures, so the NAND defaults are derived from a conventional NAND
// datasheet current and the HBF spec's own t_R and t_PROG (see
// [NANDEnergy]) and are meant to be changed.
package energy
