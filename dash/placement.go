package dash

import (
	"fmt"
	"slices"

	"github.com/dashlab/dashlab/dash/unit"
)

// Plan is where the model's weights and the workload's KV cache live. It
// follows the paper's section V-A:
//
//   - Expert weights (routed and shared) live in HBF only. Each expert is
//     striped evenly over every HBF stack, and within a stack over all of its
//     dies, planes and subarrays, so that one selected expert can be read at
//     the full page-wave rate of every stack and either route set (Direct or
//     Relay) can carry it whole.
//   - Non-expert weights that every token reads (attention projections,
//     per-layer norms, routers, dense FFN layers, the final norm and the LM
//     head) are replicated: one copy striped over the HBF stacks and one copy
//     split evenly over the HBM stacks, so that a read can use the HBM and HBF
//     paths in parallel. When HBM cannot hold every replica next to the
//     activation workspace and the decode-KV budget, classes are replicated in
//     order of reuse per byte (attention, norms and routers, dense FFN, LM
//     head) and the rest stays in HBF only; Notes says which.
//   - The embedding table lives in HBF only: a step gathers just B rows.
//   - Multi-token-prediction layers live in HBF only: stored, never executed.
//   - KV cache: the prefill KV goes to HBF (direct prefill write); decode KV
//     is appended in HBM up to the decode-KV budget (HBM capacity less the
//     replicas and the workspace); what exceeds the budget spills to HBF by
//     HBM-to-HBF writeback.
//   - The activation workspace of the largest pass (the prefill of B x L_in
//     tokens) is reserved in HBM; see [Workspace].
//   - A package without HBF (TopologySpec.HBMOnly) holds everything in HBM:
//     weights, workspace, the prompt's and the generated tokens' KV.
//   - The expert cache (ExecutionSpec.ExpertCache, not in the paper)
//     reserves its budget in HBM after the workspace and the replicas, out
//     of what would be the decode-KV budget: copies of the hottest routed
//     experts, which keep their HBF copy. A budget the HBM cannot hold is
//     refused with a *CapacityError.
//
// A plan whose data exceed the HBF capacity, or whose workspace exceeds the
// HBM capacity, is refused with a *CapacityError (match it with errors.As): it
// says "does not fit" and carries the model, the bytes needed and the bytes
// available.
type Plan struct {
	// HBM and HBF are the per-stack usage (stacks are used evenly).
	HBM, HBF StackUse
	// HBMStacks and HBFStacks are the stack counts.
	HBMStacks, HBFStacks int
	// Replicated lists the classes with a copy in HBM as well as in HBF.
	Replicated []TensorClass
	// ReplicatedBytes is the size of one copy of the replicated classes.
	ReplicatedBytes unit.Bytes
	// HBFOnlyBytes is the size of the weights that live in HBF only.
	HBFOnlyBytes unit.Bytes
	// DerivedBytes is the size of weights derived at load time that the
	// checkpoint does not hold: with lookahead expert selection (§V-C), the
	// attention-routing matrix W_out diag(gamma) W_r of every MoE layer,
	// placed like the router.
	DerivedBytes unit.Bytes
	// KV is the KV-cache placement.
	KV KVPlan
	// ExpertCache is the HBM reserved for the expert cache, package-wide
	// (0: none, the paper's placement).
	ExpertCache unit.Bytes
	// Notes explains choices the planner made (partial replication).
	Notes []string
}

// StackUse is what one stack holds.
type StackUse struct {
	// Capacity is the stack's capacity.
	Capacity unit.Bytes
	// Weights is the stack's share of the weights it holds.
	Weights unit.Bytes
	// KV is the stack's share of the KV cache placed in its memory.
	KV unit.Bytes
	// Workspace is the activation workspace reserved (HBM only).
	Workspace unit.Bytes
	// ExpertCache is the stack's share of the expert cache (HBM only).
	ExpertCache unit.Bytes
}

// Free is the capacity left.
func (s StackUse) Free() unit.Bytes {
	return s.Capacity - s.Weights - s.KV - s.Workspace - s.ExpertCache
}

// KVPlan is the KV-cache placement of a fixed-batch workload.
type KVPlan struct {
	// BytesPerToken is one token's KV over all layers.
	BytesPerToken unit.Bytes
	// Prefill is the KV of the B prompts, written to HBF.
	Prefill unit.Bytes
	// Decode is the KV of the B x L_out generated tokens.
	Decode unit.Bytes
	// HBMBudget is the package-wide decode-KV budget in HBM.
	HBMBudget unit.Bytes
	// DecodeInHBM is the part of Decode that stays in HBM; Spill the part
	// written back to HBF.
	DecodeInHBM, Spill unit.Bytes
}

