package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/dash/unit"
)

// DisaggConfig is prefill/decode disaggregation: prefill instances (say on
// HBM-only GPUs) compute each prompt's KV and first token; the KV moves
// over the network to a decode instance (say on DASH GPUs), which generates
// the rest.
type DisaggConfig struct {
	// Prefill and Decode are the two pools (each on its own cluster, its
	// own layout and Data instances).
	Prefill, Decode ServeConfig
	// Warmup and Measure are the measured window over the whole trace.
	Warmup, Measure int
}

// Disaggregated is what disaggregated serving measured.
type Disaggregated struct {
	// Serving is the requests' end-to-end metrics: TTFT from the prefill
	// pool, E2E to the last token of the decode pool; GPUs both pools'.
	Serving
	// Prefill and Decode are the pools' own runs (decode latencies count
	// from the KV's arrival).
	Prefill, Decode *Serving `json:"-"`
	// Transfer is the KV transfers' mean and longest time (from the first
	// token to the KV's arrival at the decode instance, queueing on the
	// NICs included), and KVBytes what they moved.
	TransferMean, TransferMax unit.Duration `json:"-"`
	KVBytes                   unit.Bytes    `json:"kv_bytes"`
}

// ServeDisaggregated replays reqs through a prefill pool and a decode pool.
// Each request's KV (its prompt's, the whole model's) moves from GPU i of
// its prefill instance to GPU i of its decode instance's first attention
// group, split over the decode group's tensor-parallel GPUs, over the
// nodes' NICs (both pools' nodes on one fabric with the prefill cluster's
// network); concurrent transfers queue on shared NICs. The decode pool's
// own collectives are not on that fabric (see Instance).
func ServeDisaggregated(ctx context.Context, cfg DisaggConfig, reqs []serve.Request) (*Disaggregated, error) {
	if cfg.Warmup < 0 || cfg.Measure < 0 {
		return nil, fmt.Errorf("warmup = %d, measure = %d: must not be negative", cfg.Warmup, cfg.Measure)
	}
	pe, de := cfg.Prefill.Experiment, cfg.Decode.Experiment
	if !pe.Valid() || !de.Valid() {
		return nil, errors.New("cluster: disaggregation needs built prefill and decode experiments")
	}
	if pe.model.ID != de.model.ID {
		return nil, fmt.Errorf("prefill model %s and decode model %s differ", pe.model.ID, de.model.ID)
	}
	inv, err := pe.model.Inventory()
	if err != nil {
		return nil, err
	}
	kvTok := inv.Footprint(pe.model).KVBytesPerTokenPerLayer * unit.Bytes(pe.model.NumLayers)
	// Prefill: every request yields one token.
	pre := make([]serve.Request, len(reqs))
	for i, r := range reqs {
		pre[i] = r
		pre[i].Output = 1
	}
	pc := cfg.Prefill
	pc.Warmup, pc.Measure = 0, 0
	prefill, err := Serve(ctx, pc, pre)
	if err != nil {
		return nil, fmt.Errorf("prefill pool: %w", err)
	}
	// The KV transfers, in order of prefill completion.
	done := make([]unit.Duration, len(reqs))
	var order []int
	for _, m := range prefill.Measured {
		done[m.ID] = m.Arrival + m.TTFT
		order = append(order, m.ID)
	}
	slices.SortStableFunc(order, func(a, b int) int { return int(done[a] - done[b]) })
	pg, dg := pe.parallel.InstanceGPUs(), de.parallel.InstanceGPUs()
	per := pe.spec.GPUsPerNode
	pNodes := (pe.parallel.GPUs() + per - 1) / per
	dNodes := (de.parallel.GPUs() + per - 1) / per
	fab := newFabric(pe.spec.Interconnect, pNodes+dNodes, per)
	t := de.parallel.Tensor
	arrive := make([]unit.Duration, len(reqs))
	out := &Disaggregated{}
	var sum unit.Duration
	for k, id := range order {
		r := reqs[id]
		kv := unit.Bytes(r.Prompt) * kvTok
		out.KVBytes += kv
		src := (id%pe.parallel.Data)*pg + k%pg
		dst := pNodes*per + (k%de.parallel.Data)*dg
		end := done[id]
		for i, part := range segments(kv, t) {
			end = max(end, fab.p2p(done[id], src, dst+i, part))
		}
		arrive[id] = end
		d := end - done[id]
		sum += d
		out.TransferMax = max(out.TransferMax, d)
	}
	if len(order) > 0 {
		out.TransferMean = sum / unit.Duration(len(order))
	}
	// Decode: the prefilled requests in order of arrival.
	dec := make([]serve.Request, 0, len(order))
	byArrival := slices.Clone(order)
	slices.SortStableFunc(byArrival, func(a, b int) int { return int(arrive[a] - arrive[b]) })
	var back []int
	for _, id := range byArrival {
		if reqs[id].Output < 2 {
			continue
		}
		r := reqs[id]
		dec = append(dec, serve.Request{ID: len(dec), Arrival: arrive[id], Prompt: r.Prompt, Output: r.Output, Prefilled: true})
		back = append(back, id)
	}
	var decode *Serving
	if len(dec) > 0 {
		dc := cfg.Decode
		dc.Warmup, dc.Measure = 0, 0
		if decode, err = Serve(ctx, dc, dec); err != nil {
			return nil, fmt.Errorf("decode pool: %w", err)
		}
	}
	var all []serve.RequestMetrics
	pm := map[int]serve.RequestMetrics{}
	for _, m := range prefill.Measured {
		pm[m.ID] = m
	}
	if decode != nil {
		for _, m := range decode.Measured {
			id := back[m.ID]
			p := pm[id]
			r := reqs[id]
			e2e := m.Arrival + m.E2E - r.Arrival
			all = append(all, serve.RequestMetrics{ID: id, Prompt: r.Prompt, Output: r.Output, Arrival: r.Arrival,
				Queue: p.Queue, TTFT: p.TTFT, E2E: e2e, TPOT: (e2e - p.TTFT) / unit.Duration(r.Output-1)})
			delete(pm, id)
		}
	}
	for _, p := range pm { // one-token requests end at prefill
		if reqs[p.ID].Output < 2 {
			all = append(all, p)
		}
	}
	out.Name = fmt.Sprintf("prefill %s + decode %s", pe.Name(), de.Name())
	out.GPUs = pe.parallel.GPUs() + de.parallel.GPUs()
	out.Requests = len(reqs)
	out.Prefill, out.Decode = prefill, decode
	out.Rejected = prefill.Rejected
	if decode != nil {
		out.Rejected += decode.Rejected
		out.Stats = prefill.Stats.add(decode.Stats)
		out.Interrupted = prefill.Interrupted || decode.Interrupted
	}
	pool(&out.Serving, all, reqs, cfg.Warmup, cfg.Measure, pe.model.ID, "prefill "+pe.memory+" + decode "+de.memory, cfg.Decode.Scheduler.Mode)
	return out, nil
}
