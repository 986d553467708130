package cluster

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

// Instance is one model instance of a cluster experiment running on its
// GPUs: its passes (package serve's Engine) run, per pipeline stage and
// micro-batch, the stage's most loaded GPU in the event-driven engine and
// the collectives of the stage on the fabric.
//
// The GPUs of a stage synchronise at every collective, so a stage's pass
// lasts as long as its slowest GPU's work plus the collectives. Every GPU
// of a stage runs the same shard program but for two inputs: the rows of
// its attention group and the rows the dispatch brings to its experts. The
// engine therefore runs one GPU per stage pass: the straggler, with the
// attention rows of the heaviest group and, in every MoE layer, the
// heaviest expert load of that layer: the most rows any GPU processes with
// the most experts any GPU reads (at decode the GPU reading the most
// experts is the slowest, in prefill the one with the most rows). That is
// exact when one GPU is the heaviest in every phase (identical GPUs under
// balanced routing, where it is any GPU) and otherwise an upper bound of
// any single GPU. Collectives do not overlap the
// GPU's work (as in vLLM and SGLang without two-batch overlap): a stage
// pass is its GPU time plus its collectives, placed between the layers'
// halves. With one stage, passes never overlap on the fabric, so every
// collective runs on an idle fabric and its time depends only on its
// shape: each distinct collective is simulated once, on a scratch fabric,
// and reused. With several stages, micro-batches overlap and every message
// is simulated on the instance's fabric, where pipeline transfers and
// collectives contend for ports.
type Instance struct {
	exp     Experiment
	stages  []*stageRun
	fab     *fabric // the instance's GPUs, in real time (pipelines)
	scratch *fabric // an idle copy, for collectives measured once
	now     unit.Duration
	phases  map[phaseKey]phaseOutcome
	plans   map[string]*plan
	stats   Stats
	passes  int
	replays int
	draws   uint64 // plans drawn with sampled loads
}

// Stats is what an instance's passes did.
type Stats struct {
	// Passes counts the passes; StagePasses the stage x micro-batch passes.
	Passes      int `json:"passes"`
	StagePasses int `json:"stage_passes"`
	// GPUTime is the stage passes' engine time (of the straggler GPU);
	// CommTime the collectives' time on the stages' critical paths;
	// PipelineTime the pipeline transfers' and bubbles' share (pass time
	// less the last stage's work).
	GPUTime  unit.Duration `json:"gpu_time_ns"`
	CommTime unit.Duration `json:"comm_time_ns"`
	// Ports is the fabric's traffic by port kind.
	Ports []PortStats `json:"ports"`
	// Collectives counts the collective phases run (one per layer and
	// kind: the tensor-parallel groups' all-reduces together, one
	// all-to-all); Simulated those simulated message by message (the
	// others reused an identical one measured on an idle fabric).
	Collectives int `json:"collectives"`
	Simulated   int `json:"collectives_simulated"`
	// Memory traffic of every GPU of the instance (the straggler's per
	// stage pass, times the stage's GPUs: an upper bound under skew).
	HBMRead    unit.Bytes `json:"hbm_read_bytes"`
	DirectRead unit.Bytes `json:"direct_read_bytes"`
	RelayRead  unit.Bytes `json:"relay_read_bytes"`
	Written    unit.Bytes `json:"written_bytes"`
	// DispatchPairs counts the token-expert pairs dispatched to another
	// GPU; LocalPairs those whose expert was on the token's GPU.
	DispatchPairs int64 `json:"dispatch_pairs"`
	LocalPairs    int64 `json:"local_pairs"`
	// StragglerRows sums, over the stage passes' MoE layers, the rows of
	// the most loaded GPU; MeanRows the mean rows a GPU of the stage
	// processes. StragglerRows / MeanRows is the expert load's imbalance
	// (1 under balanced expected loads).
	StragglerRows int64   `json:"straggler_rows"`
	MeanRows      float64 `json:"mean_rows"`
	// CachedExperts counts the expert reads the GPUs' HBM expert caches
	// served (the straggler's per MoE layer of every stage pass; see
	// cache.go).
	CachedExperts int64 `json:"cached_experts"`
	// DispatchRows counts the rows the dispatch sent to other GPUs (and
	// the combine sent back): the dispatched pairs, or with
	// DispatchSpec.Dedup the distinct tokens per destination GPU.
	DispatchRows int64 `json:"dispatch_rows"`
}

