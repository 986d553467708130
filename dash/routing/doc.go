// Package routing is recorded and synthetic MoE routing: which experts each
// token selects at each MoE layer, read from a trace file or generated with
// the properties measured traces show, and the HBM expert cache that
// serves the hottest experts from HBM instead of HBF.
//
// # Where it sits
//
// The package is a leaf under dash (it imports no other dashlab package but
// internal/safeio): dash's workload names a trace (workload.routing: {kind:
// trace, file: PATH}) or the generator (kind: synthetic), Build reads and
// checks it against the model (Trace.Bind), and the engine (package sim)
// asks the bound routing which experts a pass's tokens select at each
// layer, counting the distinct experts it must read and the rows each
// processes, and asks the expert cache which of them it holds.
//
// # The trace format
//
// A trace is rows {"request", "token", "layer", "experts": [...]} with
// optional "weights": [...], as JSON Lines (.jsonl) or Parquet (.parquet),
// one row per token and MoE layer: request any non-negative id, the rows
// of a request together; token the position in the request (prompt tokens
// first, then generated ones) from 0 without gaps; layer the decoder layer
// index of an MoE layer; experts the selected expert ids in the router's
// order (top choice first); weights the routing weights, one per expert.
// Every token has rows for the same layers in ascending order; every row
// has the same number of experts (top-k). DecodeJSONL, DecodeParquet and
// Read (by extension) read it; EncodeJSONL and EncodeParquet write it.
// Captures written by serving frameworks are converted by their adapters
// (DecodeVLLM: vLLM's routed-experts return).
//
// # Tokens beyond the trace
//
// Experiment request i reads trace request i and its token t trace token
// t. Without wrap an experiment needing more is refused with an error
// naming the file and what it holds; with wrap request i reads trace
// request i mod R and token t token t mod n (Bound).
//
// # The generator
//
// Generate draws a trace with the four properties real routing shows,
// each a parameter with the measurement it comes from (Synthetic):
// per-layer popularity skew, correlation across consecutive layers,
// temporal locality between consecutive tokens and a per-request task mix.
// Balanced builds the trace of the paper's balanced routing for a
// fixed-batch experiment.
//
// # Replay
//
// A replay asks, for each pass, the distinct experts its tokens select at
// each layer. The bound trace answers from bit sets of the selections
// (Bound.Sets: one word per 64 experts a layer, so a decode step's union
// is one OR a word per token; Bound.PrefixSets: a prompt's, from its
// first-use table), computed from the ids on first use and kept, bounded,
// for the runs that share the bound trace.
//
// # The expert cache
//
// Cache keeps up to a budget of experts (layer, expert pairs) in HBM under
// a replacement policy (static: the trace's most selected experts, pinned;
// LRU; LFU with admission). A pass asks it, per layer, which of the
// selected experts it holds (served from HBM) and which it fills (written
// into HBM after the miss). It never holds more than its capacity and
// never reports a hit for an expert it does not hold.
package routing
