// Package serve simulates continuous-batching LLM serving on the DASH
// memory system (§VI-E): requests arrive (a seeded Poisson process or a
// trace file), an iteration-level scheduler batches their decode tokens and
// prefill chunks, and every iteration is a pass of the event-driven engine
// (sim.Passer) over that heterogeneous batch.
//
// # Scheduler
//
// At each iteration boundary the scheduler reserves one decode token per
// active request whose prompt is done, then gives at most one prefill chunk
// (Chunk tokens, or what is left of the prompt, or of the budget) to each
// request still in prefill: active ones first, then waiting ones in arrival
// order, admitted while fewer than MaxBatch requests are active and their
// KV fits. Admission reserves a request's whole KV: its prompt's in HBF
// (prefill KV is written there), its generated tokens' in HBM (within the
// plan's decode-KV budget); the head of the queue waits until it fits, and
// a request that could never fit is rejected with the reason and counted.
// Mixed runs the iteration as one pass; Serial as a decode pass followed by
// a prefill pass. A request's first token comes at the end of the pass that
// completes its prompt, each further token at the end of a decode pass;
// when the last one is produced its KV is freed.
//
// # Metrics
//
// Per request: queueing delay (arrival to first chunk), TTFT, every
// inter-token gap, TPOT = (E2E - TTFT) / (L_out - 1) and E2E. Per
// iteration (Config.Series): rows, tokens, active set, queue, active
// experts, bytes per route and the busiest link's utilization. A run
// measures a window of requests after a discarded warm-up (by arrival
// order); Summary gives the means and empirical P50/P90/P99, the offered
// and completed rates over the window and both sides of Little's law. A
// Study repeats runs over seeds, loads and systems in parallel and reports
// each statistic's mean and spread over seeds.
//
// # Saturation and loads
//
// MeasureSaturation finds a system's backlogged throughput (requests
// always waiting; see its procedure). A Study offers loads as fractions of
// one baseline's backlogged throughput in the study's mode, as the paper
// does with RelayOnly under Mixed.
//
// # Speed and memory
//
// Every pass starts with the memory system idle, so a pass whose program
// equals an earlier one's replays its measured outcome exactly (sim.Passer
// memoizes by an exact key of the program); a Study shares one memo
// (sim.PassMemo, Config.Memo) between every simulation of a system, so a
// pass one trace measured replays in the others. A new pass simulates
// little more than its attention kernels: the segments between them replay
// from earlier passes of the same token count (see package sim).
// TestServingShortcutsExact checks that every field of every run equals
// the event-by-event run's. The simulation's state is the active set and
// the queue; the memos and the program templates are bounded. What grows
// with the run is what is measured: the window's per-request metrics and
// gaps, and the per-iteration series if asked for.
// Config.Approx optionally rounds decode contexts to a quantum so that many
// more passes are identical; its error against the exact pass model is
// measured by TestApproxError and the benchmarks.
package serve
