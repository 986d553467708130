package nb

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"

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
// fails the cell. Each chart in it is an output of its own, a MIME bundle (see
// charts.Bundles): the interactive chart with its static image as text/html, the same
// image as image/svg+xml, and a line of text/plain. A saved notebook then shows every
// chart wherever it is opened: trusted (interactive), untrusted, exported with scripts
// off, in a viewer that strips scripts or one that only shows images or text.
func Show(html template.HTML, err error) {
	Must(0, err)
	for _, b := range charts.Bundles(html) {
		display(b)
	}
	gonbui.Sync()
}

// ShowFig displays a figure: its title and caption, its charts (each a MIME bundle, as
// Show displays them), tables and paper-vs-simulated rows.
func ShowFig(f charts.Figure, err error) {
	Must(0, err)
	parts := Must(f.Parts())
	var text strings.Builder // the parts between charts, shown together
	flush := func() {
		if text.Len() > 0 {
			display(charts.Bundle{HTML: template.HTML(text.String())})
			text.Reset()
		}
	}
	for _, p := range parts {
		for _, b := range charts.Bundles(p) {
			if b.SVG == "" {
				text.WriteString(string(b.HTML) + "\n")
				continue
			}
			flush()
			display(b)
		}
	}
	flush()
	gonbui.Sync()
}

// display sends one output to the notebook (a variable, so that the tests can read
// what Show and ShowFig display).
var display = func(b charts.Bundle) {
	data := map[protocol.MIMEType]any{protocol.MIMETextHTML: string(b.HTML)}
	if b.SVG != "" {
		data[protocol.MIMEImageSVG] = b.SVG
		data[protocol.MIMETextPlain] = b.Text
	}
	gonbui.SendData(&protocol.DisplayData{Data: data})
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
