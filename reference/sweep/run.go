package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/dashlab/dashlab/dash"
)

// RunOptions controls [Plan.Run].
type RunOptions struct {
	// Workers is the number of simulations run at once (0: one per CPU).
	Workers int
	// Shard selects part of the sweep (zero: all of it).
	Shard Shard
	// Done reports whether a point, by key, has a row already; those
	// points are skipped.
	Done func(key string) bool
	// Progress, when set, is called after each row with the rows handed
	// over and the number this run will hand over.
	Progress func(done, total int)
}

// Run runs the plan's points (those of the shard, less those done) on
// opts.Workers goroutines and hands each row to emit in point order. A
// point that fails gives a row with its error; the sweep goes on. When ctx
// is cancelled, no new point starts and no further row is handed over (rows
// computed but not yet handed over are dropped: a resume runs them again),
// and Run returns ctx.Err(). An error from emit stops the run and is
// returned.
func (p *Plan) Run(ctx context.Context, opts RunOptions, emit func(Row) error) error {
	todo, err := p.todo(opts)
	if err != nil {
		return err
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// tokens bounds the rows in flight or waiting for an earlier one, so
	// memory does not grow with the sweep.
	window := 4*workers + 16
	tokens := make(chan struct{}, window)
	jobs := make(chan int)
	type done struct {
		pos int
		row Row
		ok  bool // false: the point was interrupted (not written)
	}
	results := make(chan done, window)
	go func() {
		defer close(jobs)
		for pos := range todo {
			if ctx.Err() != nil {
				return
			}
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- pos:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range min(workers, max(1, len(todo))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for pos := range jobs {
				if ctx.Err() != nil { // cancelled after the hand-over: not started
					results <- done{pos: pos}
					continue
				}
				row, ok := p.runPoint(ctx, todo[pos])
				results <- done{pos, row, ok}
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	pending := map[int]done{}
	next := 0
	var emitErr error
	for d := range results {
		pending[d.pos] = d
		// once cancelled, no further row is written, even one already
		// computed: a cancelled run stops where it is (resume runs the rest)
		for emitErr == nil && ctx.Err() == nil {
			dn, ok := pending[next]
			if !ok || !dn.ok { // an interrupted point stops the rows here
				break
			}
			r := dn.row
			delete(pending, next)
			if emitErr = emit(r); emitErr != nil {
				cancel()
				break
			}
			next++
			<-tokens
			if opts.Progress != nil {
				opts.Progress(next, len(todo))
			}
		}
	}
	switch {
	case emitErr != nil:
		return emitErr
	case next < len(todo):
		if err := ctx.Err(); err != nil {
			return err
		}
		return fmt.Errorf("sweep stopped after %d of %d points", next, len(todo))
	}
	return nil
}

// todo lists the points to run: the shard's, less those done.
func (p *Plan) todo(opts RunOptions) ([]int, error) {
	points, err := p.ShardPoints(opts.Shard)
	if err != nil {
		return nil, err
	}
	if opts.Done == nil {
		return points, nil
	}
	out := points[:0]
	for _, i := range points {
		pt, _ := p.Point(i)
		if !opts.Done(pt.Key) {
			out = append(out, i)
		}
	}
	return out, nil
}

// runPoint runs one point into a row; a panic becomes the row's error. It
// reports false for a point that ctx interrupted: its row is not a result.
func (p *Plan) runPoint(ctx context.Context, i int) (row Row, ok bool) {
	pt, err := p.Point(i)
	row = Row{Point: i, Points: p.Len(), Key: pt.Key, Sweep: p.id, Values: pt.Labels}
	nan := func() []float64 {
		m := make([]float64, len(p.kind.Metrics()))
		for j := range m {
			m[j] = math.NaN()
		}
		return m
	}
	defer func() {
		if r := recover(); r != nil {
			row.Metrics, row.Status, row.Error, row.Result, ok = nan(), StatusFailed, clipError(oneLine(fmt.Errorf("panic: %v", r))), nil, true
		}
	}()
	var out Outcome
	if err == nil {
		out, err = p.kind.Run(ctx, pt)
	}
	if err == nil && len(out.Metrics) != len(p.kind.Metrics()) {
		err = fmt.Errorf("kind %s gave %d metrics for %d columns", p.kind.Name(), len(out.Metrics), len(p.kind.Metrics()))
	}
	if err != nil && ctx.Err() != nil {
		return row, false
	}
	if err != nil {
		row.Metrics, row.Status, row.Error = nan(), statusOf(err), clipError(oneLine(err))
		return row, true
	}
	row.Metrics, row.Status, row.Result = out.Metrics, StatusOK, out.Result
	return row, true
}

// statusOf tells a capacity refusal (a *dash.CapacityError) from a
// failure.
func statusOf(err error) string {
	var ce *dash.CapacityError
	if errors.As(err, &ce) {
		return StatusDoesNotFit
	}
	return StatusFailed
}
