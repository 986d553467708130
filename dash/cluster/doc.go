// Package cluster simulates MoE inference on several GPUs: the paper's DASH
// memory system (or any memory system of the catalogue) on every GPU of a
// cluster, against the HBM-only GPUs one would buy instead.
//
// # What is simulated, at what granularity
//
// A cluster (Spec; catalogue entries in reference/clusters) is nodes of
// GPUs, each GPU a timing model and a memory system of the catalogue, and
// an interconnect: per-GPU scale-up ports (NVSwitch, or NVLink bridges
// joining groups of PCIe cards), per-GPU PCIe links, and NICs between
// nodes. An experiment (Builder) spreads a model over the GPUs
// (ParallelSpec): tensor parallelism for attention, dense layers, shared
// experts and the vocabulary; expert parallelism for the routed experts,
// placed over the GPUs by a policy (PlacementSpec: contiguous, or balanced
// by per-expert popularity, with redundant copies); attention data
// parallelism inside a stage; pipeline stages with micro-batches; and
// instances side by side (data parallelism). Each GPU holds its shard of
// the model (heads, widths, experts, layers), planned and placed on its
// memory system by package dash exactly as one GPU is, so a shard that does
// not fit is refused with the dash.CapacityError. Within a GPU its experts
// live in HBF (the paper's §V-A) unless the GPU has an HBM expert cache
// (execution.expert_cache, static in a cluster): then its most popular
// experts under the routing distribution are pinned in HBM and read from
// there (cache.go). Every field of Spec and Layout is a knob of dash's one
// knob table (see Layout): set by path (Builder.Set, With, a cluster file's
// overrides, --set, sweeps of kind cluster), range-checked, and named in
// what-if labels (Changes).
//
// Every GPU's work is a pass of the event-driven engine (dash/sim, through
// sim.Passer.RunPart): its shard over the rows of its attention group, its
// MoE layers processing the rows the dispatch brings to its experts under
// the routing distribution (RoutingSpec: balanced, or Zipf popularity per
// layer; its expectation, or drawn every pass: sample.go) and the
// placement. A stage's GPUs synchronise at every collective,
// so a stage pass is its slowest GPU's engine time plus its collectives
// (see Instance for why one engine pass per stage gives it, and when it is
// exact). Collectives are built message by message on the interconnect's
// ports (see fabric and collective.go: alpha-beta with ring and recursive
// doubling all-reduce, ring all-gather, concurrent or pairwise all-to-all,
// point to point, citing Thakur, Rabenseifner and Gropp 2005 and Patarasuk
// and Yuan 2009), so that on an idle fabric each takes its formula's time
// and messages that share a port queue on it.
//
// # Serving, disaggregation and the comparison
//
// An Instance is package serve's Engine: Serve runs serve's iteration-level
// scheduler on each instance (B_max and the token budget per attention
// group), the instances behind a router that deals requests at arrival
// (round-robin or least work dealt), simulated side by side.
// ServeDisaggregated runs a prefill pool, moves each request's KV over the
// NICs (transfers queue on shared NICs), and decodes the prefilled requests
// on a decode pool. Compare bisects each contender's load for the highest
// rate whose P90 TPOT meets a target and derives tokens/s per GPU and per
// unit of an illustrative GPU price (PriceRatio maps §VI-G's stack costs to
// one), energy per token at board power, KV capacity, the GPUs each target
// throughput needs, and the break-even price.
//
// # What is left out
//
//   - Collectives never overlap GPU work (no two-batch overlap), and the
//     memory system does not prefetch during them.
//   - The dispatch moves every token-expert pair in BF16 unless DispatchSpec
//     says otherwise (dispatch.dedup: one row per token and GPU, combined
//     there; dispatch.dtype fp8: FP8 with 1x128 FP32 scales); the distinct
//     tokens per GPU are the routing distribution's expectation (drawn
//     token by token with sampled loads and at most 8192 pairs a group).
//   - A stage's straggler is the heaviest attention group (by tokens, then
//     context) with each MoE layer's heaviest load (the most rows any GPU
//     has with the most experts any GPU reads: an upper bound when two
//     GPUs are heaviest in each); loads are the routing
//     distribution's expectation unless routing.loads is sampled (every
//     pass draws its tokens' experts from the cluster's own distribution:
//     no temporal repetition or cross-layer paths, which package routing's
//     generator has but a cluster row does not carry).
//   - Instances do not share ports, and a decode pool's collectives are not
//     on the fabric its incoming KV crosses; a request's attention group is
//     chosen per iteration (no stickiness), and the KV that arrives at a
//     decode instance is not programmed into its HBF.
//   - A GPU's HBM expert cache is static (pinned by the expected
//     popularity); lru and lfu follow tokens one by one and are refused.
//     The straggler is still the GPU with the most rows, whatever its
//     cache holds.
//   - A shard's router is sized to its local experts; middle pipeline
//     stages hold a one-row embedding, the last stage an embedding it does
//     not use.
//   - Energy is board power (TDP) for every GPU-second plus the ports' energy
//     (zero in the shipped clusters: no per-bit figure is published for
//     NVLink 4 or ConnectX-7); the memory systems' own energy (dash/energy)
//     is not added.
//
// # Checks
//
// One GPU of a cluster is today's single-GPU simulation to the nanosecond;
// collectives on an idle fabric equal their formulas; token-expert pairs
// and bytes are conserved across GPUs and ports; a faster interconnect
// never slows a run; skew raises the most loaded GPU's time and a
// popularity placement lowers it (the tests).
package cluster
