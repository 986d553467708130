// Package offload models the CPU-GPU offloading alternatives to DASH that
// the paper compares against in section VI-C (Fig. 10), for a model whose
// experts exceed the GPU's HBM:
//
//   - Weight streaming: the GPU runs every expert; the experts that are not
//     cached in HBM are copied host -> GPU over PCIe before use. The copy
//     time of one expert is the measured host-to-GPU copy time at that size
//     (pinned or pageable buffers, interpolated in log-log between the
//     measured sizes); the GPU's expert compute comes from the engine's GPU
//     timing model. Copies and compute overlap (favourable to the baseline):
//     the expert stage of a layer takes max(copies, compute).
//   - CPU compute: the experts stay in host memory and run on the host CPU;
//     the layer's activations cross PCIe to the host and back. The host time
//     is the measured latency of a whole expert layer at the batch size and
//     core count (see [HostProfile]).
//   - Hybrid oracle: of the layer's A active experts, j run on the GPU
//     (those cached in HBM first, then streamed ones) and A - j on the CPU,
//     concurrently; the stage takes the longer of the two sides. Every split
//     j = 0..A is evaluated (j = 0 is CPU compute, j = A weight streaming)
//     and the one with the smallest TPOT is reported, so the oracle is never
//     worse than its better single path.
//
// All three share the non-expert GPU time per token, which the caller takes
// from the engine's own DASH run (the same non-expert GPU time across all
// schemes, as in the paper), and are normalised to the engine's DASH TPOT.
//
// # Host data and the core-scaling model
//
// The host measurements ([LoadHostProfile]) are a Qwen3-235B-A22B-shaped
// expert layer (hidden 4096, expert width 1536, 128 experts, top-8, BF16)
// timed on a 16-core host at 1 to 16 threads and batches 1 to 64, and PCIe
// copy times. Core counts that were measured are used as measured. Others
// (the paper's 32-core cap in particular) come from a per-batch Amdahl fit,
// T(c) = serial + parallel / c, by least squares over the measured thread
// counts; such values are marked Modelled. Malformed data is refused with a
// [DataError] naming the file, line and column.
//
// Expert counts: with uniform routing, B tokens each selecting k of E
// experts touch E (1 - (1 - k/E)^B) distinct experts on average, the count
// the host measurement also saw (8, 29, 84, 124 for B = 1, 4, 16, 64);
// [ActiveExperts] rounds it. A subset of the layer's experts on the CPU
// takes the measured layer time scaled by its share of the active experts
// (the layer is bound by reading expert weights).
package offload
