package pool

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestMapKeepsOrderAndBoundsWorkers(t *testing.T) {
	var running, most atomic.Int32
	var last []int
	got := Map(200, Options{Workers: 3, Completed: func(done, total int) {
		if total != 200 {
			t.Errorf("total %d", total)
		}
		last = append(last, done)
	}}, func(i int) int {
		n := running.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		time.Sleep(time.Duration(200-i) * time.Microsecond) // later jobs end first
		running.Add(-1)
		return i * i
	})
	for i, v := range got {
		if v != i*i {
			t.Fatalf("result %d = %d", i, v)
		}
	}
	if most.Load() > 3 {
		t.Errorf("%d jobs at once with 3 workers", most.Load())
	}
	if len(last) != 201 || last[0] != 0 || last[200] != 200 {
		t.Errorf("completions %d, first %d, last %d", len(last), last[0], last[len(last)-1])
	}
	if out := Map(0, Options{}, func(i int) int { return i }); len(out) != 0 {
		t.Errorf("no jobs: %v", out)
	}
}

func TestRunStopsOnCancelAndEmitError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var started atomic.Int32
	n, err := Run(ctx, 1000, Options{Workers: 2}, func(ctx context.Context, i int) (int, bool) {
		started.Add(1)
		if i == 10 {
			cancel()
		}
		return i, ctx.Err() == nil
	}, func(i, v int) error { return nil })
	if !errors.Is(err, context.Canceled) || n > 11 || started.Load() > 100 {
		t.Errorf("cancelled run: %d handed over, %d started, %v", n, started.Load(), err)
	}
	boom := errors.New("boom")
	n, err = Run(context.Background(), 100, Options{Workers: 4}, func(_ context.Context, i int) (int, bool) { return i, true },
		func(i, v int) error {
			if i == 5 {
				return boom
			}
			return nil
		})
	if !errors.Is(err, boom) || n != 5 {
		t.Errorf("emit error: %d handed over, %v", n, err)
	}
}
