package nb

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/charts"
)

// capture returns what f displays as Markdown.
func capture(t *testing.T, f func()) []string {
	t.Helper()
	var got []string
	saved := displayMarkdown
	displayMarkdown = func(md string) { got = append(got, md) }
	t.Cleanup(func() { displayMarkdown = saved })
	f()
	return got
}

// A computed note with a per cent sign is shown as it is (it used to be read as a
// format: "23%!o(MISSING)f the GPU time").
func TestMDShowsTextAsItIs(t *testing.T) {
	note := "in a DASH decode step, 23% of the GPU time is operator compute; 100%"
	got := capture(t, func() { MD(note) })
	if len(got) != 1 || got[0] != note {
		t.Fatalf("MD(%q) displayed %q", note, got)
	}
}

func TestMDfFormats(t *testing.T) {
	note := "23% of the GPU time"
	got := capture(t, func() { MDf("**%.2f×** over RelayOnly, %.0f %%; %s", 1.5812, 42.2, note) })
	want := "**1.58×** over RelayOnly, 42 %; 23% of the GPU time"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("MDf displayed %q, want %q", got, want)
	}
}

// captureBundles returns what f displays as outputs.
func captureBundles(t *testing.T, f func()) []charts.Bundle {
	t.Helper()
	var got []charts.Bundle
	saved := display
	display = func(b charts.Bundle) { got = append(got, b) }
	t.Cleanup(func() { display = saved })
	f()
	return got
}

// ShowFig shows each chart of a figure as an output of its own with its static image and
// text line; the rest (title, caption, tables) in outputs between them.
func TestShowFigBundles(t *testing.T) {
	bar, err := charts.GroupedBar(charts.BarSpec{Common: charts.Common{ID: "nb_bundle", Title: "A bar"},
		XName: "x", YName: "y", Categories: []string{"a", "b"}, Series: []charts.Series{{Name: "s", Values: []float64{1, 2}}}})
	if err != nil {
		t.Fatal(err)
	}
	got := captureBundles(t, func() {
		ShowFig(charts.Figure{ID: "nb_bundle", Title: "Figure", Caption: "caption", Charts: []charts.Chart{bar}}, nil)
	})
	if len(got) != 2 || got[0].SVG != "" || !strings.Contains(string(got[0].HTML), "caption") ||
		!strings.HasPrefix(got[1].SVG, "<svg") || got[1].Text != `Chart "A bar" (bar, 1 series: s)` {
		t.Fatalf("ShowFig displayed %d outputs: %+v", len(got), got)
	}
}