type stageRun struct {
	st     Stage
	passer *sim.Passer
	gpus   []int   // the stage's GPUs (fabric indices)
	groups [][]int // attention groups (tensor-parallel groups), fabric indices
	moe    []bool
}

// phase kinds
const (
	phAllReduce = iota
	phAllGather
	phDispatch
	phCombine
)

// phase is a set of collectives that start together: one all-reduce or
// all-gather per tensor-parallel group, or one all-to-all over the stage.
type phase struct {
	kind  int
	at    float64 // fraction of the stage pass's GPU work done before it
	sizes []unit.Bytes
	ll    *layerLoad
	all   bool // an all-reduce over the whole stage, not per group
}

type phaseKey struct {
	kind  int
	stage int
	ll    *layerLoad
	all   bool
	sizes string
}

type phaseOutcome struct {
	d     unit.Duration
	ports []PortStats
}

// plan is one stage pass's shape: the split of its rows, the straggler's
// part and its collectives.
type plan struct {
	groups    [][]sim.Row
	straggler int
	part      sim.Part
	phases    []phase
	comm      unit.Duration // the phases' total on an idle fabric (one stage)
	ports     []PortStats
	dispatch  int64
	local     int64
	sent      int64
	cached    int64
	straggle  int64
	mean      float64
	tokens    []int
}

// NewInstance places an instance of exp on its GPUs (one instance's worth:
// the first InstanceGPUs of the cluster; instances do not share ports).
func NewInstance(exp Experiment) (*Instance, error) {
	if !exp.Valid() {
		return nil, errors.New("cluster: experiment was not built (use cluster.NewExperiment()...Build())")
	}
	p := exp.parallel
	w := p.StageGPUs()
	nodes := (p.InstanceGPUs() + exp.spec.GPUsPerNode - 1) / exp.spec.GPUsPerNode
	in := &Instance{exp: exp, fab: newFabric(exp.spec.Interconnect, nodes, exp.spec.GPUsPerNode),
		scratch: newFabric(exp.spec.Interconnect, nodes, exp.spec.GPUsPerNode),
		phases:  map[phaseKey]phaseOutcome{}, plans: map[string]*plan{}}
	in.stats.Ports = in.fab.stats()
	moe, _ := exp.model.MoELayerSet()
	for s, st := range exp.stages {
		ps, err := sim.NewPasser(st.GPU, sim.Options{})
		if err != nil {
			return nil, err
		}
		sr := &stageRun{st: st, passer: ps}
		for i := range w {
			sr.gpus = append(sr.gpus, s*w+i)
		}
		for g := range p.AttentionGroups() {
			sr.groups = append(sr.groups, sr.gpus[g*p.Tensor:(g+1)*p.Tensor])
		}
		per := exp.model.NumLayers / p.Pipeline
		sr.moe = make([]bool, per)
		for _, l := range moe {
			if l >= st.FirstLayer && l < st.FirstLayer+per {
				sr.moe[l-st.FirstLayer] = true
			}
		}
		in.stages = append(in.stages, sr)
	}
	return in, nil
}

// Experiment is the instance's experiment.
func (in *Instance) Experiment() Experiment { return in.exp }

// Now is the simulated time at the end of the last pass.
func (in *Instance) Now() unit.Duration { return in.now }

// Idle advances the clock to t.
func (in *Instance) Idle(t unit.Duration) { in.now = max(in.now, t) }

// Counts reports the passes run and those whose every stage pass replayed.
func (in *Instance) Counts() (int, int) { return in.passes, in.replays }

// Stats is what the passes did so far.
func (in *Instance) Stats() Stats {
	s := in.stats
	s.Ports = append([]PortStats(nil), s.Ports...)
	if len(in.stages) > 1 {
		s.Ports = in.fab.stats()
	}
	return s
}

