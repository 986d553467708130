package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// reproduceProgressDelay is how long a reproduction runs before its
// progress shows: shorter ones print nothing.
const reproduceProgressDelay = 2 * time.Second

// reproduceLogEvery is how often a group's progress is logged when stderr is
// not a terminal (a CI or batch log).
const reproduceLogEvery = 10 * time.Second

// reproduceProgress reports a reproduction on stderr once it has run two
// seconds: the group running and, for the groups of long runs (Fig. 12's
// million-token decodes, the serving study), how many of their simulations
// have finished. On a terminal it is a progress bar over the groups
// (schollz/progressbar, as the sweep's) whose description names the group
// and its simulations; otherwise a line when a group starts and every ten
// seconds within one, so that logs stay readable.
type reproduceProgress struct {
	mu          sync.Mutex
	w           io.Writer
	tty         bool
	now         func() time.Time
	start, last time.Time
	bar         *progressbar.ProgressBar
	group       string
	done, total int // groups
	sims, nSims int // simulations of the running group (nSims 0: not counted)
	drawn       bool
}

func newReproduceProgress(w io.Writer) *reproduceProgress {
	tty := false
	if f, ok := w.(*os.File); ok {
		tty = term.IsTerminal(int(f.Fd()))
	}
	return &reproduceProgress{w: w, tty: tty, now: time.Now, start: time.Now()}
}

// groupStarted is reproduce.Options.Progress: group starts, done of total
// groups have finished ("" and done == total at the end).
func (p *reproduceProgress) groupStarted(group string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.group, p.done, p.total, p.sims, p.nSims = group, done, total, 0, 0
	if group != "" {
		p.draw(true) // a log gets a line per group
	}
}

// simsDone is reproduce.Options.SimProgress.
func (p *reproduceProgress) simsDone(group string, done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if group == p.group {
		p.sims, p.nSims = done, total
		p.draw(false)
	}
}

// finish ends the bar (terminal) or writes the last line (log), when
// anything was shown.
func (p *reproduceProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.drawn {
		return
	}
	if p.bar != nil {
		p.bar.Describe(fmt.Sprintf("reproduce: %d groups", p.total))
		_ = p.bar.Finish()
		fmt.Fprintln(p.w)
		return
	}
	fmt.Fprintf(p.w, "reproduce: %d of %d groups in %.0f s\n", p.done, p.total, p.now().Sub(p.start).Seconds())
}

// label names the running group and its simulations.
func (p *reproduceProgress) label() string {
	text := fmt.Sprintf("group %d of %d (%s)", p.done+1, p.total, p.group)
	if p.nSims > 0 {
		text += fmt.Sprintf(": %d of %d simulations", p.sims, p.nSims)
	}
	return text
}

// draw shows the progress when it is due: after the initial delay; in a
// log, on a group's start and every ten seconds within it.
func (p *reproduceProgress) draw(groupStart bool) {
	now := p.now()
	if now.Sub(p.start) < reproduceProgressDelay {
		return
	}
	if p.tty {
		if p.bar == nil {
			p.bar = progressbar.NewOptions(p.total, progressbar.OptionSetWriter(p.w), progressbar.OptionShowCount(),
				progressbar.OptionSetDescription("reproduce: "+p.label()),
				progressbar.OptionSetElapsedTime(true), progressbar.OptionThrottle(200*time.Millisecond),
				progressbar.OptionSetRenderBlankState(true), progressbar.OptionFullWidth())
		}
		p.drawn = true
		p.bar.Describe("reproduce: " + p.label())
		_ = p.bar.Set(p.done)
		return
	}
	if !groupStart && p.drawn && now.Sub(p.last) < reproduceLogEvery {
		return
	}
	p.drawn, p.last = true, now
	fmt.Fprintf(p.w, "reproduce: %s, %.0f s\n", p.label(), now.Sub(p.start).Seconds())
}
