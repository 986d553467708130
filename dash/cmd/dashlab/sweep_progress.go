package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// sweepLogEvery is how often a sweep's progress is logged when stderr is
// not a terminal (a batch job's log).
const sweepLogEvery = 10 * time.Second

// sweepProgress reports a sweep's rows on stderr: a progress bar (points
// done, rate, ETA) on a terminal, a line every ten seconds otherwise, so
// that batch logs stay readable. finish ends the bar's line.
func sweepProgress(stderr io.Writer, name string) (progress func(done, total int), finish func()) {
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		var bar *progressbar.ProgressBar
		progress = func(done, total int) {
			if bar == nil {
				bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(stderr),
					progressbar.OptionSetDescription("sweep "+name), progressbar.OptionShowCount(),
					progressbar.OptionShowIts(), progressbar.OptionSetItsString("points"),
					progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond),
					progressbar.OptionFullWidth())
			}
			_ = bar.Set(done)
		}
		return progress, func() {
			if bar != nil {
				fmt.Fprintln(stderr)
			}
		}
	}
	start := time.Now()
	last := start
	progress = func(done, total int) {
		now := time.Now()
		if now.Sub(last) < sweepLogEvery && done < total {
			return
		}
		last = now
		rate := float64(done) / now.Sub(start).Seconds()
		eta := "-"
		if rate > 0 {
			eta = (time.Duration(float64(total-done)/rate) * time.Second).Round(time.Second).String()
		}
		fmt.Fprintf(stderr, "sweep %s: %d/%d points, %.1f points/s, ETA %s\n", name, done, total, rate, eta)
	}
	return progress, func() {}
}