// Run simulates one pass of the instance over rows, starting now: the
// rows are split into micro-batches (pipelines), each micro-batch over the
// attention groups, and the stages run them in pipeline order.
func (in *Instance) Run(rows []sim.Row) (sim.PassResult, error) {
	if len(rows) == 0 {
		return sim.PassResult{}, errors.New("cluster: a pass needs at least one row")
	}
	p := in.exp.parallel
	res := sim.PassResult{Rows: len(rows)}
	for _, r := range rows {
		res.Tokens += r.Tokens
		if r.Samples() {
			res.Sampled++
		}
	}
	micro := splitGroups(rows, min(p.Micro(), len(rows)))
	t0 := in.now
	replayed := true
	ns := len(in.stages)
	// end[s]: when stage s finished its previous micro-batch.
	end := make([]unit.Duration, ns)
	for s := range end {
		end[s] = t0
	}
	for _, mb := range micro {
		arrive := t0
		for s, sr := range in.stages {
			pl, err := in.plan(s, mb)
			if err != nil {
				return sim.PassResult{}, err
			}
			start := max(end[s], arrive)
			sr.passer.Idle(start)
			pr, err := sr.passer.RunPart(pl.groups[pl.straggler], pl.part)
			if err != nil {
				return sim.PassResult{}, fmt.Errorf("cluster: stage %d: %w", s, err)
			}
			replayed = replayed && pr.Replayed
			w := unit.Bytes(len(sr.gpus))
			res.HBMRead += w * pr.HBMRead
			res.DirectRead += w * pr.DirectRead
			res.RelayRead += w * pr.RelayRead
			res.Written += w * pr.Written
			res.LinkBusy = max(res.LinkBusy, pr.LinkBusy)
			if res.ActiveExperts == 0 {
				res.ActiveExperts = pr.ActiveExperts
			}
			var stop unit.Duration
			in.stats.Collectives += len(pl.phases)
			if ns == 1 {
				stop = start + pr.Duration + pl.comm
				in.addPorts(pl.ports)
			} else {
				stop = in.runPhases(s, start, pr.Duration, pl)
			}
			in.stats.GPUTime += pr.Duration
			in.stats.CommTime += stop - start - pr.Duration
			in.stats.StagePasses++
			in.stats.DispatchPairs += pl.dispatch
			in.stats.LocalPairs += pl.local
			in.stats.DispatchRows += pl.sent
			in.stats.CachedExperts += pl.cached
			in.stats.StragglerRows += pl.straggle
			in.stats.MeanRows += pl.mean
			end[s] = stop
			arrive = stop
			if s+1 < ns { // activations to the next stage, GPU to GPU
				next := in.stages[s+1]
				for i, g := range sr.gpus {
					grp := i / p.Tensor
					b := unit.Bytes(pl.tokens[grp]) * unit.Bytes(in.exp.model.HiddenSize) * actBytes
					arrive = max(arrive, in.fab.p2p(stop, g, next.gpus[i], b))
				}
			}
		}
	}
	res.Duration = end[ns-1] - t0
	in.now = end[ns-1]
	res.Replayed = replayed
	in.passes++
	in.stats.Passes++
	if replayed {
		in.replays++
	}
	s := in.stats
	s.HBMRead += res.HBMRead
	s.DirectRead += res.DirectRead
	s.RelayRead += res.RelayRead
	s.Written += res.Written
	in.stats = s
	return res, nil
}

func (in *Instance) addPorts(ps []PortStats) {
	for i := range ps {
		in.stats.Ports[i].Bytes += ps[i].Bytes
		in.stats.Ports[i].Busy += ps[i].Busy
		in.stats.Ports[i].Energy += ps[i].Energy
	}
}

