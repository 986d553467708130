// Package sim is the event-driven simulator of DASH MoE inference: a GPU
// running one operator at a time, fed by HBM and HBF stacks over UCIe links.
//
// # Where it sits
//
// In the flow spec -> Build -> engine -> harness summary -> charts, this package is the
// engine: Run and RunWith take a built dash.Experiment and return a [Result] (typed,
// JSON with snake_case keys and units in names). It never reads the paper's numbers;
// reference/reproduce runs it and summarises, package charts draws.
//
// # The memory system
//
// The memory system is its route table (dash.RouteTable, compiled at
// Build): every resource with its own rate, and every route from a memory
// to the GPU, from the GPU to a memory and from HBM to HBF as a list of
// hops, each a transfer on one resource with the SRAM region pools it takes
// before and frees after (routes.go). The engine moves a chunk to its
// route's next hop and never asks what kind of route it is on. Every
// resource has its own timeline: each direction of each link (GPU-HBM,
// GPU-HBF and HBM-HBF, each at its own usable rate), the DRAM array of each
// HBM stack, the NAND array of each HBF stack, its shared TSV bus and its
// base-die SRAM, and the relay SRAM of each HBM base die. Data move in
// chunks of one relay region (4 MiB, half a page wave). An HBF read senses a
// page wave (every die, plane and subarray: 8 MiB) in t_R; with NAND cache
// read the next wave is sensed while the previous one crosses the TSV into
// the SRAM, one chunk per free slot (two 8 MiB transfer regions hold four
// chunks); from there a chunk drains over the GPU-HBF link (Direct) or over
// the HBM-HBF link into the HBM base die's relay SRAM (two 4 MiB regions,
// credits withheld when both are full) and on over the GPU-HBM link (Relay),
// which it shares with HBM reads; relay traffic never touches the DRAM
// array. A chunk holds its SRAM slot until it has left, so a slow drain
// backs the TSV and the array up (backpressure) instead of dropping data.
// The array interleaves the routes of an operator's reads chunk by chunk,
// each route in proportion to its rate (alike routes alternate), weighed
// anew when one of them has drained. A program
// that waits for the array while written KV fills the whole transfer SRAM
// and sensed data wait for a region drops those sensed data, to be sensed
// again after it (engine.resense): otherwise the two would wait for each
// other forever.
// Writes run the other way: prefill KV crosses the GPU-HBF link into SRAM
// and is programmed a wave at a time (t_PROG, the array busy); in RelayOnly
// it goes through the HBM base die, and a chunk leaves the GPU only once it
// holds an HBF SRAM slot, then a relay slot (relay reads take the two in
// the same order, so the SRAMs never fill with data each waiting for the
// other); decode KV is appended in HBM. When the
// decode KV reaches the plan's package-wide HBM budget, the oldest page
// wave of one layer's decode KV (each HBM stack's part of it) is written
// back HBM -> HBF after that layer's QKV projection, its program
// overlapping the attention; layers take turns, and attention then reads
// each layer's KV from HBF (the prompt and the written-back waves) and HBM
// (the rest) at once (kvspill.go; Result.KV is the final split). Links,
// TSVs and arrays are FIFO servers that hold each chunk for bytes/rate, so
// no resource ever runs faster than its rate; concurrent transfers share
// them chunk by chunk in arrival order.
//
// # Execution
//
// A pass (the prefill of B x L_in tokens, or one decode step of B tokens)
// is a program of GPU operators per layer: RMSNorm, the QKV or MLA
// projections, the attention kernel over the KV cache, the output
// projection, the router and top-k, then the MoE block (shared and selected
// experts) or the dense FFN; then the final norm and the LM head. An
// operator takes Overhead + max(Compute, delivery + the compute of its last
// chunk), with Compute and Overhead from the GPU timing model and delivery
// from the memory system: the GPU holds no operand ahead of the operator
// that consumes it, so data flow to the GPU only while that operator runs.
// HBF reads whose addresses are known (replicated weights, HBF-resident KV,
// shared experts) are sensed ahead, behind the current operator's, and wait
// in SRAM (the double buffering of the HBF base die); HBM reads start with
// their operator. The paper's execution modes follow from one split rule
// (split.go): the bytes an operator reads of an item are divided over the
// routes that can carry them so that its reads finish first, the minimum
// makespan over the route table's resources with the operator's other reads
// already on them (water-filling, exact for the table's structure and
// checked against an LP solver): replicated weights over HBM, Direct and
// Relay (parallel HBM/HBF read, 1.2 : 1.6 : 0.4 TB/s for DASH; the
// programs committed ahead of the HBF reads, past the operator's earliest
// start, count as work on the stack's TSV, so that a long prefill KV write
// moves the output projection's share to HBM, §V-B), the
// HBF-resident KV over both routes beside the decode KV read from HBM (the
// two GPU-facing links finish together); the selected experts, known when
// routing completes, are assigned whole to a route set (one route of every
// HBF stack) so that the last set to finish finishes first (dual-path HBF
// read); prefill KV is written to HBF over the fastest write route while
// attention runs. A single-path topology simply lacks one route.
//
// Expert selection follows the paper's analytical routing with balanced
// per-expert rows (min(E, B x k) distinct experts), or seeded uniform or
// Zipf-skewed draws.
//
// # Heterogeneous passes
//
// A Passer runs passes over arbitrary batches, one after another on one
// memory system, for continuous-batching serving (package serve): decode
// rows with their own KV lengths beside prefill chunks that attend over the
// request's earlier chunks (read from HBF) and write their KV to HBF. The
// GEMMs and the MoE block see the pass's total tokens; the decode rows run
// as one ragged attention kernel timed as a batch of equal work, each
// distinct chunk shape as its own kernel. A batch of identical rows is
// exactly the fixed-batch runner's pass. Identical programs replay.
//
// # Exact shortcuts
//
// Five shortcuts make long runs fast without changing any result (the tests
// compare every field with Options.NoJump):
//
//   - Periodic jumps: while nothing structural happens, the state relative
//     to the present repeats once a pipeline has filled; whole periods are
//     then advanced at once (see jump.go).
//   - Layer jumps: at a layer boundary, a state equal to an earlier layer's,
//     with the layers ahead repeating the layers since then, lets whole
//     periods of layers be advanced at once.
//   - Replayed passes: every pass starts with the memory system idle, so a
//     decode step whose program ran before (same KV blocks) replays its
//     duration and statistics. The KV cache is paged (16-token blocks by
//     default), so steps within one block run the same program.
//   - Replayed segments: decode steps differ only in their attention
//     kernels, so a decode pass is cut at its attention kernels into
//     segments, and a segment that starts from a state seen before and runs
//     the same operators replays its duration, statistics and end state
//     (segment.go); only the attention kernels are simulated step by step.
//     A segment whose start state is new replays its rest from the first
//     operator boundary within it whose state was seen before.
//     The heterogeneous passes of serving cut every pass so, and keep
//     their segments from pass to pass.
//   - Forked kernels: from one context block to the next, an attention
//     kernel differs only in the decode KV it reads from HBM, and two
//     kernels that differ so run the same events until the smaller one
//     issues its last HBM chunk. A kernel's state shortly before that point
//     is kept as a checkpoint, and the next, larger kernel starting from
//     the same state starts there, with its streams' sizes corrected
//     (fork.go): only each kernel's end is simulated.
//
// The engine only reports the moments at which a shortcut may be taken
// (the shortcuts interface: a structural change, a chunk delivered, an
// operator started, a pass ended); the shortcuts see its state through one
// walk per state struct (walk.go), which visits every field with its kind
// (a plain value, an absolute time, a stream or operator id, a progress
// counter, a statistic). Keys, counters, time shifts, layer moves and
// replays are visitors of that walk, so a new field is added to all of them
// at once; a reflection test fails when a field is neither walked nor
// listed with the reason it need not be.
//
// A million-token decode has tens of thousands of distinct steps; with
// Options.DecodeSample the step of every N-th KV block is simulated and
// the others interpolated (longdecode.go): an approximation, within 0.1%
// of the exact run in the tests, for the long-decode studies.
//
// One simulation is one goroutine and is deterministic: events are ordered
// by (time, sequence). Sweeps run simulations in parallel.
package sim
