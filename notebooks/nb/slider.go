package nb

import (
	"cmp"
	"fmt"
	"html"
	"html/template"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/comms"
	"github.com/janpfeifer/gonb/gonbui/dom"
	"github.com/janpfeifer/gonb/gonbui/widgets"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/dash/unit"
)

// A Control is one slider of Redraw: a name and the values it steps through (Choice).
type Control interface {
	// Name names the parameter ("t_R").
	Name() string
	// Len is the number of positions; Pos the current one.
	Len() int
	Pos() int
	// SetPos moves the control (clamped to its positions).
	SetPos(int)
	// Label is the current value as text ("3 µs"); LabelAt the value at position i.
	Label() string
	LabelAt(i int) string
}

// Choice is a Control over a list of values of one type (durations, page sizes, link
// rates, batch sizes); Value is the current one.
type Choice[T cmp.Ordered] struct {
	name   string
	values []T
	pos    int
}

// NewChoice returns a control over values (sorted, duplicates dropped) starting at start,
// which is added to them when missing: the notebook's parameter is always one position.
func NewChoice[T cmp.Ordered](name string, values []T, start T) *Choice[T] {
	vs := slices.Clone(values)
	if !slices.Contains(vs, start) {
		vs = append(vs, start)
	}
	slices.Sort(vs)
	vs = slices.Compact(vs)
	return &Choice[T]{name: name, values: vs, pos: slices.Index(vs, start)}
}

// Name names the parameter.
func (c *Choice[T]) Name() string { return c.name }

// Len is the number of values.
func (c *Choice[T]) Len() int { return len(c.values) }

// Pos is the current position.
func (c *Choice[T]) Pos() int { return c.pos }

// SetPos moves to position i (clamped).
func (c *Choice[T]) SetPos(i int) { c.pos = min(max(i, 0), len(c.values)-1) }

// Value is the current value.
func (c *Choice[T]) Value() T { return c.values[c.pos] }

// Label is the current value as text.
func (c *Choice[T]) Label() string { return c.LabelAt(c.pos) }

// LabelAt is the value at position i (clamped) as text: a duration for a reader
// (charts.Dur: "3 µs", "2.5 ms"), any other value as it prints ("4 KiB", "1.6 TB/s").
func (c *Choice[T]) LabelAt(i int) string {
	v := c.values[min(max(i, 0), len(c.values)-1)]
	if d, ok := any(v).(unit.Duration); ok {
		return charts.Dur(d)
	}
	return fmt.Sprint(v)
}

// Values are the positions' values, in order.
func (c *Choice[T]) Values() []T { return slices.Clone(c.values) }

// Interactive reports whether widgets have a live front-end to talk to, from
// DASHLAB_INTERACTIVE: "1" yes (docker/entrypoint.sh sets it for its Jupyter server), "0"
// no (docker/run-notebooks.sh sets it for headless runs), unset: ask the front-end
// (ProbeTimeout; nbconvert never answers).
func Interactive() (on, known bool) {
	switch os.Getenv("DASHLAB_INTERACTIVE") {
	case "1":
		return true, true
	case "0":
		return false, true
	}
	return false, false
}

// ProbeTimeout is how long Redraw waits for a front-end's first answer when
// DASHLAB_INTERACTIVE is unset.
var ProbeTimeout = 5 * time.Second

// SliderIdle is how long Redraw listens without a move before it lets the cell end (so
// that a notebook run top to bottom in Jupyter does not stop for good at a slider).
var SliderIdle = 15 * time.Minute

