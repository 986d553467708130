package reproduce

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

func halfLinks(b dash.ExperimentBuilder) dash.ExperimentBuilder {
	return b.LinkBandwidth(0.8 * unit.TBps)
}

// A Fig. 9 sweep with halved links is a what-if: its summary lists the change and the
// model left out, the charts' subtitles name them and its rows are what-ifs, not FAIL.
func TestFig9WhatIf(t *testing.T) {
	grid := func(modify func(dash.ExperimentBuilder) dash.ExperimentBuilder) []Case {
		return Fig9Grid(dash.ReadingPaper, []string{"qwen3-235b-a22b"}, Fig9Systems, []int{4}, []Fig9bWorkload{{Prompt: 1024, Output: 17}}, modify)
	}
	paper := SummariseFig9(Sweep(grid(nil), 0))
	whatIf := SummariseFig9(Sweep(grid(halfLinks), 0))
	for _, p := range paper.Points {
		if len(p.WhatIf) != 0 {
			t.Errorf("%s: the paper's parts, yet %v", p.Case, p.WhatIf)
		}
	}
	got := whatIf.WhatIf.String()
	for _, want := range []string{"link 1.6 -> 0.8 TB/s", "models 5 -> qwen3-235b-a22b", "B 1, 4, 16, 64 -> 4", "L_in/L_out 1K/128 -> 1K/17"} {
		if !strings.Contains(got, want) {
			t.Errorf("what-if %q does not say %q", got, want)
		}
	}
	if strings.Contains(paper.WhatIf.String(), "link") {
		t.Errorf("the paper's parts: %q", paper.WhatIf)
	}
	fig, err := charts.Fig9a(whatIf)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range fig.Rows {
		if r.Status() != charts.WhatIf && r.Status() != charts.NotSimulated {
			t.Errorf("%s: %s, want what-if", r.ID, r.Status())
		}
	}
	h, err := fig.HTML()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(h), "what-if: link 1.6 -\\u003e 0.8 TB/s") && !strings.Contains(string(h), "what-if: link 1.6 -&gt; 0.8 TB/s") {
		t.Errorf("the figure's HTML does not name the change")
	}
}

// The bound note is computed from the parts simulated: with halved links the links
// bind, and no number of the paper's parts appears.
func TestArrayBoundNoteOfTheSimulatedParts(t *testing.T) {
	paper, err := ArrayBoundNote()
	if err != nil {
		t.Fatal(err)
	}
	half, err := ArrayBoundNoteOf(halfLinks)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("paper: %s\nhalf links: %s", paper, half)
	if paper == half {
		t.Fatal("the same note for halved links")
	}
	for _, want := range []string{"parts changed, what-if: link 1.6 -> 0.8 TB/s", "(1.60 TB/s)"} {
		if !strings.Contains(half, want) {
			t.Errorf("halved links: the note does not say %q", want)
		}
	}
	if strings.Contains(half, "(3.20 TB/s)") {
		t.Error("halved links: the note gives the paper's link drain")
	}
}
