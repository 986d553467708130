package sim

import (
	"errors"
	"testing"
	"time"

	"github.com/dashlab/dashlab/dash/unit"
)

func TestEventBudgetStopsTheRun(t *testing.T) {
	exp := build(t, "qwen3-235b-a22b", "dash", 4, 512, 5)
	_, err := RunWith(exp, Options{MaxEvents: 1000})
	var be *BudgetError
	if !errors.As(err, &be) || be.Budget != "events" {
		t.Fatalf("want an events BudgetError, got %v", err)
	}
	if _, err := RunWith(exp, Options{MaxEvents: -1}); err == nil {
		t.Error("a negative event budget was accepted")
	}
}

func TestWallBudgetStopsTheRun(t *testing.T) {
	exp := build(t, "qwen3-235b-a22b", "dash", 4, 512, 5)
	_, err := RunWith(exp, Options{MaxWall: time.Nanosecond, NoJump: true})
	var be *BudgetError
	if !errors.As(err, &be) || be.Budget != "wall clock" {
		t.Fatalf("want a wall-clock BudgetError, got %v", err)
	}
}

func TestTimePastMaxTimeIsAnError(t *testing.T) {
	e := newEngine(config{pairs: 1, seg: unit.MiB})
	e.schedule(MaxTime+1, evOpEnd, -1, 0, 0)
	var te *TimeRangeError
	if !errors.As(e.err, &te) || len(e.q) != 0 {
		t.Fatalf("scheduling past MaxTime: err %v, %d events queued", e.err, len(e.q))
	}
	e = newEngine(config{pairs: 1, seg: unit.MiB})
	e.now = MaxTime - 10
	e.shiftTimes(11)
	if !errors.As(e.err, &te) || e.now != MaxTime-10 {
		t.Fatalf("shifting past MaxTime: err %v, now %v", e.err, e.now)
	}
	e = newEngine(config{pairs: 1, seg: unit.MiB})
	e.now = 5
	e.schedule(-3, evOpEnd, -1, 0, 0) // a wrapped sum
	if !errors.As(e.err, &te) {
		t.Fatalf("scheduling into the past: err %v", e.err)
	}
}
