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
// (ProbeTimeout; nbconvert never answers). Only RedrawLive uses it.
func Interactive() (on, known bool) {
	switch os.Getenv("DASHLAB_INTERACTIVE") {
	case "1":
		return true, true
	case "0":
		return false, true
	}
	return false, false
}

// ProbeTimeout is how long RedrawLive waits for a front-end's first answer when
// DASHLAB_INTERACTIVE is unset.
var ProbeTimeout = 5 * time.Second

// SliderIdle is how long RedrawLive listens without a move before it lets the cell end.
var SliderIdle = 15 * time.Minute

// MaxStates is the largest slider grid (the product of the controls' positions) that
// Redraw precomputes; a larger grid is drawn at the notebook's values only, and the page
// says that its sliders need a live kernel (RedrawLive).
var MaxStates = 256

// Redraw shows a chart (or any HTML from package charts) drawn by draw from the controls'
// current values, under one slider per control, and returns as soon as it is drawn: the
// cell never holds the kernel, so the next cell starts at once.
//
// When the grid of positions has at most MaxStates states, Redraw draws every state
// (with a progress line when that takes a while) and puts them all on the page,
// compressed: a few lines of page script switch between them as the sliders move, in a
// live notebook and in an exported page alike, with no kernel. The notebook's values
// (the controls' starting positions) are drawn with their static image, which is what a
// page without scripts shows. A larger grid is drawn at the notebook's values, and the
// page says that moving its sliders needs a live kernel (RedrawLive, or change the
// parameter cell and re-run). An error from draw fails the cell.
func Redraw(id string, draw func() (template.HTML, error), controls ...Control) {
	start := make([]int, len(controls))
	n := 1
	for i, c := range controls {
		start[i] = c.Pos()
		n *= max(c.Len(), 1)
	}
	first := Must(draw())
	if n > MaxStates {
		Show(frame(first, controls), nil)
		Note(controlsNote(controls, fmt.Sprintf("its sliders span %d states, more than the %d that are precomputed for pages "+
			"without a kernel: moving them needs a live kernel (nb.RedrawLive), or change the parameter cell and re-run", n, MaxStates)))
		return
	}
	states := make([]string, n)
	var failed []string
	p := NewProgress(id+" sliders", n, "states")
	p.Start("")
	for k := range n {
		setPositions(controls, k)
		h := first
		if !atPositions(controls, start) {
			var err error
			// Only the notebook's values show a static image: the other states are drawn
			// without theirs (it would be drawn in the static renderer and dropped).
			if h, err = charts.InteractiveOnly(draw); err != nil { // shown in place of the chart at that state
				failed = append(failed, controlsText(controls))
				h = template.HTML(`<pre style="color:#b00020;white-space:pre-wrap">` + html.EscapeString(err.Error()) + `</pre>`)
			}
		}
		states[k] = string(charts.WithoutStatic(frame(h, controls)))
		p.Step(1)
	}
	p.Finish()
	for i, c := range controls {
		c.SetPos(start[i])
	}
	display(Must(charts.SliderStates(id, frame(first, controls), labels(controls), start, states)))
	gonbui.Sync()
	Note(controlsNote(controls, fmt.Sprintf("the notebook's values; with scripts on, the sliders switch between %d precomputed states, with no kernel", n)))
	if len(failed) > 0 {
		Note(fmt.Sprintf("%d of the %d states failed (their error is shown in place of the chart): %s.", len(failed), n, strings.Join(failed, "; ")))
	}
}

// setPositions moves the controls to state k (mixed radix, the last control fastest).
func setPositions(controls []Control, k int) {
	for i := len(controls) - 1; i >= 0; i-- {
		l := max(controls[i].Len(), 1)
		controls[i].SetPos(k % l)
		k /= l
	}
}

func atPositions(controls []Control, pos []int) bool {
	for i, c := range controls {
		if c.Pos() != pos[i] {
			return false
		}
	}
	return true
}

// labels are the controls' names and position labels, for the page's sliders.
func labels(controls []Control) []charts.SliderAxis {
	out := make([]charts.SliderAxis, len(controls))
	for i, c := range controls {
		out[i].Name = c.Name()
		for j := range c.Len() {
			out[i].Labels = append(out[i].Labels, c.LabelAt(j))
		}
	}
	return out
}

// RedrawLive is the slider of a live kernel, for grids too large to precompute: it shows
// GoNB's sliders and redraws the chart in place on every move, serving them from this
// cell's program, which therefore holds the kernel (the next cell waits) until its Stop
// button is pressed or no move comes for SliderIdle. Without a live front-end it draws
// once and returns, as Redraw does.
func RedrawLive(id string, draw func() (template.HTML, error), controls ...Control) {
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
	moved, stop, ok := sliders(panel, controls, known)
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
		case <-stop:
			Note(controlsNote(controls, "sliders stopped: re-run the cell to move them again"))
			return
		case <-time.After(SliderIdle):
			updateHTML(block+"_idle", fmt.Sprintf(`<div style="font-size:12px;color:#5f6368">Sliders stopped after %v without a move: re-run the cell to move them again.</div>`, SliderIdle))
			return
		}
	}
}

// move is one slider's new position.
type move struct{ i, pos int }

// sliders shows one GoNB slider per control in the element panel, and a Stop button,
// and returns their moves and the button's presses; ok is false when the front-end did
// not answer within ProbeTimeout (probe: DASHLAB_INTERACTIVE unset).
func sliders(panel string, controls []Control, known bool) (<-chan move, <-chan int, bool) {
	moved := make(chan move, 16)
	ready := make(chan struct{})
	var stop <-chan int
	go func() {
		for i, c := range controls {
			dom.Append(panel, fmt.Sprintf(`<div style="font-family:sans-serif;font-size:13px;margin-top:6px">%s (%s … %s)</div>`,
				html.EscapeString(c.Name()), html.EscapeString(c.LabelAt(0)), html.EscapeString(c.LabelAt(c.Len()-1))))
			s := widgets.Slider(0, c.Len()-1, c.Pos()).AppendTo(panel).Done() // waits for the front-end's first answer
			l := s.Listen().LatestOnly()
			go forward(l, i, moved)
		}
		stop = widgets.Button("Stop sliders (frees the kernel)").AppendTo(panel).Done().Listen().C
		close(ready)
	}()
	if known {
		<-ready
		return moved, stop, true
	}
	select {
	case <-ready:
		return moved, stop, true
	case <-time.After(ProbeTimeout):
		return nil, nil, false
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

// controlsText names the controls' current values ("t_R = 3 µs, B = 4").
func controlsText(controls []Control) string {
	var parts []string
	for _, c := range controls {
		parts = append(parts, fmt.Sprintf("%s = %s", c.Name(), c.Label()))
	}
	return strings.Join(parts, ", ")
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