// plan returns the shape of stage s's pass over one micro-batch.
func (in *Instance) plan(s int, rows []sim.Row) (*plan, error) {
	sr := in.stages[s]
	p := in.exp.parallel
	a := p.AttentionGroups()
	groups := splitGroups(rows, a)
	tokens := make([]int, a)
	sampled := make([]int, a)
	ctx := make([]int, a)
	for g, gr := range groups {
		for _, r := range gr {
			tokens[g] += r.Tokens
			ctx[g] += r.Cached + r.Tokens
			if r.Samples() {
				sampled[g]++
			}
		}
	}
	var key []byte
	key = binary.AppendUvarint(key, uint64(s))
	for g := range a {
		key = binary.AppendUvarint(key, uint64(tokens[g]))
		key = binary.AppendUvarint(key, uint64(sampled[g]))
	}
	draw := in.exp.routing.sampled()
	var rng *rand.Rand
	if draw { // every plan draws its own loads
		in.draws++
		rng = rand.New(rand.NewPCG(in.exp.routing.Seed^0x5a3b1ed, in.draws))
	}
	if pl, ok := in.plans[string(key)]; ok && !draw {
		// The shape (hence loads and collectives) repeats; the rows may not.
		c := *pl
		c.groups = groups
		c.straggler = heaviest(tokens, ctx)
		return &c, nil
	}
	pl := &plan{groups: groups, straggler: heaviest(tokens, ctx), tokens: tokens}
	m := in.exp.model
	hidden := m.HiddenSize
	t := p.Tensor
	per := len(sr.moe)
	grp := func(n []int, scale int) []unit.Bytes {
		out := make([]unit.Bytes, len(n))
		for g := range n {
			out[g] = unit.Bytes(n[g]) * unit.Bytes(scale) * actBytes
		}
		return out
	}
	total := 0
	for _, n := range tokens {
		total += n
	}
	perGroup := grp(tokens, hidden)
	ep := p.Expert > 1
	for _, lp := range sr.st.placement {
		if lp != nil { // loads from the placement (expert parallelism, or skewed routing)
			pl.part.Experts = make([]sim.ExpertLoad, per)
			break
		}
	}
	pl.part.NoEmbed = s > 0
	pl.part.NoHead = s < len(in.stages)-1
	if s == 0 && t > 1 { // vocabulary-parallel embedding
		pl.phases = append(pl.phases, phase{kind: phAllReduce, at: 0, sizes: perGroup})
	}
	loads := map[*layerPlacement]*layerLoad{}
	balanced := in.exp.routing.kind() == RoutingBalanced
	ord := -1 // the layer's MoE ordinal in the stage
	withCache := func(l, g int, ld sim.ExpertLoad) sim.ExpertLoad {
		if sr.st.caches != nil {
			ld.Cached = sr.st.caches[g].cached(sr.st.placement[l], ord, g, ld.Active, total, m.FFN.TopK, balanced)
			pl.cached += int64(ld.Cached)
		}
		return ld
	}
	for l := range per {
		mid, endAt := (float64(l)+0.5)/float64(per), float64(l+1)/float64(per)
		if t > 1 {
			pl.phases = append(pl.phases, phase{kind: phAllReduce, at: mid, sizes: perGroup})
		}
		if !sr.moe[l] {
			if t > 1 {
				pl.phases = append(pl.phases, phase{kind: phAllReduce, at: endAt, sizes: perGroup})
			}
			continue
		}
		lp := sr.st.placement[l]
		ord++
		if !ep {
			if lp != nil { // every GPU reads its slice of the experts the skewed routing selects (or caches)
				var ll *layerLoad
				if draw {
					ll = sampleLoad(lp, []int{total}, m.FFN.TopK, t, hidden, in.exp.dispatch, rng)
				} else {
					ll = loadOf(lp, []int{total}, m.FFN.TopK, t, hidden, balanced, in.exp.dispatch)
				}
				pl.part.Experts[l] = withCache(l, 0, ll.loads[0])
				pl.straggle += int64(ll.loads[0].Rows)
				pl.mean += float64(ll.loads[0].Rows)
			}
			if t > 1 { // tensor-parallel experts: partial sums all-reduced
				pl.phases = append(pl.phases, phase{kind: phAllReduce, at: endAt, sizes: perGroup})
			}
			continue
		}
		ll, ok := loads[lp]
		switch {
		case draw:
			ll = sampleLoad(lp, tokens, m.FFN.TopK, t, hidden, in.exp.dispatch, rng)
		case !ok:
			ll = loadOf(lp, tokens, m.FFN.TopK, t, hidden, balanced, in.exp.dispatch)
			loads[lp] = ll
		}
		pl.part.Experts[l] = withCache(l, ll.reader, ll.heaviest())
		pl.straggle += int64(ll.loads[ll.straggler].Rows)
		all := 0
		for _, x := range ll.loads {
			all += x.Rows
		}
		pl.mean += float64(all) / float64(len(ll.loads))
		if ll.pairs == nil { // every GPU holds every token: one all-reduce of the partial outputs
			for _, x := range ll.loads {
				pl.local += int64(x.Rows)
			}
			pl.phases = append(pl.phases, phase{kind: phAllReduce, at: endAt, all: true,
				sizes: []unit.Bytes{unit.Bytes(total) * unit.Bytes(hidden) * actBytes}})
			continue
		}
		for i := range ll.pairs {
			for j, c := range ll.pairs[i] {
				if i == j {
					pl.local += int64(c)
				} else {
					pl.dispatch += int64(c)
					pl.sent += int64(ll.sent[i][j])
				}
			}
		}
		pl.phases = append(pl.phases, phase{kind: phDispatch, at: mid, ll: ll},
			phase{kind: phCombine, at: endAt, ll: ll})
		if t > 1 { // each rank got back its slice of the group's tokens
			pl.phases = append(pl.phases, phase{kind: phAllGather, at: endAt, sizes: perGroup})
		}
	}
	if s == len(in.stages)-1 && t > 1 { // logits of the vocabulary-parallel head, gathered
		pl.phases = append(pl.phases, phase{kind: phAllGather, at: 1, sizes: grp(sampled, m.VocabSize)})
	}
	if len(in.stages) == 1 {
		pl.ports = make([]PortStats, numPortKinds)
		for _, ph := range pl.phases {
			o := in.idlePhase(s, ph)
			pl.comm += o.d
			for i := range o.ports {
				pl.ports[i].Bytes += o.ports[i].Bytes
				pl.ports[i].Busy += o.ports[i].Busy
				pl.ports[i].Energy += o.ports[i].Energy
			}
		}
	}
	if draw { // drawn loads are never looked up again
		return pl, nil
	}
	if len(in.plans) >= 4096 {
		clear(in.plans)
	}
	// The cache keeps the plan's shape only: a hit takes its own rows
	// (groups), and the phase list is trimmed to its length. Rows and
	// append's spare room were most of the cluster group's live heap.
	kept := *pl
	kept.groups, kept.phases = nil, slices.Clone(pl.phases)
	in.plans[string(key)] = &kept
	return pl, nil
}

