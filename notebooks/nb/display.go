package nb

import (
	"fmt"
	"html/template"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/dash/unit"
)

// The display helpers every notebook uses, instead of a preamble of its own. Each sends
// its output to the notebook through GoNB's gonbui and flushes it at once (output can
// be lost when a cell's program exits before gonbui flushes). An error fails the cell,
// and so a headless run (docker/run-notebooks.sh).

// Library displays the ECharts library, once per notebook before its first chart (see
// package charts), and the page style of charts.NotebookStyle.
func Library() { Show(charts.LibraryHTML()+charts.NotebookStyle, nil) }

// Show displays HTML from package charts (Snippet, Render, HTMLTable, ...); an error
// fails the cell.
func Show(html template.HTML, err error) {
	Must(0, err)
	gonbui.DisplayHTML(string(html))
	gonbui.Sync()
}

// ShowFig displays a figure: its charts, tables and paper-vs-simulated rows.
func ShowFig(f charts.Figure, err error) {
	Must(0, err)
	Show(f.HTML())
}

// MD displays Markdown text as it is: a computed note (reproduce.ArrayBoundNote, ...)
// may hold a per cent sign, which is text here, never a format verb. Use MDf to write
// Markdown from computed values.
func MD(text string) { displayMarkdown(text) }

// MDf displays Markdown written from computed values: fmt.Sprintf's format and args.
// Pass a computed note as an argument (MDf("%s", note)) or to MD, never as the format.
// A unit.Duration printed with %v or %s reads as charts.Dur writes it ("14.79 ms", not
// "14.7916ms").
func MDf(format string, args ...any) {
	for i, a := range args {
		if d, ok := a.(unit.Duration); ok {
			args[i] = readableDuration(d)
		}
	}
	displayMarkdown(fmt.Sprintf(format, args...))
}

// readableDuration prints as charts.Dur for %v and %s, as a unit.Duration otherwise.
type readableDuration unit.Duration

func (d readableDuration) Format(f fmt.State, verb rune) {
	if verb == 'v' || verb == 's' {
		fmt.Fprint(f, charts.Dur(unit.Duration(d)))
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), unit.Duration(d))
}

// displayMarkdown sends Markdown to the notebook (a variable, so that the tests can
// read what MD and MDf display).
var displayMarkdown = func(md string) {
	gonbui.DisplayMarkdown(md)
	gonbui.Sync()
}

// Must returns v, or fails the cell on an error.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
