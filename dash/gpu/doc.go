// Package gpu is dashlab's GPU timing model: how long one operator of an MoE
// model takes on a GPU, from operator latencies measured on a real GPU
// (reference/profiles/h200-sxm, measured with reference/profiling), in the
// spirit of the paper's shape-aware profiling (§VI-A: measured latencies
// used directly, interpolated elsewhere).
//
// # Data
//
// A [Profile] holds four CSV files and env.json. gemm.csv times X[M,K] @
// W[K,N] for every projection of six MoE models over a sweep of token counts
// M; grouped.csv a whole SwiGLU expert block for E experts of r rows;
// attn.csv FlashAttention prefill and decode for three GQA shapes and
// DeepSeek MLA decode in the absorbed form; misc.csv RMSNorm and
// softmax+top-k routing. Each latency is the per-call median over CUDA-graph
// replays of 16 back-to-back calls on rotating inputs larger than L2, so
// weights stream from HBM and host launch cost is excluded.
//
// # Interpolation
//
// Measurements are grouped into families: the shape fields that are not
// swept (GEMM (K, N); expert block (hidden, inter); attention (heads, KV
// heads, head dim); RMSNorm width; routing (experts, top-k)). Within a
// family, latency is interpolated along the inner sweep coordinate (M, rows
// per expert, KV length) against the kind's fitted roofline g (below) at the
// family's shape. For GEMM, expert blocks and attention the residual
// log(latency / g) is interpolated linearly in log x between the two
// neighbouring measurements, and the result held between their latencies:
// the roofline supplies the shape between measured sizes (flat while the
// weights stream, linear once compute-bound, the bend at the ridge), the
// measurements only the efficiency, which drifts slowly. For RMSNorm and
// routing, whose kernels the roofline describes poorly, log latency is
// interpolated with gonum's monotone Fritsch-Butland cubic over the
// roofline coordinate u = log g(x) + 0.05 log x. Either way the interpolant
// passes exactly through every measurement and is monotone wherever the
// measurements are. Expert blocks (over the number of experts) and decode
// attention (over the batch) are two-dimensional: rows of the outer
// coordinate are interpolated linearly, since latency is affine in experts
// or requests once the fixed cost is paid.
//
// Between measured sizes GEMM latency is not stepped by tile and wave quantisation over
// the SMs: cuBLAS on Hopper schedules tiles persistently, so the measured rate does not
// follow the wave utilisation of any fixed tile shape, and the model has none. It does
// model the switch from the memory-bound kernels to the tensor-core ones near the ridge,
// where neither the stream nor the arithmetic runs at its full rate: the GEMM,
// expert-block and attention rooflines take a smooth maximum there, (c^n + m^n)^(1/n)
// for compute time c and memory time m, with n fitted to the measurements and kept only
// where it fits better than the hard maximum.
//
// A position a family lacks but its nearest families measured (one model's
// sweep skipping a token count) takes the geometric mean of the family's
// interpolation and the neighbours' measured efficiency there: kernel
// selection in cuBLAS and FlashAttention changes at the same sizes across
// similar shapes. (At such a size the prediction need not lie between the
// family's own neighbouring measurements; the shipped families share their
// sweeps, so none has such a gap inside its range.)
//
// # Extrapolation
//
// Each kind has a fitted roofline, latency = o + max(F/P, B/W) with F its
// FLOPs and B the bytes it moves (weights, activations read and written, KV
// cache read): overhead o, bandwidth W and tensor rate P fitted by least
// squares on relative error with gonum's Nelder-Mead (and, where smooth, the
// exponent n by a golden-section search). Beyond a family's
// measured range the edge measurement is carried along the roofline,
// t(x) = t(edge) g(x)/g(edge), times the change of efficiency (measured over
// roofline) that the nearest families measured there show between the edge
// and x: an LM head measured up to 1,024 tokens is extended to 16,384 by the
// projections measured that far. Past the outer rows of a two-dimensional
// family (more experts or requests than measured) the roofline alone carries
// the nearest row. A shape of an unmeasured family (another
// model's K and N, another head count) is synthesised from the four nearest
// measured families (distance between the logarithms of the key sizes,
// inverse-square weights): at each of their measured positions the roofline
// times their mean log residual, measured over roofline, which is the
// empirical efficiency curve of similar shapes. Such predictions, and
// anything outside a family's measured range, set Prediction.Extrapolated.
//
// Prefill attention of another batch, query or KV length maps to the full
// causal prefill of equal total work (L(L+1)/2 = batch x query-key pairs).
// Decode with several query tokens per request scales the one-token time by
// the roofline. MLA decode with another head count or latent width and
// routing over another number of experts are synthesised from the single
// measured family of each.
//
// # Start-up
//
// Fitting the seven rooflines is most of what making a model costs. The fits of the shipped profile are stored in
// fitted_roofs.go, keyed by a digest of the samples and the prior, and used
// when both match; `go generate ./dash/gpu` rewrites the file and
// TestFittedRoofs fails when it differs from a fresh fit. Any other profile,
// and every refit of the error studies, is fitted as before. Likewise the
// shipped profile's CSV files and env.json are stored parsed in
// stored_profile.go, keyed by their SHA-256 (TestStoredProfile compares it
// with a fresh parse): a file with those exact bytes is copied from there,
// any other is parsed. A kind's families are built on its first Predict, so
// a process pays only for the kinds it uses.
//
// # Compute and Overhead
//
// The engine runs an operator in the simulated DASH system in Overhead +
// max(Compute, Delivery), where Delivery is the time the memory system takes
// to stream the op's WeightBytes + ActivationBytes + KVBytes. On the
// profile's own GPU, with Delivery = bytes / [Model.MemBandwidth], that
// formula returns Latency (to rounding), because the prediction is split as
// follows. Let L be the latency (interpolated or extrapolated), f the launch
// floor (env.json tiny_kernel_us: one tiny kernel inside a CUDA graph), m =
// bytes / W_eff the memory floor and c = F / P the kind's fitted compute
// time. W_eff is the highest bandwidth any measurement reaches once f is
// removed (or a memory-bound kind's fitted W, if higher; somewhat below the
// datasheet figure), so every measurement satisfies L >= f + m, and every
// prediction is held to it.
//
//   - Memory-bound (c <= m): Compute = c and Overhead = L - m. The stream is
//     the floor; everything else in the measured latency (kernel start,
//     pipeline fill, split-K reduction, tail) does not overlap it and stays
//     when the stream is slower, as from HBF.
//   - Compute-bound (c > m): Compute = L - f and Overhead = f, the measured
//     time less the kernel start; near the ridge (m < c < 2m) the part of L
//     beyond f + c moves from Overhead to Compute linearly in c/m, so the
//     split is continuous. Should c exceed L - f (the fit is slower than the
//     measurement), Compute = L - f.
//
// The split is what makes the model useful for DASH: a memory-bound expert
// GEMV whose weights come from HBF keeps its measured fixed cost and streams
// at HBF speed; a compute-bound prefill GEMM is unaffected by where its
// weights live unless delivery is slower than its compute.
//
// # Other GPUs
//
// A model for a GPU other than the profile's is derived, not measured
// ([Model.Derived], Spec.Notes): Compute is multiplied by the ratio of SM
// count x boost clock, s (from the H200 SXM to the H100 PCIe: 132 x 1980 MHz
// over 114 x 1755 MHz), the memory floor by the ratio of HBM bandwidths, b,
// and Overhead is kept: Latency' = Overhead + max(Compute x s, m x b). The
// H100 PCIe is the GPU the paper profiled.
//
// # Stored weight types
//
// FP8 and INT8 weights move their stored bytes: WeightBytes is half the BF16
// figure (FP8 block scales, a small fraction of it, are not counted), so the memory floor
// shrinks accordingly. Compute comes from the BF16 measurements:
//
//   - INT8 (weight-only, Grok-1): weights are dequantised to BF16 on chip and
//     multiplied at the BF16 tensor rate, so Compute is the BF16 Compute.
//   - FP8 with 128x128 block scales (DeepSeek-V3): multiplied on FP8 tensor
//     cores, PeakFP8/PeakBF16 = 2x the BF16 rate on Hopper, times
//     [FP8BlockScaleEfficiency] = 0.8 for the FP32 promotion of partial sums
//     on CUDA cores every 128 K-elements, so Compute is the BF16 Compute /
//     1.6. A GPU without FP8 tensor cores computes FP8 weights at the BF16
//     rate. This factor is an assumption; the profile measures BF16 only.
//
// Latency for a stored type is Overhead + max(Compute', bytes'/W_eff).
//
// # Accuracy
//
// [Profile.LeaveOneOut] predicts each measurement from the others;
// [Profile.HeldOut] and [Profile.HeldOutByModel] hold out whole families or
// whole models; [Profile.HeldOutSweep] holds out whole sizes (every GEMM of
// one M, every expert block of one row count, every attention of one KV
// length) and predicts those between remaining measurements. Each reports
// the median and 90th percentile of |predicted - measured| / measured.
// `dashlab gpu validate` prints them all, and the reproduction's report and
// notebook 03 draw them; the package tests hold them to: GEMM leave-one-out
// median below 2% and 90th percentile below 8%; held-out GEMM, expert-block
// and attention families median below 5% and 90th percentile below 15%;
// held-out GEMM sizes median below 2.5% and 90th percentile below 9%,
// expert-block and attention sizes below 3.5% and 13%. Leave-one-out
// benefits from the other families' measurements at the same sizes (see
// Interpolation); a size no family measured is interpolated within its
// family alone.
//
// What the profile itself allows is measured beside it, and bounds the
// held-out errors from below. [Profile.Repeats]: the GEMM shapes two models
// share were measured twice, and the two measurements differ. [Profile.SweepJitter]:
// along every sweep, how far each size's efficiency (log latency over
// roofline) departs from the straight line through its two neighbours, which
// is exactly what held-out-size interpolation misses, and how those
// departures correlate from one size to the next (independent jitter gives
// -2/3, a smooth curve the roofline misses near +1). On the shipped profile
// the departures are independent from size to size and from family to
// family, so no interpolant can know them: they belong to each exact shape
// (most likely the library's choice of kernel for it) more than to run-to-run
// noise, and measuring again would not remove them.
// reference/profiling/heldout_sizes.py reproduces the held-out-size study
// and compares other interpolants with the package's.
package gpu
