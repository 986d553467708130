package nb

import "testing"

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