// Redraw shows a chart (or any HTML from package charts) drawn by draw from the controls'
// current values, under one slider per control. The chart is drawn once at the
// controls' starting values, the notebook's parameters: that is what headless runs and
// exported pages show. With a live Jupyter front-end (Interactive) the sliders appear and
// every move redraws the chart in place (one display block, updated by id) until the
// kernel is interrupted or no move comes for SliderIdle; without one the cell ends after
// the first drawing, never waiting for input. An error from draw fails the cell on the
// first drawing and is shown in place of the chart afterwards.
func Redraw(id string, draw func() (template.HTML, error), controls ...Control) {
	block := "dashlab_redraw_" + id + "_" + gonbui.UniqueID() // a new block each run of the cell
	on, known := Interactive()
	live := on || !known
	panel := block + "_sliders"
	if live { // the sliders go above the chart (a tall chart would push them out of view)
		gonbui.DisplayHTML(fmt.Sprintf(`<div id="%s" style="max-width:900px"></div>`, panel))
	}
	first, err := draw()
	Must(0, err)
	updateHTML(block, string(frame(first, controls)))
	if !live {
		Note(controlsNote(controls, "the notebook's values; in a live Jupyter session sliders redraw this chart"))
		return
	}
	moved, ok := sliders(panel, controls, known)
	if !ok {
		Note(controlsNote(controls, "no live front-end answered: the notebook's values are shown"))
		return
	}
	for {
		select {
		case m := <-moved:
			controls[m.i].SetPos(m.pos)
			redrawn, err := draw()
			if err != nil {
				redrawn = template.HTML(`<pre style="color:#b00020">` + html.EscapeString(err.Error()) + `</pre>`)
			}
			updateHTML(block, string(frame(redrawn, controls)))
		case <-time.After(SliderIdle):
			updateHTML(block+"_idle", fmt.Sprintf(`<div style="font-size:12px;color:#5f6368">Sliders stopped after %v without a move: re-run the cell to move them again.</div>`, SliderIdle))
			return
		}
	}
}

// move is one slider's new position.
type move struct{ i, pos int }

// sliders shows one GoNB slider per control in the element panel and returns their
// moves; ok is false when the front-end did not answer within ProbeTimeout (probe:
// DASHLAB_INTERACTIVE unset).
func sliders(panel string, controls []Control, known bool) (<-chan move, bool) {
	moved := make(chan move, 16)
	ready := make(chan struct{})
	go func() {
		for i, c := range controls {
			dom.Append(panel, fmt.Sprintf(`<div style="font-family:sans-serif;font-size:13px;margin-top:6px">%s (%s … %s)</div>`,
				html.EscapeString(c.Name()), html.EscapeString(c.LabelAt(0)), html.EscapeString(c.LabelAt(c.Len()-1))))
			s := widgets.Slider(0, c.Len()-1, c.Pos()).AppendTo(panel).Done() // waits for the front-end's first answer
			l := s.Listen().LatestOnly()
			go forward(l, i, moved)
		}
		close(ready)
	}()
	if known {
		<-ready
		return moved, true
	}
	select {
	case <-ready:
		return moved, true
	case <-time.After(ProbeTimeout):
		return nil, false
	}
}

func forward(l *comms.AddressChan[int], i int, moved chan<- move) {
	for v := range l.C {
		moved <- move{i, v}
	}
}

// frame puts the controls' current values above a drawing.
func frame(body template.HTML, controls []Control) template.HTML {
	var parts []string
	for _, c := range controls {
		parts = append(parts, fmt.Sprintf("%s = <b>%s</b>", html.EscapeString(c.Name()), html.EscapeString(c.Label())))
	}
	head := fmt.Sprintf(`<div style="font-family:sans-serif;font-size:13px;color:#3c4043;margin:4px 0">%s</div>`, strings.Join(parts, " · "))
	return template.HTML(head) + body
}

// controlsNote says which values a drawing shows, and why no slider moves it.
func controlsNote(controls []Control, why string) string {
	var parts []string
	for _, c := range controls {
		parts = append(parts, fmt.Sprintf("%s = %s", c.Name(), c.Label()))
	}
	return fmt.Sprintf("Drawn at %s (%s).", strings.Join(parts, ", "), why)
}

// Note displays a line of plain text in the notes' style (no Markdown, no format verbs).
func Note(text string) {
	gonbui.DisplayHTML(`<div style="font-family:sans-serif;font-size:12px;color:#5f6368;margin:2px 0">` + html.EscapeString(text) + `</div>`)
	gonbui.Sync()
}