// replicationOrder is the order in which non-expert classes get an HBM copy.
var replicationOrder = [][]TensorClass{
	{ClassAttention},
	{ClassNorm, ClassRouter, ClassFinalNorm},
	{ClassDenseFFN},
	{ClassLMHead},
}

// Workspace is the HBM reserved for the activations of one forward pass of
// tokens tokens: the residual stream, the normalised input, the attention
// output and the block output (4 x hidden), plus the widest FFN intermediate
// a token produces (gate and up outputs: 2 x max(dense width, top_k x expert
// width + shared width)), all in BF16.
func Workspace(m ModelSpec, tokens int) unit.Bytes {
	ffn := max(m.FFN.DenseIntermediate, m.FFN.TopK*m.FFN.MoEIntermediate+m.FFN.SharedIntermediate)
	perToken := 4*m.HiddenSize + 2*ffn
	return unit.Bytes(tokens) * unit.Bytes(perToken) * BF16.Size()
}

func planPlacement(e *experiment) (Plan, error) {
	m, s, w, f := e.model, e.system, e.workload, e.footprint
	nH, nF := s.Topology.HBMStacks(), s.Topology.HBFStacks()
	p := Plan{HBMStacks: nH, HBFStacks: nF}

	classBytes := map[TensorClass]unit.Bytes{}
	for _, t := range e.inventory.Tensors {
		if !t.MTP {
			classBytes[t.Class] += t.Bytes()
		}
	}
	if e.execution.Lookahead && m.LookaheadEligible() {
		p.DerivedBytes = unit.Bytes(f.MoELayers) * LookaheadRouterBytes(m)
		classBytes[ClassRouter] += p.DerivedBytes
	}
	if why := m.LookaheadReason(); e.execution.Lookahead && why != "" {
		p.Notes = append(p.Notes, "lookahead expert selection off: "+why)
	}
	weights := f.Bytes + p.DerivedBytes

	p.KV.BytesPerToken = f.KVBytesPerTokenPerLayer * unit.Bytes(m.NumLayers)
	p.KV.Prefill = unit.Bytes(w.Batch) * unit.Bytes(w.Prompt) * p.KV.BytesPerToken
	p.KV.Decode = unit.Bytes(w.Batch) * unit.Bytes(w.Output) * p.KV.BytesPerToken
	workspace := Workspace(m, w.Batch*w.Prompt)

	hbmCap := s.HBMCapacity()
	if nF == 0 {
		return planHBMOnly(p, e, weights, workspace)
	}
	if workspace > hbmCap {
		return Plan{}, &CapacityError{Model: m.ID, System: s.ID, Memory: MemoryHBM, Need: workspace, Have: hbmCap,
			Detail: fmt.Sprintf("the activation workspace of a %d-token prefill needs %v of HBM, %v available", w.Batch*w.Prompt, workspace, hbmCap)}
	}
	// Replicate whole classes in order while they leave room for the
	// workspace and the decode KV (or, if the decode KV is larger than HBM
	// can ever hold, while they fit at all: the excess spills anyway).
	room := hbmCap - workspace
	reserveKV := p.KV.Decode
	if reserveKV > room { // it spills whatever is replicated: replicas first
		reserveKV = 0
	}
	for _, group := range replicationOrder {
		var size unit.Bytes
		for _, c := range group {
			size += classBytes[c]
		}
		if size == 0 {
			continue
		}
		if p.ReplicatedBytes+size+reserveKV > room {
			p.Notes = append(p.Notes, fmt.Sprintf("%v (%v) not replicated in HBM: %v of HBM left after the workspace and decode KV",
				group, size, room-reserveKV-p.ReplicatedBytes))
			continue
		}
		p.ReplicatedBytes += size
		p.Replicated = append(p.Replicated, group...)
	}
	p.HBFOnlyBytes = weights - p.ReplicatedBytes // includes experts, embedding, MTP

	// The expert cache comes out of what the decode KV would have.
	cache := e.execution.ExpertCache.Budget
	if left := room - p.ReplicatedBytes; cache > left {
		return Plan{}, &CapacityError{Model: m.ID, System: s.ID, Memory: MemoryHBM, Need: workspace + p.ReplicatedBytes + cache, Have: hbmCap,
			Detail: fmt.Sprintf("execution.expert_cache.budget = %v: the HBM holds %v after the %v workspace and %v of replicas", cache, left, workspace, p.ReplicatedBytes)}
	}
	p.ExpertCache = cache
	p.KV.HBMBudget = room - p.ReplicatedBytes - cache
	p.KV.DecodeInHBM = min(p.KV.Decode, p.KV.HBMBudget)
	p.KV.Spill = p.KV.Decode - p.KV.DecodeInHBM

	hbfNeed := weights + p.KV.Prefill + p.KV.Spill
	if hbfCap := s.HBFCapacity(); hbfNeed > hbfCap {
		return Plan{}, &CapacityError{Model: m.ID, System: s.ID, Memory: MemoryHBF, Need: hbfNeed, Have: hbfCap,
			Detail: fmt.Sprintf("HBF needs %v (weights %v + KV %v), %v available (%d x %v)", hbfNeed, weights, p.KV.Prefill+p.KV.Spill, hbfCap, nF, s.HBF.Capacity)}
	}
	per := func(b unit.Bytes, n int) unit.Bytes { return (b + unit.Bytes(n) - 1) / unit.Bytes(n) }
	p.HBM = StackUse{Capacity: s.HBM.Capacity, Weights: per(p.ReplicatedBytes, nH), KV: per(p.KV.DecodeInHBM, nH), Workspace: per(workspace, nH),
		ExpertCache: per(cache, nH)}
	p.HBF = StackUse{Capacity: s.HBF.Capacity, Weights: per(weights, nF), KV: per(p.KV.Prefill+p.KV.Spill, nF)}
	return p, nil
}

