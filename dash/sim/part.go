package sim

import (
	"encoding/binary"
	"fmt"
)

// ExpertLoad is the routed work one MoE layer brings to one GPU of an
// expert-parallel group: Rows token-expert pairs over Active distinct
// experts held by that GPU (the dispatch delivered them; package cluster
// derives them from the routing distribution and the expert placement).
type ExpertLoad struct {
	// Active is the number of distinct local experts with at least one
	// row: their weights are read, as the selected experts of a
	// single-GPU pass are.
	Active int
	// Rows is the number of token-expert pairs the local experts process.
	Rows int
	// Cached of the Active experts are held by the HBM expert cache (read
	// from HBM) and Filled misses are written into it: recorded routing
	// sets them, and a Part may (a cluster GPU's expert cache); both 0
	// read every active expert from HBF.
	Cached, Filled int
}

// perExpert is the mean rows per active expert, rounded up (the grouped
// GEMM is timed as Active experts of equal rows, as under balanced
// routing).
func (l ExpertLoad) perExpert() int {
	if l.Active <= 0 {
		return 0
	}
	return (l.Rows + l.Active - 1) / l.Active
}

// Part is one GPU's part of a model-parallel pass: the GPU runs its shard
// of the model (the experiment's model is the shard: its heads, widths and
// experts are the GPU's) over the rows whose attention it computes, and
// its MoE layers process the rows the dispatch brought. The zero Part is
// the whole pass, exactly as Run.
type Part struct {
	// Experts, when not nil, has one load per decoder layer (entries of
	// dense layers are ignored): the routed work of the GPU's experts,
	// replacing the routing model's. Nil keeps the routing model.
	Experts []ExpertLoad
	// NoEmbed leaves the embedding gather out (a pipeline stage after the
	// first receives its activations from the previous stage).
	NoEmbed bool
	// NoHead leaves the final norm and the LM head out (a pipeline stage
	// before the last).
	NoHead bool
}

// RunPart simulates one pass of the GPU's part of a model-parallel pass
// over rows, starting now. Like Run, a part whose program ran before
// replays its measured outcome exactly.
func (p *Passer) RunPart(rows []Row, part Part) (PassResult, error) {
	if p.e == nil {
		return PassResult{}, fmt.Errorf("sim: Passer not made by NewPasser")
	}
	if part.Experts != nil {
		if len(part.Experts) != p.pb.m.NumLayers {
			return PassResult{}, fmt.Errorf("sim: part has %d expert loads for %d layers", len(part.Experts), p.pb.m.NumLayers)
		}
		e := p.pb.m.FFN.RoutedExperts
		for i, l := range part.Experts {
			switch {
			case l.Active < 0 || l.Rows < 0:
				return PassResult{}, fmt.Errorf("sim: layer %d expert load %+v: must not be negative", i, l)
			case l.Active > e:
				return PassResult{}, fmt.Errorf("sim: layer %d expert load: %d active experts, the model's shard holds %d", i, l.Active, e)
			case l.Active > l.Rows || (l.Rows > 0 && l.Active == 0):
				return PassResult{}, fmt.Errorf("sim: layer %d expert load %+v: every active expert needs a row and every row an expert", i, l)
			case l.Cached < 0 || l.Filled < 0 || l.Cached+l.Filled > l.Active:
				return PassResult{}, fmt.Errorf("sim: layer %d expert load %+v: cached and filled experts must be active experts", i, l)
			case l.Cached+l.Filled > 0 && p.pb.plan.ExpertCache <= 0:
				return PassResult{}, fmt.Errorf("sim: layer %d expert load %+v: the experiment has no HBM expert cache (execution.expert_cache.budget)", i, l)
			}
		}
	}
	return p.run(rows, &part)
}

// appendKey adds what the part changes to a pass's memo key (nothing for
// a nil part, so that Run's keys are unchanged).
func (pt *Part) appendKey(dst []byte) []byte {
	if pt == nil {
		return dst
	}
	flags := byte(2)
	if pt.NoEmbed {
		flags |= 4
	}
	if pt.NoHead {
		flags |= 8
	}
	dst = append(dst, flags)
	if pt.Experts == nil {
		return append(dst, 0)
	}
	dst = append(dst, 1)
	for _, l := range pt.Experts {
		dst = binary.AppendUvarint(dst, uint64(l.Active))
		dst = binary.AppendUvarint(dst, uint64(l.Rows))
		dst = binary.AppendUvarint(dst, uint64(l.Cached))
		dst = binary.AppendUvarint(dst, uint64(l.Filled))
	}
	return dst
}
