package cluster

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/dash/sim"
)

// Routers: how requests are dealt to instances. Both decide at arrival
// from the requests alone (not from the instances' state), so that the
// instances simulate independently, in parallel.
const (
	// RouteRoundRobin deals request i to instance i mod Data.
	RouteRoundRobin = "round-robin"
	// RouteLeastWork deals each request to the instance with the fewest
	// tokens (prompt + output) dealt so far.
	RouteLeastWork = "least-work"
)

// ServeConfig is serving on a cluster: Data instances of the experiment's
// layout behind a router, each with the iteration-level scheduler of
// package serve.
type ServeConfig struct {
	// Experiment is the instance layout on the cluster.
	Experiment Experiment
	// Scheduler is the scheduler of one attention group; an instance's
	// scheduler admits MaxBatch and spends TokenBudget times its attention
	// groups per iteration (each group batches like one GPU).
	Scheduler serve.Scheduler
	// Router is round-robin (default) or least-work.
	Router string
	// Warmup requests (in arrival order, over all instances) are not
	// measured; the next Measure are (0: all the rest).
	Warmup, Measure int
	// Approx is serve's optional approximate pass model.
	Approx serve.Approx
	// shared, when set (a capacity search), makes the runs share their
	// stage passes (shared.go).
	shared *sharedPasses
}

// InstanceScheduler is the scheduler of one instance.
func (c ServeConfig) InstanceScheduler() serve.Scheduler {
	s := c.Scheduler
	a := c.Experiment.parallel.AttentionGroups()
	s.MaxBatch *= a
	s.TokenBudget *= a
	return s
}

// Serving is what serving on a cluster measured.
type Serving struct {
	// Name says what served; GPUs counts the GPUs of all instances.
	Name string `json:"name"`
	GPUs int    `json:"gpus"`
	// Requests is the trace's length; Measured the measured window's
	// requests (ids in the whole trace's arrival order).
	Requests int                    `json:"requests"`
	Measured []serve.RequestMetrics `json:"measured"`
	// Summary is the window's distributions and rates (gaps not pooled).
	Summary serve.Summary `json:"summary"`
	// TokensPerS is the output tokens per second served: the window's
	// arrival rate times the mean output of its completed requests, over
	// the window's requests (completions that fall after the window count);
	// PerGPU divides it by the GPUs.
	TokensPerS float64 `json:"tokens_per_s"`
	PerGPU     float64 `json:"tokens_per_s_per_gpu"`
	// Rejected counts requests that could never fit.
	Rejected int `json:"rejected"`
	// Instances are the instances' own runs.
	Instances []*serve.Run `json:"-"`
	// Stats sums the instances' activity.
	Stats Stats `json:"stats"`
	// Interrupted reports a cancelled run.
	Interrupted bool `json:"interrupted"`
}

// deal assigns requests to n instances.
func deal(reqs []serve.Request, n int, router string) ([][]serve.Request, [][]int) {
	out := make([][]serve.Request, n)
	ids := make([][]int, n)
	work := make([]int, n)
	for i, r := range reqs {
		k := i % n
		if router == RouteLeastWork {
			k = 0
			for j := 1; j < n; j++ {
				if work[j] < work[k] {
					k = j
				}
			}
		}
		work[k] += r.Prompt + r.Output
		c := r
		c.ID = len(out[k])
		out[k] = append(out[k], c)
		ids[k] = append(ids[k], r.ID)
	}
	return out, ids
}

// ServingWorkload is the per-GPU workload that sizes the GPUs' plans for
// serving: one attention group's iteration budget as one prefill.
func ServingWorkload(s serve.Scheduler) dash.WorkloadSpec {
	return dash.WorkloadSpec{Batch: 1, Prompt: s.TokenBudget, Output: 1}
}

// Serve replays reqs (sorted by arrival, ids in order) on the cluster.
func Serve(ctx context.Context, cfg ServeConfig, reqs []serve.Request) (*Serving, error) {
	e := cfg.Experiment
	if !e.Valid() {
		return nil, errors.New("cluster: serving needs a built experiment")
	}
	switch cfg.Router {
	case "", RouteRoundRobin, RouteLeastWork:
	default:
		return nil, fmt.Errorf("router = %q: must be %s or %s", cfg.Router, RouteRoundRobin, RouteLeastWork)
	}
	if cfg.Warmup < 0 || cfg.Measure < 0 {
		return nil, fmt.Errorf("warmup = %d, measure = %d: must not be negative", cfg.Warmup, cfg.Measure)
	}
	if err := cfg.Scheduler.Validate(); err != nil {
		return nil, err
	}
	w := dash.WorkloadSpec{Batch: e.parallel.AttentionGroups(), Prompt: cfg.Scheduler.TokenBudget, Output: 1}
	e, memos, ok, err := cfg.shared.layout(e, w)
	if err != nil {
		return nil, err
	}
	if !ok {
		if e, err = cfg.Experiment.WithWorkload(w); err != nil {
			return nil, err
		}
	}
	out := &Serving{Name: e.Name(), GPUs: e.parallel.GPUs(), Requests: len(reqs)}
	all, err := serveInstances(ctx, e, memos, cfg, reqs, out)
	if err != nil {
		return nil, err
	}

	pool(out, all, reqs, cfg.Warmup, cfg.Measure, e.model.ID, e.memory, cfg.Scheduler.Mode)
	return out, nil
}

