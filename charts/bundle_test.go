package charts

import (
	"html/template"
	"strings"
	"testing"
)

// A figure's parts split into one bundle per chart, with the chart's SVG and text line,
// and bundles of HTML alone between them.
func TestBundlesOfFigureParts(t *testing.T) {
	f := Figure{ID: "bt", Title: "Two charts", Caption: "cap", Charts: []Chart{exampleBar(t), exampleLines(t)},
		Tables: []template.HTML{"<table><tr><td>x</td></tr></table>"}}
	parts, err := f.Parts()
	if err != nil {
		t.Fatal(err)
	}
	var all []Bundle
	for _, p := range parts {
		all = append(all, Bundles(p)...)
	}
	var charts, other int
	for _, b := range all {
		if b.SVG != "" {
			charts++
			if !strings.HasPrefix(b.SVG, "<svg") || !strings.HasPrefix(b.Text, `Chart "Example`) || strings.Count(string(b.HTML), "<script") != 1 {
				t.Errorf("chart bundle: svg %.20q, text %q", b.SVG, b.Text)
			}
		} else {
			other++
			if strings.Contains(string(b.HTML), "dashlab-chart") {
				t.Errorf("a chart in a bundle without SVG: %.100s", b.HTML)
			}
		}
	}
	if charts != 2 || other != 3 { // title, caption, table
		t.Errorf("%d chart bundles and %d others, want 2 and 3", charts, other)
	}
}

// HTML with several charts at top level splits between them; HTML that wraps a chart in
// an element stays one bundle.
func TestBundlesSplitOnlyAtTopLevel(t *testing.T) {
	a, err := Snippet(exampleBar(t))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Snippet(exampleScatter(t))
	if err != nil {
		t.Fatal(err)
	}
	got := Bundles("<p>before</p>" + a + "<p>between</p>" + b)
	if len(got) != 4 || got[0].SVG != "" || got[1].SVG == "" || got[2].SVG != "" || got[3].SVG == "" {
		t.Errorf("split into %d bundles", len(got))
	}
	wrapped := Bundles("<div>" + a + "</div>")
	if len(wrapped) != 1 || wrapped[0].SVG != "" {
		t.Errorf("a wrapped chart split into %d bundles", len(wrapped))
	}
	if len(Bundles("  \n")) != 0 {
		t.Error("white space made a bundle")
	}
}

// SliderStates puts every state on one output, compressed, with one range input per axis
// at the starting positions; its image is the view's chart; a wrong number of states is
// an error.
func TestSliderStates(t *testing.T) {
	view, err := Snippet(exampleBar(t))
	if err != nil {
		t.Fatal(err)
	}
	axes := []SliderAxis{{Name: "t_R", Labels: []string{"1 µs", "3 µs"}}, {Name: "B", Labels: []string{"4", "16", "64"}}}
	states := []string{"a", "b", "c", "d", "e", "f"}
	b, err := SliderStates("s", view, axes, []int{1, 2}, states)
	if err != nil {
		t.Fatal(err)
	}
	h := string(b.HTML)
	for _, want := range []string{`data-state="5"`, `data-states="6"`, `value="1" data-axis="0"`, `value="2" data-axis="1"`, "<b>64</b>", "DecompressionStream"} {
		if !strings.Contains(h, want) {
			t.Errorf("slider output lacks %q", want)
		}
	}
	if !strings.HasPrefix(b.SVG, "<svg") || !strings.HasPrefix(b.Text, `Chart "Example throughput"`) {
		t.Errorf("bundle image %.20q, text %q", b.SVG, b.Text)
	}
	// A figure's charts are nested in its wrapper: the bundle still carries the first.
	fig, err := Figure{ID: "s_fig", Title: "A figure", Charts: []Chart{exampleBar(t)}, Caption: "one chart in the figure's wrapper"}.HTML()
	if err != nil {
		t.Fatal(err)
	}
	if fb, err := SliderStates("s", fig, axes, []int{1, 2}, states); err != nil || !strings.HasPrefix(fb.SVG, "<svg") || !strings.HasPrefix(fb.Text, `Chart "Example throughput"`) {
		t.Errorf("a figure under sliders: bundle image %.20q, text %q, error %v", fb.SVG, fb.Text, err)
	}
	if _, err := SliderStates("s", view, axes, []int{1, 2}, states[:5]); err == nil {
		t.Error("5 states for 6 positions accepted")
	}
	if got := WithoutStatic(view); strings.Contains(string(got), `<img class="dashlab-static"`) || !strings.Contains(string(got), "<script") {
		t.Error("WithoutStatic kept the image or dropped the script")
	}
}