// planHBMOnly places everything in HBM, for a package without HBF (an
// HBM-only GPU): every weight (every class counts as having its HBM copy,
// and there is no other), the workspace and the whole KV cache. What does
// not fit is refused: there is no HBF to spill to.
func planHBMOnly(p Plan, e *experiment, weights, workspace unit.Bytes) (Plan, error) {
	m, s := e.model, e.system
	nH := p.HBMStacks
	hbmCap := s.HBMCapacity()
	if e.execution.ExpertCache.Enabled() {
		return Plan{}, fmt.Errorf("execution.expert_cache.budget = %v: system %s has no HBF, so every expert is in HBM already", e.execution.ExpertCache.Budget, s.ID)
	}
	for _, group := range replicationOrder {
		p.Replicated = append(p.Replicated, group...)
	}
	p.ReplicatedBytes = weights
	p.Notes = append(p.Notes, "no HBF: weights, workspace and KV cache all in HBM")
	need := weights + workspace + p.KV.Prefill + p.KV.Decode
	if need > hbmCap {
		return Plan{}, &CapacityError{Model: m.ID, System: s.ID, Memory: MemoryHBM, Need: need, Have: hbmCap,
			Detail: fmt.Sprintf("HBM needs %v (weights %v + workspace %v + KV %v), %v available (%d x %v) and there is no HBF",
				need, weights, workspace, p.KV.Prefill+p.KV.Decode, hbmCap, nH, s.HBM.Capacity)}
	}
	p.KV.HBMBudget = hbmCap - weights - workspace - p.KV.Prefill
	p.KV.DecodeInHBM = p.KV.Decode
	per := func(b unit.Bytes) unit.Bytes { return (b + unit.Bytes(nH) - 1) / unit.Bytes(nH) }
	p.HBM = StackUse{Capacity: s.HBM.Capacity, Weights: per(weights), KV: per(p.KV.Prefill + p.KV.Decode), Workspace: per(workspace)}
	return p, nil
}

// IsReplicated reports whether class c has a copy in HBM.
func (p Plan) IsReplicated(c TensorClass) bool { return slices.Contains(p.Replicated, c) }

func (p Plan) clone() Plan {
	c := p
	c.Replicated = slices.Clone(p.Replicated)
	c.Notes = slices.Clone(p.Notes)
	return c
}

func (inv Inventory) clone() Inventory {
	c := inv
	c.Tensors = slices.Clone(inv.Tensors)
	for i := range c.Tensors {
		c.Tensors[i].Shape = slices.Clone(inv.Tensors[i].Shape)
	}
	return c
}

// LookaheadRouterBytes is the size of one MoE layer's attention-routing
// matrix W_out diag(gamma) W_r (§V-C): the output projection's input width
// by the number of routed experts, in BF16. Lookahead selection stores it
// in addition to the checkpoint.
func LookaheadRouterBytes(m ModelSpec) unit.Bytes {
	return unit.Bytes(m.OutputProjectionWidth()) * unit.Bytes(m.FFN.RoutedExperts) * BF16.Size()
}
