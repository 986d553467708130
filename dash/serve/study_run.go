package serve

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/dashlab/dashlab/dash/sim"
)

// StudyProgress is reported as a study's simulations finish.
type StudyProgress struct {
	// Phase is "saturation" or "loads".
	Phase string
	// Done and Total count the phase's simulations.
	Done, Total int
}

// Point is one trace of a study: a system at a load with a seed.
type Point struct {
	// System, Load (fraction of the baseline) and Seed identify the trace;
	// RateRPS is its arrival rate.
	System  string  `json:"system"`
	Load    float64 `json:"load"`
	Seed    uint64  `json:"seed"`
	RateRPS float64 `json:"rate_rps"`
	// Summary is the trace's measured numbers.
	Summary Summary `json:"summary"`
	// Run is the whole run when the study keeps runs.
	Run *Run `json:"run,omitempty"`
}

// Across is a statistic's mean, minimum and maximum over seeds.
type Across struct {
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// MetricAcross is a latency metric's per-seed statistics over seeds.
type MetricAcross struct {
	Mean Across `json:"mean"`
	P50  Across `json:"p50"`
	P90  Across `json:"p90"`
	P99  Across `json:"p99"`
}

// Aggregate is one system at one load over all seeds.
type Aggregate struct {
	// System and Load identify it; RateRPS is the arrival rate.
	System  string  `json:"system"`
	Load    float64 `json:"load"`
	RateRPS float64 `json:"rate_rps"`
	// Seeds is the number of traces.
	Seeds int `json:"seeds"`
	// The latency metrics (units in the names) and the completed throughput.
	TTFTs         MetricAcross `json:"ttft_s"`
	TPOTms        MetricAcross `json:"tpot_ms"`
	E2Es          MetricAcross `json:"e2e_s"`
	Queues        MetricAcross `json:"queue_s"`
	GapMS         MetricAcross `json:"gap_ms"`
	ThroughputRPS Across       `json:"throughput_rps"`
}

// StudyResult is what a study measured.
type StudyResult struct {
	// Model is the model id; Mode the schedule of the load runs.
	Model string `json:"model"`
	Mode  Mode   `json:"mode"`
	// Scheduler, Warmup and Measure are the study's settings.
	Scheduler Scheduler `json:"scheduler"`
	Warmup    int       `json:"warmup"`
	Measure   int       `json:"measure"`
	// Saturation is each system's backlogged throughput per mode.
	Saturation []Saturation `json:"saturation"`
	// BaselineRPS is the throughput that defines load 1.0.
	BaselineRPS float64 `json:"baseline_rps"`
	// Points are the traces; Aggregates their statistics over seeds, by
	// system then load.
	Points     []Point     `json:"points"`
	Aggregates []Aggregate `json:"aggregates"`
	// Approx is the pass model's approximation (zero: exact).
	Approx Approx `json:"approx"`
	// Wall is the real time the study took.
	Wall time.Duration `json:"wall_ns"`
}

// SaturationOf returns a system's backlogged throughput in a mode.
func (r *StudyResult) SaturationOf(system string, mode Mode) (Saturation, bool) {
	for _, s := range r.Saturation {
		if s.System == system && s.Mode == mode {
			return s, true
		}
	}
	return Saturation{}, false
}

// AggregateOf returns a system's statistics at a load.
func (r *StudyResult) AggregateOf(system string, load float64) (Aggregate, bool) {
	for _, a := range r.Aggregates {
		if a.System == system && a.Load == load {
			return a, true
		}
	}
	return Aggregate{}, false
}

// Run measures every system's saturation, then replays the traces. It
// stops at the first error or when ctx is cancelled (returning ctx's
// error). progress, if not nil, is called from one goroutine at a time.
func (s Study) Run(ctx context.Context, progress func(StudyProgress)) (*StudyResult, error) {
	sp := s.spec
	start := time.Now()
	res := &StudyResult{Model: sp.Systems[0].Model().ID, Mode: sp.Scheduler.Mode, Scheduler: sp.Scheduler,
		Warmup: sp.Warmup, Measure: sp.Measure, Approx: sp.Approx}
	// Every simulation of a system (both saturation modes, every load and
	// seed) shares one memo of measured passes.
	memos := make([]*sim.PassMemo, len(sp.Systems))
	for i, e := range sp.Systems {
		memos[i] = sim.NewPassMemo(e)
	}
	cfg := func(i int, m Mode) Config {
		sc := sp.Scheduler
		sc.Mode = m
		return Config{Experiment: sp.Systems[i], Scheduler: sc, Warmup: sp.Warmup, Measure: sp.Measure,
			Series: sp.Series, Approx: sp.Approx, Memo: memos[i]}
	}
	modes := sp.SaturationModes
	if len(sp.Loads) > 0 && !containsMode(modes, sp.Scheduler.Mode) {
		modes = append(modes, sp.Scheduler.Mode)
	}
	res.Saturation = make([]Saturation, len(sp.Systems)*len(modes))
	var jobs []func(context.Context) error
	for i, e := range sp.Systems {
		for j, m := range modes {
			jobs = append(jobs, func(ctx context.Context) error {
				sat, err := MeasureSaturation(ctx, cfg(i, m), sp.Prompt, sp.Output, 1)
				if err != nil {
					return fmt.Errorf("saturation of %s (%v): %w", e.System().ID, m, err)
				}
				res.Saturation[i*len(modes)+j] = sat
				return nil
			})
		}
	}
	if err := parallel(ctx, sp.Workers, jobs, func(d, t int) { report(progress, "saturation", d, t) }); err != nil {
		return nil, err
	}
	if len(sp.Loads) == 0 {
		res.Wall = time.Since(start)
		return res, nil
	}
	base, _ := res.SaturationOf(sp.Baseline, sp.Scheduler.Mode)
	res.BaselineRPS = base.RPS
	n := sp.Warmup + sp.Measure
	res.Points = make([]Point, 0, len(sp.Systems)*len(sp.Loads)*sp.Seeds)
	jobs = jobs[:0]
	for i, e := range sp.Systems {
		for _, load := range sp.Loads {
			for seed := range uint64(sp.Seeds) {
				k := len(res.Points)
				rate := load * base.RPS
				res.Points = append(res.Points, Point{System: e.System().ID, Load: load, Seed: seed + 1, RateRPS: rate})
				jobs = append(jobs, func(ctx context.Context) error {
					reqs, err := Poisson(rate, n, sp.Prompt, sp.Output, seed+1)
					if err != nil {
						return err
					}
					run, err := Simulate(ctx, cfg(i, sp.Scheduler.Mode), reqs, nil)
					if err != nil {
						return fmt.Errorf("%s at load %v seed %d: %w", e.System().ID, load, seed+1, err)
					}
					if run.Interrupted {
						return ctx.Err()
					}
					res.Points[k].Summary = run.Summarize()
					if sp.KeepRuns || sp.Series {
						res.Points[k].Run = run
					}
					return nil
				})
			}
		}
	}
	if err := parallel(ctx, sp.Workers, jobs, func(d, t int) { report(progress, "loads", d, t) }); err != nil {
		return nil, err
	}
	res.Aggregates = aggregate(res.Points)
	res.Wall = time.Since(start)
	return res, nil
}

func containsMode(ms []Mode, m Mode) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

func report(f func(StudyProgress), phase string, done, total int) {
	if f != nil {
		f(StudyProgress{Phase: phase, Done: done, Total: total})
	}
}

// parallel runs jobs on at most workers goroutines (0: GOMAXPROCS), stops
// handing out jobs after the first error or cancellation, and calls done
// (serialised) after each job.
func parallel(ctx context.Context, workers int, jobs []func(context.Context) error, done func(d, t int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var first error
	finished := 0
	next := make(chan func(context.Context) error)
	var wg sync.WaitGroup
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			for job := range next {
				err := job(ctx)
				mu.Lock()
				if err != nil && first == nil {
					first = err
					cancel()
				}
				finished++
				if done != nil {
					done(finished, len(jobs))
				}
				mu.Unlock()
			}
		})
	}
