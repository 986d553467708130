package main

import (
	"strings"
	"testing"
	"time"
)

// fakeProgress is a reproduceProgress on a clock the test moves.
func fakeProgress(tty bool) (*reproduceProgress, *strings.Builder, *time.Time) {
	var b strings.Builder
	t := time.Unix(0, 0)
	p := &reproduceProgress{w: &b, tty: tty, now: func() time.Time { return t }, start: t}
	return p, &b, &t
}

func TestReproduceProgressSilentWhenShort(t *testing.T) {
	p, b, now := fakeProgress(false)
	p.groupStarted("capacity", 0, 2)
	*now = now.Add(time.Second)
	p.groupStarted("fig9a", 1, 2)
	p.groupStarted("", 2, 2)
	p.finish()
	if b.Len() != 0 {
		t.Errorf("a reproduction of under two seconds printed %q", b.String())
	}
}

func TestReproduceProgressLog(t *testing.T) {
	p, b, now := fakeProgress(false)
	p.groupStarted("capacity", 0, 3)
	*now = now.Add(3 * time.Second)
	p.groupStarted("fig12", 1, 3)
	p.simsDone("fig12", 0, 40)
	for i := 1; i <= 40; i++ {
		*now = now.Add(time.Second)
		p.simsDone("fig12", i, 40)
	}
	p.simsDone("other", 1, 2) // not the running group: ignored
	p.groupStarted("serving", 2, 3)
	*now = now.Add(time.Second)
	p.groupStarted("", 3, 3)
	p.finish()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{
		"reproduce: group 2 of 3 (fig12), 3 s",
		"reproduce: group 2 of 3 (fig12): 10 of 40 simulations, 13 s",
		"reproduce: group 2 of 3 (fig12): 20 of 40 simulations, 23 s",
		"reproduce: group 2 of 3 (fig12): 30 of 40 simulations, 33 s",
		"reproduce: group 2 of 3 (fig12): 40 of 40 simulations, 43 s",
		"reproduce: group 3 of 3 (serving), 43 s",
		"reproduce: 3 of 3 groups in 44 s",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("log:\n%s\nwant:\n%s", b.String(), strings.Join(want, "\n"))
	}
}

func TestReproduceProgressTerminal(t *testing.T) {
	p, b, now := fakeProgress(true)
	p.groupStarted("fig12", 0, 2)
	*now = now.Add(3 * time.Second)
	p.simsDone("fig12", 5, 40)
	if s := p.bar.State(); s.Description != "reproduce: group 1 of 2 (fig12): 5 of 40 simulations" || s.CurrentNum != 0 || s.Max != 2 {
		t.Errorf("bar %+v", s)
	}
	p.groupStarted("serving", 1, 2)
	if s := p.bar.State(); s.Description != "reproduce: group 2 of 2 (serving)" || s.CurrentNum != 1 {
		t.Errorf("bar %+v", s)
	}
	p.groupStarted("", 2, 2)
	p.finish()
	got := b.String()
	for _, want := range []string{"reproduce: 2 groups", "(2/2)"} {
		if !strings.Contains(got, want) {
			t.Errorf("terminal output %q lacks %q", got, want)
		}
	}
	if !strings.HasSuffix(got, "\n") {
		t.Errorf("the bar's line is not ended: %q", got)
	}
}
