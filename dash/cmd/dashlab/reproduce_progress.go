package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"
)

// reproduceProgressDelay is how long a reproduction runs before its
// progress shows: shorter ones print nothing.
const reproduceProgressDelay = 2 * time.Second

// reproduceProgress reports a reproduction on stderr once it has run two
// seconds: the group running and, for the groups of long runs (Fig. 12's
// million-token decodes), how many of their simulations have finished. On a
// terminal it is one line redrawn in place (at most five times a second);
// otherwise (a CI or batch log) a line when a group starts and every ten
// seconds within one.
type reproduceProgress struct {
	mu          sync.Mutex
	w           io.Writer
	tty         bool
	now         func() time.Time
	start, last time.Time
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
		p.draw(!p.tty) // a log gets a line per group
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

// finish ends the line (terminal) or writes the last one (log), when
// anything was shown.
func (p *reproduceProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.drawn {
		return
	}
	text := fmt.Sprintf("reproduce: %d of %d groups in %.0f s", p.done, p.total, p.now().Sub(p.start).Seconds())
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s\n", text)
		return
	}
	fmt.Fprintln(p.w, text)
}

// draw writes the line when it is due; force skips the rate limit (not
// the initial delay).
func (p *reproduceProgress) draw(force bool) {
	now := p.now()
	every := 10 * time.Second
	if p.tty {
		every = 200 * time.Millisecond
	}
	if now.Sub(p.start) < reproduceProgressDelay || !force && p.drawn && now.Sub(p.last) < every {
		return
	}
	p.drawn, p.last = true, now
	text := fmt.Sprintf("reproduce: group %d of %d (%s)", p.done+1, p.total, p.group)
	if p.nSims > 0 {
		text += fmt.Sprintf(": %d of %d simulations", p.sims, p.nSims)
	}
	text += fmt.Sprintf(", %.0f s", now.Sub(p.start).Seconds())
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", text)
		return
	}
	fmt.Fprintln(p.w, text)
}
