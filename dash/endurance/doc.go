// Package endurance estimates how long HBF lasts under a KV-cache write
// load (the paper's §VI-H):
//
//	Lifetime = C_KV x E_SLC / (A_W x R_HBF x u)
//
// where
//
//   - C_KV is the HBF capacity the KV cache owns: the KV-owned superblocks
//     of the engine's flash model (every HBF stack's capacity less the
//     weight-owned superblocks). Wear levelling spreads writes over it.
//   - E_SLC is the program/erase cycles a block endures (SLC-mode NAND:
//     tens of thousands to 100K; [PECycles] sweeps 3K to 100K).
//   - A_W is the write amplification: pages the NAND programs per page the
//     host writes, 1 without garbage collection, above 1 when GC relocates
//     valid pages before erasing a block; measured by the engine's flash
//     management ([MeasuredWA]).
//   - R_HBF is the KV bytes written into HBF per second at full load: direct
//     prefill KV writes and HBM-to-HBF writebacks, measured by the engine
//     (per-route byte counters over the simulated time).
//   - u is the utilisation: the load's fraction of full-load throughput, so
//     that u x R_HBF is the average write rate.
//
// The inputs are a value ([Inputs]); [FromFixedBatch] takes R_HBF and C_KV from
// an engine run and A_W from whatever measured it, and records where each came
// from. Lifetime falls as A_W, R_HBF or u rise and grows with C_KV and
// E_SLC.
package endurance
