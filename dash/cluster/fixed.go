package cluster

import (
	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

// Result is what one fixed-batch cluster run measured: every instance runs
// the experiment's batch (prefill of B prompts, then L_out - 1 decode
// steps), side by side.
type Result struct {
	// Name, Model, Cluster and Memory say what ran.
	Name    string `json:"name"`
	Model   string `json:"model"`
	Cluster string `json:"cluster"`
	Memory  string `json:"memory"`
	// Parallel is the layout; GPUs the GPUs all instances use.
	Parallel ParallelSpec `json:"parallel"`
	GPUs     int          `json:"gpus"`
	// Batch, Prompt and Output are one instance's workload.
	Batch  int `json:"batch"`
	Prompt int `json:"prompt_tokens"`
	Output int `json:"output_tokens"`
	// TTFT, TPOT and E2E are as in sim.Result.
	TTFT unit.Duration `json:"ttft_ns"`
	TPOT unit.Duration `json:"tpot_ns"`
	E2E  unit.Duration `json:"e2e_ns"`
	// Throughput and DecodeThroughput are output tokens per second of all
	// instances (B x L_out / E2E and B x (L_out-1) / (E2E - TTFT), times
	// the instances); PerGPU divides the decode throughput by the GPUs.
	Throughput       float64 `json:"throughput_tok_s"`
	DecodeThroughput float64 `json:"decode_throughput_tok_s"`
	PerGPU           float64 `json:"decode_throughput_per_gpu_tok_s"`
	// CommShare is the collectives' share of the instance's time.
	CommShare float64 `json:"comm_share"`
	// Stats is one instance's activity.
	Stats Stats `json:"stats"`
	// KV is the instance's KV capacity.
	KV KV `json:"kv"`
}

// KV is an instance's KV-cache capacity and what its workload uses.
type KV struct {
	// PerToken is one token's KV on one GPU of each stage, summed over the
	// stages (a tensor-parallel group splits it, or replicates it when it
	// has fewer KV heads than GPUs).
	PerToken unit.Bytes `json:"per_token_bytes"`
	// Tokens is how many tokens' KV the instance can hold (the smallest
	// stage's, times its attention groups).
	Tokens int64 `json:"tokens"`
	// Used is the workload's tokens (B x (L_in + L_out)); Headroom is
	// Tokens / Used.
	Used     int64   `json:"used_tokens"`
	Headroom float64 `json:"headroom"`
}

// Capacity is the instance's KV capacity for serving: the stages' GPU
// plans, per attention group, in the bytes of one token's KV over all
// stages.
func (e Experiment) Capacity() serve.KVCapacity {
	var per unit.Bytes
	tokHBF, tokHBM := int64(-1), int64(-1)
	hbmOnly := false
	for _, st := range e.stages {
		kv := serve.PlanKV(st.GPU)
		per += kv.PerToken
		hbmOnly = hbmOnly || kv.HBMOnly
		if kv.PerToken <= 0 {
			continue
		}
		if h := int64(kv.HBF / kv.PerToken); tokHBF < 0 || h < tokHBF {
			tokHBF = h
		}
		if h := int64(kv.HBM / kv.PerToken); tokHBM < 0 || h < tokHBM {
			tokHBM = h
		}
	}
	a := int64(e.parallel.AttentionGroups())
	return serve.KVCapacity{HBF: unit.Bytes(max(0, tokHBF)*a) * per, HBM: unit.Bytes(max(0, tokHBM)*a) * per, PerToken: per, HBMOnly: hbmOnly}
}

// KVOf is the instance's KV capacity against the fixed batch.
func (e Experiment) KVOf() KV {
	c := e.Capacity()
	k := KV{PerToken: c.PerToken}
	if c.PerToken > 0 {
		k.Tokens = int64((c.HBF + c.HBM) / c.PerToken)
	}
	w := e.workload
	k.Used = int64(w.Batch) * int64(w.Prompt+w.Output)
	if k.Used > 0 {
		k.Headroom = float64(k.Tokens) / float64(k.Used)
	}
	return k
}

// Run simulates the fixed batch on one instance (the others run the same
// work on their own GPUs) and reports all instances' throughput.
func Run(e Experiment) (Result, error) {
	in, err := NewInstance(e)
	if err != nil {
		return Result{}, err
	}
	w := e.workload
	rows := make([]sim.Row, w.Batch)
	for i := range rows {
		rows[i] = sim.Row{Tokens: w.Prompt, Prompt: w.Prompt}
	}
	if _, err := in.Run(rows); err != nil {
		return Result{}, err
	}
	ttft := in.Now()
	for s := 1; s < w.Output; s++ {
		for i := range rows {
			rows[i] = sim.Row{Tokens: 1, Cached: w.Prompt + s - 1, Prompt: w.Prompt}
		}
		if _, err := in.Run(rows); err != nil {
			return Result{}, err
		}
	}
	p := e.parallel
	r := Result{Name: e.Name(), Model: e.model.ID, Cluster: e.spec.ID, Memory: e.memory, Parallel: p, GPUs: p.GPUs(),
		Batch: w.Batch, Prompt: w.Prompt, Output: w.Output, TTFT: ttft, E2E: in.Now(), Stats: in.Stats(), KV: e.KVOf()}
	d := float64(p.Data)
	if r.E2E > 0 {
		r.Throughput = d * float64(w.Batch*w.Output) / r.E2E.Seconds()
		r.CommShare = r.Stats.CommTime.Seconds() / r.E2E.Seconds()
	}
	if w.Output > 1 {
		r.TPOT = (r.E2E - r.TTFT) / unit.Duration(w.Output-1)
		if dec := (r.E2E - r.TTFT).Seconds(); dec > 0 {
			r.DecodeThroughput = d * float64(w.Batch*(w.Output-1)) / dec
		}
	}
	r.PerGPU = r.DecodeThroughput / float64(p.GPUs())
	return r, nil
}
