package cluster

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/dash"
)

// ParallelSpec is how one model instance is spread over GPUs, and how many
// instances serve behind the router.
//
// A pipeline stage holds Pipeline-th of the layers on W GPUs: W = Expert
// when Expert > 1 (the routed experts are spread over all W, expert
// parallelism) and W = Tensor otherwise (the experts are split like the
// dense layers, tensor parallelism). Attention, dense FFN layers, shared
// experts and the vocabulary are split Tensor ways; the W/Tensor groups of
// Tensor GPUs each attend over their own requests (attention data
// parallelism, as SGLang's DP attention). Per layer, each tensor-parallel
// group all-reduces its attention output (and its dense FFN output); the
// MoE block dispatches each token to the GPUs holding its experts and
// combines the results with two all-to-alls when the groups hold different
// tokens (W > Tensor), or all-reduces the partial expert outputs when every
// GPU holds every token (W = Tensor). Stages pass activations point to
// point; Data instances run side by side on disjoint GPUs.
type ParallelSpec struct {
	// Tensor is the tensor-parallel degree (attention heads, dense and
	// shared-expert widths, vocabulary). Range 1 .. 1024; divides the
	// attention heads, the dense and shared widths and, without expert
	// parallelism, the expert width.
	Tensor int `yaml:"tensor" knob:"TP | tensor-parallel degree (heads, dense and shared widths, vocabulary) | 1..1024 | Megatron-LM (Shoeybi et al. 2019)"`
	// Expert is the expert-parallel degree: the GPUs of a stage over which
	// the routed experts are placed (1: none). A multiple of Tensor,
	// dividing the routed experts (or their slots, see PlacementSpec).
	Expert int `yaml:"expert" knob:"EP | expert-parallel degree: the GPUs of a stage the routed experts are placed over | 1..1024 | GShard (Lepikhin et al. 2020); DeepSeek-V3 §3.4"`
	// Pipeline is the number of pipeline stages, dividing the layers.
	Pipeline int `yaml:"pipeline" knob:"PP | pipeline stages (dividing the layers) | 1..1024 | GPipe (Huang et al. 2019)"`
	// MicroBatches is the number of micro-batches a pass is split into
	// across the pipeline (0: as many as stages; 1 with one stage).
	MicroBatches int `yaml:"micro_batches,omitempty" knob:"| micro-batches a pass is split into across the pipeline (0: as many as stages) | 0..1024 | GPipe (Huang et al. 2019)"`
	// Data is the number of instances (replicas) behind the router.
	Data int `yaml:"data" knob:"DP | instances (replicas) behind the router | 1..1024 | data parallelism"`
}

// MaxDegree bounds every parallel degree.
const MaxDegree = 1024

// StageGPUs is the number of GPUs of one pipeline stage (W).
func (p ParallelSpec) StageGPUs() int {
	if p.Expert > 1 {
		return p.Expert
	}
	return p.Tensor
}

// AttentionGroups is the number of attention data-parallel groups of a
// stage (W / Tensor).
func (p ParallelSpec) AttentionGroups() int { return p.StageGPUs() / max(1, p.Tensor) }

// InstanceGPUs is the number of GPUs of one instance.
func (p ParallelSpec) InstanceGPUs() int { return p.StageGPUs() * p.Pipeline }

// GPUs is the number of GPUs all instances use.
func (p ParallelSpec) GPUs() int { return p.InstanceGPUs() * p.Data }

// Micro is the effective number of micro-batches.
func (p ParallelSpec) Micro() int {
	if p.MicroBatches > 0 {
		return p.MicroBatches
	}
	return p.Pipeline
}

// String is "TP8 EP8 PP1 DP1".
func (p ParallelSpec) String() string {
	return fmt.Sprintf("TP%d EP%d PP%d DP%d", p.Tensor, p.Expert, p.Pipeline, p.Data)
}