// heaviest is the attention group with the most tokens (then context).
func heaviest(tokens, ctx []int) int {
	h := 0
	for g := range tokens {
		if tokens[g] > tokens[h] || tokens[g] == tokens[h] && ctx[g] > ctx[h] {
			h = g
		}
	}
	return h
}

// runPhase runs one phase on f from t and returns its end.
func (in *Instance) runPhase(f *fabric, s int, t unit.Duration, ph phase) unit.Duration {
	sr := in.stages[s]
	in.stats.Simulated++
	end := t
	switch ph.kind {
	case phDispatch:
		return f.allToAll(t, sr.gpus, ph.ll.dispatch)
	case phCombine:
		return f.allToAll(t, sr.gpus, ph.ll.combine)
	case phAllReduce:
		if ph.all {
			return f.allReduce(t, sr.gpus, ph.sizes[0])
		}
		for g, grp := range sr.groups {
			end = max(end, f.allReduce(t, grp, ph.sizes[g]))
		}
	case phAllGather:
		for g, grp := range sr.groups {
			end = max(end, f.allGather(t, grp, ph.sizes[g]))
		}
	}
	return end
}

// idlePhase is a phase's duration and traffic on an idle fabric, simulated
// once per shape.
func (in *Instance) idlePhase(s int, ph phase) phaseOutcome {
	k := phaseKey{kind: ph.kind, stage: s, ll: ph.ll, all: ph.all}
	var b []byte
	for _, x := range ph.sizes {
		b = binary.AppendUvarint(b, uint64(x))
	}
	k.sizes = string(b)
	if o, ok := in.phases[k]; ok {
		return o
	}
	f := in.scratch
	for i := range f.ports {
		f.ports[i].free, f.ports[i].busy, f.ports[i].bytes = 0, 0, 0
	}
	o := phaseOutcome{d: in.runPhase(f, s, 0, ph), ports: f.stats()}
	if len(in.phases) >= 1<<14 {
		clear(in.phases)
	}
	in.phases[k] = o
	return o
}

// runPhases runs a stage pass of GPU work d with its phases on the
// instance's fabric from t (pipelines), and returns its end.
func (in *Instance) runPhases(s int, t, d unit.Duration, pl *plan) unit.Duration {
	done := unit.Duration(0)
	for _, ph := range pl.phases {
		at := unit.Duration(float64(d) * ph.at)
		t += at - done
		done = at
		t = in.runPhase(in.fab, s, t, ph)
	}
	return t + d - done
}
