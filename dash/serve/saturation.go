package serve

import (
	"context"
	"fmt"
	"slices"

	"github.com/dashlab/dashlab/dash/unit"
)

// Saturation is a system's backlogged throughput in one mode.
type Saturation struct {
	// System and Mode say what was measured.
	System string `json:"system"`
	Mode   Mode   `json:"mode"`
	// RPS is completed requests per second; TokensPerS the output tokens
	// per second at that rate (mean output length x RPS).
	RPS        float64 `json:"rps"`
	TokensPerS float64 `json:"tokens_per_s"`
	// Window is the measured span of completions.
	Window unit.Duration `json:"window_ns"`
	// Passes and Replays are the engine's counts for the run.
	Passes  int `json:"passes"`
	Replays int `json:"replayed_passes"`
}

// MeasureSaturation finds the backlogged throughput of cfg's system and
// mode by this procedure: Warmup + Measure + 2 x B_max requests (lengths
// drawn with seed) all arrive at time zero, so requests are always
// waiting; completions are ordered by time, the first Warmup are
// discarded, and the rate is Measure divided by the time from the Warmup-th
// completion (time zero when Warmup is 0) to the (Warmup+Measure)-th. The
// extra 2 x B_max requests keep the queue full through the window, so the
// drain at the end is never measured.
func MeasureSaturation(ctx context.Context, cfg Config, prompt, output Length, seed uint64) (Saturation, error) {
	if cfg.Measure < 1 {
		return Saturation{}, fmt.Errorf("measure = %d: saturation needs at least one measured request", cfg.Measure)
	}
	n := cfg.Warmup + cfg.Measure + 2*cfg.Scheduler.MaxBatch
	reqs, err := Backlogged(n, prompt, output, seed)
	if err != nil {
		return Saturation{}, err
	}
	c := cfg
	c.Warmup, c.Measure, c.Series = 0, 0, false // every request is recorded
	run, err := Simulate(ctx, c, reqs, nil)
	if err != nil {
		return Saturation{}, err
	}
	if run.Interrupted {
		return Saturation{}, ctx.Err()
	}
	if len(run.Rejections) > 0 {
		return Saturation{}, fmt.Errorf("saturation: %d requests can never fit: %s", len(run.Rejections), run.Rejections[0].Reason)
	}
	fin := make([]unit.Duration, len(run.Measured))
	tokens := 0
	for i, m := range run.Measured {
		fin[i] = m.Arrival + m.E2E
		tokens += m.Output
	}
	slices.Sort(fin)
	var t0 unit.Duration
	if cfg.Warmup > 0 {
		t0 = fin[cfg.Warmup-1]
	}
	w := fin[cfg.Warmup+cfg.Measure-1] - t0
	if w <= 0 {
		return Saturation{}, fmt.Errorf("saturation: the %d measured completions (after %d warm-up ones) all finish at %v: no time to measure a rate over; measure more requests than B_max (%d)",
			cfg.Measure, cfg.Warmup, fin[cfg.Warmup+cfg.Measure-1], cfg.Scheduler.MaxBatch)
	}
	rps := float64(cfg.Measure) / w.Seconds()
	return Saturation{System: run.System, Mode: cfg.Scheduler.Mode, RPS: rps,
		TokensPerS: rps * float64(tokens) / float64(len(run.Measured)), Window: w,
		Passes: run.Passes, Replays: run.Replays}, nil
}
