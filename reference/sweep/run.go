package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/internal/pool"
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
	var progress func(done, total int)
	if opts.Progress != nil {
		progress = func(done, total int) { opts.Progress(done, total) }
	}
	next, err := pool.Run(ctx, len(todo), pool.Options{Workers: opts.Workers},
		func(ctx context.Context, pos int) (Row, bool) { return p.runPoint(ctx, todo[pos]) },
		func(pos int, r Row) error {
			if err := emit(r); err != nil {
				return err
			}
			if progress != nil {
				progress(pos+1, len(todo))
			}
			return nil
		})
	if err == nil && next < len(todo) {
		err = fmt.Errorf("sweep stopped after %d of %d points", next, len(todo))
	}
	return err
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
