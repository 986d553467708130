package nb

import (
	"fmt"
	"html/template"

	"github.com/janpfeifer/gonb/gonbui"

	"github.com/dashlab/dashlab/charts"
)

// The display helpers every notebook uses, instead of a preamble of its own. Each sends
// its output to the notebook through GoNB's gonbui and flushes it at once (output can
// be lost when a cell's program exits before gonbui flushes). An error fails the cell,
// and so a headless run (docker/run-notebooks.sh).

// Library displays the ECharts library, once per notebook before its first chart (see
// package charts).
func Library() { Show(charts.LibraryHTML(), nil) }

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

// MD displays Markdown written from computed values (fmt.Sprintf's format and args).
func MD(format string, args ...any) {
	gonbui.DisplayMarkdown(fmt.Sprintf(format, args...))
	gonbui.Sync()
}

// Must returns v, or fails the cell on an error.
func Must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