// Validate checks the degrees against the model; each error names the
// field, its value and what it must divide.
func (p ParallelSpec) Validate(m dash.ModelSpec) error {
	errs := rangeErrors(&Layout{Parallel: p}, "placement", "routing") // the knobs' ranges
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	divides := func(field string, v int, what string, n int) {
		if n%v != 0 {
			errs = append(errs, fmt.Errorf("parallel.%s = %d: does not divide %s = %d of model %s", field, v, what, n, m.ID))
		}
	}
	t := p.Tensor
	a := m.Attention
	divides("tensor", t, "attention.heads", a.Heads)
	if a.Kind == "gqa" && a.KVHeads%t != 0 && t%a.KVHeads != 0 {
		errs = append(errs, fmt.Errorf("parallel.tensor = %d: neither divides nor is a multiple of attention.kv_heads = %d of model %s", t, a.KVHeads, m.ID))
	}
	if m.FFN.DenseIntermediate > 0 {
		divides("tensor", t, "ffn.dense_intermediate", m.FFN.DenseIntermediate)
	}
	if m.FFN.SharedIntermediate > 0 {
		divides("tensor", t, "ffn.shared_intermediate", m.FFN.SharedIntermediate)
	}
	if p.Expert > 1 {
		if p.Expert%t != 0 {
			errs = append(errs, fmt.Errorf("parallel.expert = %d: must be a multiple of parallel.tensor = %d (the stage's GPUs are tensor-parallel groups)", p.Expert, t))
		}
		if p.Expert > m.FFN.RoutedExperts {
			errs = append(errs, fmt.Errorf("parallel.expert = %d: more GPUs than the %d routed experts of model %s (ffn.routed_experts)", p.Expert, m.FFN.RoutedExperts, m.ID))
		}
	} else {
		divides("tensor", t, "ffn.moe_intermediate", m.FFN.MoEIntermediate)
	}
	divides("pipeline", p.Pipeline, "num_layers", m.NumLayers)
	if a.ChunkSize > 0 && a.GlobalEvery > 0 && p.Pipeline > 1 && (m.NumLayers/p.Pipeline)%a.GlobalEvery != 0 {
		errs = append(errs, fmt.Errorf("parallel.pipeline = %d: stages of %d layers break the model's every-%d global-attention pattern (attention.global_every)", p.Pipeline, m.NumLayers/p.Pipeline, a.GlobalEvery))
	}
	return errors.Join(errs...)
}

// shardModel is the part of m one GPU of stage s (of p.Pipeline) holds
// when the stage's experts are spread over its GPUs with slots experts
// each: heads, KV heads (replicated when fewer than the tensor degree),
// dense and shared widths and the vocabulary split Tensor ways; the routed
// experts cut to the GPU's slots (expert parallelism) or their width split
// (tensor parallelism); the stage's layers only. The embedding is kept on
// the first stage and the LM head on the last (a middle stage holds a
// one-row tied embedding: its passes leave both out, sim.Part).
func (p ParallelSpec) shardModel(m dash.ModelSpec, stage, slots int) dash.ModelSpec {
	s := m
	t := p.Tensor
	s.Attention.Heads = m.Attention.Heads / t
	s.Attention.KVHeads = max(1, m.Attention.KVHeads/t)
	if m.Attention.MLA != nil {
		mla := *m.Attention.MLA
		if mla.Indexer != nil {
			ix := *mla.Indexer
			ix.Heads = max(1, ix.Heads/t)
			mla.Indexer = &ix
		}
		s.Attention.MLA = &mla
	}
	s.FFN.DenseIntermediate = m.FFN.DenseIntermediate / t
	s.FFN.SharedIntermediate = m.FFN.SharedIntermediate / t
	s.VocabSize = (m.VocabSize + t - 1) / t
	if p.Expert > 1 {
		s.FFN.RoutedExperts = slots
		s.FFN.TopK = min(m.FFN.TopK, slots)
		if s.Router.GroupLimited && s.Router.Groups > slots {
			s.Router.GroupLimited, s.Router.Groups, s.Router.TopKGroups = false, 0, 0
		}
	} else {
		s.FFN.MoEIntermediate = m.FFN.MoEIntermediate / t
	}
	if p.Pipeline > 1 {
		per := m.NumLayers / p.Pipeline
		lo := stage * per
		s.NumLayers = per
		set, _ := m.MoELayerSet()
		var local []int
		for _, l := range set {
			if l >= lo && l < lo+per {
				local = append(local, l-lo)
			}
		}
		s.FFN.MoELayers = layerList(local)
		if len(local) < per && s.FFN.DenseIntermediate == 0 {
			s.FFN.DenseIntermediate = m.FFN.DenseIntermediate / t
		}
		if stage < p.Pipeline-1 {
			s.MTPLayers = 0
			if stage > 0 { // neither embedding nor head
				s.VocabSize, s.TieEmbeddings = 1, true
			}
		}
		s.ID = fmt.Sprintf("%s/pp%d", m.ID, stage)
	}
	if p.Tensor > 1 || p.Expert > 1 {
		s.ID = fmt.Sprintf("%s/%s", s.ID, p.shardName())
	}
	return s
}

func (p ParallelSpec) shardName() string {
	return fmt.Sprintf("tp%d-ep%d", p.Tensor, p.Expert)
}

// layerList writes sorted layer indices as the model's range list
// ("0-3,5,7-9"); an empty list is "".
func layerList(ls []int) string {
	var parts []string
	for i := 0; i < len(ls); {
		j := i
		for j+1 < len(ls) && ls[j+1] == ls[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, strconv.Itoa(ls[i])+"-"+strconv.Itoa(ls[j]))
		} else {
			parts = append(parts, strconv.Itoa(ls[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