// serveInstances deals reqs to e's instances and simulates them in
// parallel (their stage Passers sharing memos, one per stage, unless nil);
// it returns every request's metrics (ids in reqs) and fills out's
// instance runs, rejections and stats.
func serveInstances(ctx context.Context, e Experiment, memos []*sim.PassMemo, cfg ServeConfig, reqs []serve.Request, out *Serving) ([]serve.RequestMetrics, error) {
	n := e.parallel.Data
	parts, ids := deal(reqs, n, cfg.Router)
	runs := make([]*serve.Run, n)
	stats := make([]Stats, n)
	errs := make([]error, n)
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for k := range n {
		if len(parts[k]) == 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			in, err := NewInstance(e)
			if err == nil && memos != nil {
				err = in.shareMemos(memos)
			}
			if err != nil {
				errs[k] = err
				return
			}
			sc := serve.Config{Experiment: e.stages[0].GPU, Scheduler: cfg.InstanceScheduler(), Approx: cfg.Approx}
			runs[k], errs[k] = serve.SimulateOn(ctx, sc, in, e.Capacity(), parts[k], nil)
			stats[k] = in.Stats()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var all []serve.RequestMetrics
	for k, r := range runs {
		if r == nil {
			continue
		}
		out.Instances = append(out.Instances, r)
		out.Rejected += len(r.Rejections)
		out.Interrupted = out.Interrupted || r.Interrupted
		for _, m := range r.Measured {
			m.ID = ids[k][m.ID]
			all = append(all, m)
		}
		out.Stats = out.Stats.add(stats[k])
	}
	return all, nil
}

// pool summarises the requests' metrics (ids in the trace's order) over
// the window of Measure requests after Warmup.
func pool(out *Serving, all []serve.RequestMetrics, reqs []serve.Request, warmup, measure int, model, system string, mode serve.Mode) {
	slices.SortFunc(all, func(a, b serve.RequestMetrics) int { return a.ID - b.ID })
	lo, hi := min(warmup, len(reqs)), len(reqs)
	if measure > 0 {
		hi = min(hi, lo+measure)
	}
	pooled := &serve.Run{Model: model, System: system, Mode: mode, Requests: len(reqs)}
	if lo < hi {
		pooled.WindowStart, pooled.WindowEnd = reqs[lo].Arrival, reqs[hi-1].Arrival
	}
	pooled.WindowRequests = hi - lo
	for _, m := range all {
		fin := m.Arrival + m.E2E
		if a, b := max(m.Arrival, pooled.WindowStart), min(fin, pooled.WindowEnd); b > a {
			pooled.InSystem += (b - a).Seconds()
		}
		if fin >= pooled.WindowStart && fin <= pooled.WindowEnd {
			pooled.CompletedInWindow++
		}
		if m.ID >= lo && m.ID < hi {
			pooled.Measured = append(pooled.Measured, m)
		}
	}
	out.Measured = pooled.Measured
	out.Summary = pooled.Summarize()
	// Throughput: the window's arrival rate times the mean output of its
	// requests, times the share of them that completed (a window too short
	// for its requests to finish within it still measures the rate served).
	if n := hi - lo; n > 0 && len(out.Measured) > 0 {
		outTok := 0
		for _, m := range out.Measured {
			outTok += m.Output
		}
		out.TokensPerS = out.Summary.OfferedRPS * float64(outTok) / float64(n)
		out.PerGPU = out.TokensPerS / float64(out.GPUs)
	}
}

// add sums two instances' stats.
func (s Stats) add(o Stats) Stats {
	s.Passes += o.Passes
	s.StagePasses += o.StagePasses
	s.GPUTime += o.GPUTime
	s.CommTime += o.CommTime
	s.Collectives += o.Collectives
	s.Simulated += o.Simulated
	s.HBMRead += o.HBMRead
	s.DirectRead += o.DirectRead
	s.RelayRead += o.RelayRead
	s.Written += o.Written
	s.DispatchPairs += o.DispatchPairs
	s.LocalPairs += o.LocalPairs
	if len(s.Ports) == 0 {
		s.Ports = append([]PortStats(nil), o.Ports...)
		return s
	}
	for i := range o.Ports {
		s.Ports[i].Bytes += o.Ports[i].Bytes
		s.Ports[i].Busy += o.Ports[i].Busy
		s.Ports[i].Energy += o.Ports[i].Energy
	}
	return s
}

var _ serve.Engine = (*Instance)(nil)
