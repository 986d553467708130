package nb

import (
	"fmt"
	"html"
	"sync"
	"time"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/dashlab/dashlab/dash/serve"
)

// ProgressDelay is how long a step may run before its progress line appears: work that
// ends sooner shows nothing.
var ProgressDelay = time.Second

// progressEvery bounds how often the line is redrawn.
const progressEvery = 250 * time.Millisecond

// Progress is a status line a long cell redraws in place as it goes ("Fig. 9(b): 12 of 40
// simulations, 6.1 s"), through GoNB's display blocks updated by id (gonbui.UpdateHTML).
// It appears once the work has run ProgressDelay, and its last state stays in the cell's
// output: headless runs (nbconvert applies the same updates) and exported pages show how
// many steps ran and how long they took. Safe for concurrent use.
type Progress struct {
	mu          sync.Mutex
	id, label   string
	unit        string
	total, done int
	current     string
	start, last time.Time
	shown       bool
	finished    bool
	show        func(id, html string) // gonbui.UpdateHTML; replaced in tests
}

// NewProgress starts a progress line for total steps of a unit ("simulations", "groups").
func NewProgress(label string, total int, unit string) *Progress {
	return &Progress{id: "dashlab_progress_" + gonbui.UniqueID(), label: label, unit: unit, total: total,
		start: time.Now(), show: updateHTML}
}

// updateHTML sends HTML to the display block id, creating it the first time.
func updateHTML(id, html string) {
	gonbui.UpdateHTML(id, html)
	gonbui.Sync()
}

// Start names the step now running (shown beside the count).
func (p *Progress) Start(step string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.current = step
	p.redraw(false)
}

// Step records n finished steps.
func (p *Progress) Step(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += n
	p.redraw(false)
}

// Set records that done steps have finished and names the one now running ("" for none).
func (p *Progress) Set(done int, step string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.current = done, step
	p.redraw(false)
}

// ReproduceProgress is a reproduce.Options.Progress that shows the groups of a
// reproduction as they run, under label, and finishes the line when the last one ends.
func ReproduceProgress(label string) func(group string, done, total int) {
	return reproduceProgress(label, updateHTML)
}

func reproduceProgress(label string, show func(id, html string)) func(group string, done, total int) {
	var p *Progress
	return func(group string, done, total int) {
		if p == nil {
			p = NewProgress(label, total, "groups")
			p.show = show
		}
		p.Set(done, group)
		if done == total {
			p.Finish()
		}
	}
}

// CountProgress is a progress function for work that counts its steps (done of total),
// such as reproduce.Fig12Setup.Progress: one line under label ("Fig. 12: 12 of 40
// simulations, 7.0 s"), started by the first call (done = 0 before any step, so the
// time counts from there) and finished when done reaches total. Safe for concurrent use.
func CountProgress(label, unit string) func(done, total int) {
	return countProgress(label, unit, updateHTML)
}

func countProgress(label, unit string, show func(id, html string)) func(done, total int) {
	var mu sync.Mutex
	var p *Progress
	return func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if p == nil {
			p = NewProgress(label, total, unit)
			p.show = show
		}
		p.Set(done, "")
		if done >= total {
			p.Finish()
		}
	}
}

// StudyProgress is a serve.Study.Run progress function: it shows each phase's
// simulations (saturation, loads) as they finish, on one line per phase.
func StudyProgress(label string) func(serve.StudyProgress) { return studyProgress(label, updateHTML) }

func studyProgress(label string, show func(id, html string)) func(serve.StudyProgress) {
	var mu sync.Mutex
	var p *Progress
	phase := ""
	return func(sp serve.StudyProgress) {
		mu.Lock()
		defer mu.Unlock()
		if p == nil || sp.Phase != phase {
			if p != nil {
				p.Finish()
			}
			p, phase = NewProgress(label+", "+sp.Phase, sp.Total, "simulations"), sp.Phase
			p.show = show
		}
		p.Set(sp.Done, "")
		if sp.Done >= sp.Total {
			p.Finish()
		}
	}
}

// Finish writes the final line (steps done and the time taken) when the line was shown;
// work that ended within ProgressDelay leaves no output.
func (p *Progress) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.current = ""
	p.redraw(true)
	p.finished = true
}

// Text is the line as plain text.
func (p *Progress) Text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.text(time.Now())
}

func (p *Progress) text(now time.Time) string {
	s := fmt.Sprintf("%s: %d of %d %s, %.1f s", p.label, p.done, p.total, p.unit, now.Sub(p.start).Seconds())
	if p.finished || (p.done == p.total && p.current == "") {
		return s
	}
	if p.current != "" {
		s += " (now: " + p.current + ")"
	}
	return s
}

// redraw sends the line when it is due; final forces it (if it was ever shown).
func (p *Progress) redraw(final bool) {
	if p.finished {
		return
	}
	now := time.Now()
	switch {
	case final && !p.shown:
		return
	case final:
	case now.Sub(p.start) < ProgressDelay, p.shown && now.Sub(p.last) < progressEvery:
		return
	}
	p.shown, p.last = true, now
	mark, color := "⏳", "#5f6368"
	if final {
		mark, color = "✓", "#3c4043"
	}
	p.show(p.id, fmt.Sprintf(`<div class="dashlab-progress" style="font-family:monospace;font-size:12px;color:%s;margin:2px 0">%s %s</div>`,
		color, mark, html.EscapeString(p.text(now))))
}
