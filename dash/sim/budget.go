package sim

import (
	"fmt"
	"math"
	"time"
)

// Budget defaults: generous enough for every paper experiment (the whole
// reproduction and every test run under them), small enough that a runaway
// configuration stops: the event budget in minutes, deterministically; the
// wall-clock budget, generous because it depends on the machine and its
// load, within the hour.
const (
	// DefaultMaxEvents is the event budget of a run when Options.MaxEvents
	// is 0.
	DefaultMaxEvents int64 = 2_000_000_000
	// DefaultMaxWall is the wall-clock budget of a run when Options.MaxWall
	// is 0.
	DefaultMaxWall = time.Hour
)

// MaxTime is the latest instant a simulation may reach: a quarter of the
// int64 nanosecond range (about 73 years of simulated time), so that no sum
// of two in-range times can wrap. A run that would pass it stops with a
// [TimeRangeError] instead of returning a wrapped (negative) result.
const MaxTime = Time(math.MaxInt64 / 4)

// BudgetError says that a run stopped because it exceeded its event or
// wall-clock budget (Options.MaxEvents, Options.MaxWall).
type BudgetError struct {
	// Budget is "events" or "wall clock".
	Budget string
	// Limit is the budget that was exceeded ("2000000000 events", "1h0m0s").
	Limit string
	// At is the simulated time reached when the run stopped.
	At Time
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("sim: run stopped at simulated %v: %s budget of %s exceeded (raise it with Options.MaxEvents/MaxWall, or dashlab's --max-events/--max-wall)",
		e.At, e.Budget, e.Limit)
}

// TimeRangeError says that simulated time would pass [MaxTime]: the
// configuration is too slow to simulate in integer nanoseconds.
type TimeRangeError struct {
	// At is the simulated time reached; Step the advance that did not fit.
	At, Step Time
}

func (e *TimeRangeError) Error() string {
	return fmt.Sprintf("sim: simulated time would pass %v (at %v, advancing %v): the configuration is too slow to simulate",
		MaxTime, e.At, e.Step)
}

// budget is a run's limits and the wall-clock start they are measured from.
type budget struct {
	maxEvents int64
	maxWall   time.Duration
	start     time.Time
}

func newBudget(o Options, start time.Time) (budget, error) {
	b := budget{maxEvents: o.MaxEvents, maxWall: o.MaxWall, start: start}
	if b.maxEvents < 0 {
		return b, fmt.Errorf("sim: Options.MaxEvents = %d: must not be negative (0: the default %d)", o.MaxEvents, DefaultMaxEvents)
	}
	if b.maxWall < 0 {
		return b, fmt.Errorf("sim: Options.MaxWall = %v: must not be negative (0: the default %v)", o.MaxWall, DefaultMaxWall)
	}
	if b.maxEvents == 0 {
		b.maxEvents = DefaultMaxEvents
	}
	if b.maxWall == 0 {
		b.maxWall = DefaultMaxWall
	}
	return b, nil
}

// check is called once per handled event (and once per replayed pass); it
// reads the clock only every 4096 calls.
func (e *engine) checkBudget() error {
	if e.processed > e.budget.maxEvents {
		return &BudgetError{Budget: "events", Limit: fmt.Sprintf("%d events", e.budget.maxEvents), At: e.now}
	}
	if e.budgetTick++; e.budgetTick&4095 == 0 && time.Since(e.budget.start) > e.budget.maxWall {
		return &BudgetError{Budget: "wall clock", Limit: e.budget.maxWall.String(), At: e.now}
	}
	return nil
}

// advanceOK reports whether the clock can move from now by dt without
// passing MaxTime; otherwise it records a TimeRangeError, which ends the
// run.
func (e *engine) advanceOK(now, dt Time) bool {
	if dt < 0 || now < 0 || now > MaxTime-dt {
		if e.err == nil {
			e.err = &TimeRangeError{At: e.now, Step: dt}
		}
		return false
	}
	return true
}
