// Package pool is dashlab's one worker pool: n independent jobs (simulations, sweep
// points) on a bounded number of goroutines, one job per goroutine at a time, with the
// results handed over in job order. reproduce.Sweep, the sweep runner
// (reference/sweep), the notebooks' sweeps (nb.SweepNamed), the reproduction's cluster
// comparisons and the GPU timing model's leave-one-out folds all run on it, so
// cancellation, ordering, bounded memory and progress behave alike everywhere.
package pool

import (
	"context"
	"runtime"
	"sync"
)

// Options tune a Run.
type Options struct {
	// Workers bounds the jobs run at once (0: GOMAXPROCS).
	Workers int
	// Completed, when set, is told how many jobs have finished (done of total), in the
	// order they finish, from one goroutine at a time: once before the first starts,
	// then as each ends. (Emit sees them in job order.)
	Completed func(done, total int)
}

// Run runs job(i) for every i in [0, n) on Options.Workers goroutines and hands each
// result to emit in index order, from the calling goroutine, as soon as it and every
// earlier one are done; at most 4 x workers + 16 results are in flight or waiting for an
// earlier one, so memory does not grow with n. A job reports ok false when ctx
// interrupted it: its result is not one. When ctx is cancelled no further job starts
// and no further result is handed over (results computed but not handed over are
// dropped), and Run returns ctx.Err(). An error from emit stops the run and is
// returned. Run returns how many results it handed over.
func Run[T any](ctx context.Context, n int, o Options, job func(ctx context.Context, i int) (v T, ok bool), emit func(i int, v T) error) (int, error) {
	workers := o.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	window := 4*workers + 16
	tokens := make(chan struct{}, window)
	jobs := make(chan int)
	type result struct {
		i  int
		v  T
		ok bool // false: interrupted, not a result
	}
	results := make(chan result, window)
	go func() {
		defer close(jobs)
		for i := range n {
			if ctx.Err() != nil {
				return
			}
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var mu sync.Mutex
	completed := 0
	if o.Completed != nil {
		o.Completed(0, n)
	}
	var wg sync.WaitGroup
	for range min(workers, max(1, n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if ctx.Err() != nil { // cancelled after the hand-over: not started
					results <- result{i: i}
					continue
				}
				v, ok := job(ctx, i)
				if ok && o.Completed != nil {
					mu.Lock()
					completed++
					o.Completed(completed, n)
					mu.Unlock()
				}
				results <- result{i, v, ok}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	pending := map[int]result{}
	next := 0
	var emitErr error
	for r := range results {
		pending[r.i] = r
		// once cancelled, no further result is handed over, even one already computed
		for emitErr == nil && ctx.Err() == nil {
			p, ok := pending[next]
			if !ok || !p.ok { // an interrupted job stops the results here
				break
			}
			delete(pending, next)
			if emitErr = emit(next, p.v); emitErr != nil {
				cancel()
				break
			}
			next++
			<-tokens
		}
	}
	switch {
	case emitErr != nil:
		return next, emitErr
	case next < n:
		if err := ctx.Err(); err != nil {
			return next, err
		}
	}
	return next, nil
}

// Map runs job(i) for every i in [0, n) and returns the results in index order (no
// cancellation).
func Map[T any](n int, o Options, job func(i int) T) []T {
	out := make([]T, n)
	_, _ = Run(context.Background(), n, o, func(_ context.Context, i int) (T, bool) { return job(i), true },
		func(i int, v T) error { out[i] = v; return nil })
	return out
}
