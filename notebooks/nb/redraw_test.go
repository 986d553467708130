package nb

import (
	"html/template"
	"strings"
	"testing"
	"time"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/dash/unit"
)

func TestProgressShowsNothingForShortWork(t *testing.T) {
	var shown []string
	p := NewProgress("sweep", 3, "simulations")
	p.show = func(_, h string) { shown = append(shown, h) }
	p.Step(3)
	p.Finish()
	if len(shown) != 0 {
		t.Errorf("work shorter than ProgressDelay showed %q", shown)
	}
}

func TestProgressRedrawsOneBlockAndEndsWithTheTotal(t *testing.T) {
	defer func(d time.Duration) { ProgressDelay = d }(ProgressDelay)
	ProgressDelay = 0
	var ids, shown []string
	p := NewProgress("Fig. 9(b)", 40, "simulations")
	p.show = func(id, h string) { ids, shown = append(ids, id), append(shown, h) }
	p.Start("qwen3 on dash")
	p.Step(1)
	p.Finish()
	p.Finish() // a second Finish changes nothing
	if len(shown) < 2 {
		t.Fatalf("shown %d times, want the first step and the final line", len(shown))
	}
	for _, id := range ids {
		if id != ids[0] {
			t.Errorf("progress drew into blocks %q and %q, want one block updated in place", ids[0], id)
		}
	}
	if !strings.Contains(shown[0], "now: qwen3 on dash") {
		t.Errorf("first line %q does not name the running step", shown[0])
	}
	last := shown[len(shown)-1]
	if !strings.Contains(last, "Fig. 9(b): 1 of 40 simulations") || !strings.Contains(last, "✓") || strings.Contains(last, "now:") {
		t.Errorf("final line %q, want the count done, a check mark and no running step", last)
	}
}

func TestChoiceAddsTheStartValueAndSorts(t *testing.T) {
	c := NewChoice("t_R", []unit.Duration{8 * unit.Microsecond, unit.Microsecond, 8 * unit.Microsecond}, 3*unit.Microsecond)
	if got := c.Values(); len(got) != 3 || got[0] != unit.Microsecond || got[1] != 3*unit.Microsecond || got[2] != 8*unit.Microsecond {
		t.Fatalf("values %v, want 1 µs, 3 µs, 8 µs", got)
	}
	if c.Value() != 3*unit.Microsecond || c.Pos() != 1 {
		t.Errorf("starts at %v (position %d), want 3 µs (1)", c.Value(), c.Pos())
	}
	c.SetPos(99)
	if c.Value() != 8*unit.Microsecond {
		t.Errorf("SetPos past the end gave %v, want the last value", c.Value())
	}
	if c.Label() != "8 µs" {
		t.Errorf("label %q", c.Label())
	}
}

// Redraw draws every state of a small grid, returns at once (it never waits for a
// front-end), leaves the controls at the notebook's values and shows one output with the
// sliders and every state.
func TestRedrawPrecomputesEveryStateAndReturns(t *testing.T) {
	batch := NewChoice("B", []int{1, 4, 16, 64}, 4)
	link := NewChoice("link", []string{"a", "b"}, "b")
	var drawn []string
	var got []charts.Bundle
	done := make(chan struct{})
	go func() {
		defer close(done)
		got = captureBundles(t, func() {
			Redraw("test", func() (template.HTML, error) {
				drawn = append(drawn, batch.Label()+link.Label())
				return template.HTML("<p>B = " + batch.Label() + ", link " + link.Label() + "</p>"), nil
			}, batch, link)
		})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Redraw did not return")
	}
	if len(drawn) != 8 || drawn[0] != "4b" {
		t.Errorf("drew %v, want the notebook's values first, then the 7 other states", drawn)
	}
	if batch.Value() != 4 || link.Value() != "b" {
		t.Errorf("controls left at %v, %v", batch.Value(), link.Value())
	}
	if len(got) != 1 || !strings.Contains(string(got[0].HTML), `data-states="8"`) || !strings.Contains(string(got[0].HTML), `data-state="3"`) ||
		strings.Count(string(got[0].HTML), `type="range"`) != 2 {
		t.Fatalf("displayed %d outputs: %.300v", len(got), got)
	}
}

// A grid over MaxStates is drawn once, at the notebook's values.
func TestRedrawLargeGridDrawsOnce(t *testing.T) {
	defer func(m int) { MaxStates = m }(MaxStates)
	MaxStates = 3
	batch := NewChoice("B", []int{1, 4, 16, 64}, 4)
	calls := 0
	got := captureBundles(t, func() {
		Redraw("test", func() (template.HTML, error) {
			calls++
			return "<p>chart</p>", nil
		}, batch)
	})
	if calls != 1 || len(got) != 1 || strings.Contains(string(got[0].HTML), "dashlab-states") {
		t.Errorf("drew %d times, displayed %d outputs", calls, len(got))
	}
}