feed:
	for _, j := range jobs {
		select {
		case next <- j:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

// aggregate computes each (system, load)'s statistics over seeds, in the
// points' order.
func aggregate(points []Point) []Aggregate {
	var out []Aggregate
	idx := map[[2]any]int{}
	var groups [][]Summary
	for _, p := range points {
		k := [2]any{p.System, p.Load}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, Aggregate{System: p.System, Load: p.Load, RateRPS: p.RateRPS})
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], p.Summary)
	}
	for i := range out {
		g := groups[i]
		a := &out[i]
		a.Seeds = len(g)
		a.TTFTs = metricAcross(g, func(s Summary) Dist { return s.TTFTs })
		a.TPOTms = metricAcross(g, func(s Summary) Dist { return s.TPOTms })
		a.E2Es = metricAcross(g, func(s Summary) Dist { return s.E2Es })
		a.Queues = metricAcross(g, func(s Summary) Dist { return s.Queues })
		a.GapMS = metricAcross(g, func(s Summary) Dist { return s.GapMS })
		a.ThroughputRPS = across(g, func(s Summary) float64 { return s.ThroughputRPS })
	}
	return out
}

func metricAcross(g []Summary, f func(Summary) Dist) MetricAcross {
	return MetricAcross{
		Mean: across(g, func(s Summary) float64 { return f(s).Mean }),
		P50:  across(g, func(s Summary) float64 { return f(s).P50 }),
		P90:  across(g, func(s Summary) float64 { return f(s).P90 }),
		P99:  across(g, func(s Summary) float64 { return f(s).P99 }),
	}
}

func across(g []Summary, f func(Summary) float64) Across {
	if len(g) == 0 {
		return Across{}
	}
	a := Across{Min: f(g[0]), Max: f(g[0])}
	for _, s := range g {
		v := f(s)
		a.Mean += v
		a.Min, a.Max = min(a.Min, v), max(a.Max, v)
	}
	a.Mean /= float64(len(g))
	return a
}