func TestFrameNamesTheControlsValues(t *testing.T) {
	tr := NewChoice("t_R", []unit.Duration{unit.Microsecond}, 3*unit.Microsecond)
	page := NewChoice("page", []unit.Bytes{4 * unit.KiB, 16 * unit.KiB}, 4*unit.KiB)
	got := string(frame("<p>chart</p>", []Control{tr, page}))
	if !strings.Contains(got, "t_R = <b>"+tr.Label()+"</b>") || !strings.Contains(got, "page = <b>"+page.Label()+"</b>") || !strings.HasSuffix(got, "<p>chart</p>") {
		t.Errorf("frame = %q", got)
	}
}

func TestReproduceProgressFinishesAtTheLastGroup(t *testing.T) {
	defer func(d time.Duration) { ProgressDelay = d }(ProgressDelay)
	ProgressDelay = 0
	var shown []string
	f := reproduceProgress("reproduction", func(_, h string) { shown = append(shown, h) })
	f("capacity", 0, 2)
	f("fig9a", 1, 2)
	f("", 2, 2)
	n := len(shown)
	f("", 2, 2) // a finished line stays as it is
	if len(shown) != n || n == 0 {
		t.Fatalf("shown %d then %d times", n, len(shown))
	}
	if last := shown[n-1]; !strings.Contains(last, "✓ reproduction: 2 of 2 groups") {
		t.Errorf("final line %q", last)
	}
	if !strings.Contains(shown[0], "now: capacity") {
		t.Errorf("first line %q does not name the running group", shown[0])
	}
}

func TestStudyProgressOneLinePerPhase(t *testing.T) {
	defer func(d time.Duration) { ProgressDelay = d }(ProgressDelay)
	ProgressDelay = 0
	last := map[string]string{}
	var order []string
	f := studyProgress("serving study", func(id, h string) {
		if _, ok := last[id]; !ok {
			order = append(order, id)
		}
		last[id] = h
	})
	f(serve.StudyProgress{Phase: "saturation", Done: 1, Total: 2})
	f(serve.StudyProgress{Phase: "saturation", Done: 2, Total: 2})
	f(serve.StudyProgress{Phase: "loads", Done: 3, Total: 12})
	f(serve.StudyProgress{Phase: "loads", Done: 12, Total: 12})
	if len(order) != 2 {
		t.Fatalf("%d lines, want one per phase", len(order))
	}
	for i, want := range []string{"✓ serving study, saturation: 2 of 2 simulations", "✓ serving study, loads: 12 of 12 simulations"} {
		if got := last[order[i]]; !strings.Contains(got, want) {
			t.Errorf("line %d ends as %q, want %q", i, got, want)
		}
	}
}

func TestCountProgressCountsAndFinishes(t *testing.T) {
	defer func(d time.Duration) { ProgressDelay = d }(ProgressDelay)
	ProgressDelay = 0
	var ids, shown []string
	f := countProgress("Fig. 12", "simulations", func(id, h string) { ids, shown = append(ids, id), append(shown, h) })
	for done := range 4 {
		f(done, 3)
	}
	n := len(shown)
	f(3, 3) // a finished line stays as it is
	if len(shown) != n || n < 2 {
		t.Fatalf("shown %d then %d times", n, len(shown))
	}
	for _, id := range ids {
		if id != ids[0] {
			t.Errorf("drew into blocks %q and %q, want one block updated in place", ids[0], id)
		}
	}
	if !strings.Contains(shown[0], "⏳ Fig. 12: 0 of 3 simulations") {
		t.Errorf("first line %q", shown[0])
	}
	if last := shown[n-1]; !strings.Contains(last, "✓ Fig. 12: 3 of 3 simulations") {
		t.Errorf("final line %q", last)
	}
}

// Only the notebook's values are drawn with a static image: the other states are drawn
// without theirs (InteractiveOnly), so the static renderer draws one chart for the grid.
func TestRedrawDrawsOneStaticImage(t *testing.T) {
	batch := NewChoice("B", []int{1, 4, 16}, 4)
	draw := func() (template.HTML, error) {
		return charts.Render(charts.GroupedBar(charts.BarSpec{Common: charts.Common{ID: "nb_states", Title: "B = " + batch.Label()},
			XName: "x", YName: "y", Categories: []string{"a"}, Series: []charts.Series{{Name: "s", Values: []float64{float64(batch.Value())}}}}))
	}
	before := charts.StaticStatsSoFar().Charts
	got := captureBundles(t, func() { Redraw("states", draw, batch) })
	if n := charts.StaticStatsSoFar().Charts - before; n != 1 {
		t.Errorf("the static renderer drew %d charts for 3 states, want 1 (the notebook's values)", n)
	}
	if len(got) != 1 || !strings.HasPrefix(got[0].SVG, "<svg") || strings.Count(string(got[0].HTML), `class="dashlab-static"`) != 1 {
		t.Fatalf("displayed %d outputs, want one with the view's static image only: %.300v", len(got), got)
	}
	if _, err := charts.InteractiveOnly(draw); err != nil {
		t.Fatal(err)
	}
	if h, _ := draw(); !strings.Contains(string(h), `class="dashlab-static"`) {
		t.Error("a chart drawn after InteractiveOnly returned has no static image")
	}
}
