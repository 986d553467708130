package reproduce

import (
	"errors"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
)

// halfLinks halves every link's usable rate (a what-if).
var halfLinks = []dash.Setting{{Path: "link.usable", Value: "0.8 TB/s"}}

// A Fig. 9 sweep with halved links is a what-if: its summary lists the change and the
// model left out, the charts' subtitles name them and its rows are what-ifs, not FAIL.
func TestFig9WhatIf(t *testing.T) {
	grid := func(knobs []dash.Setting) []summary.Case {
		return Fig9Grid(dash.ReadingPaper, []string{"qwen3-235b-a22b"}, Fig9Systems, []int{4}, []Fig9bWorkload{{Prompt: 1024, Output: 17}}, knobs)
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
	if strings.Contains(paper.WhatIf.String(), "link") || strings.Contains(paper.WhatIf.String(), "reading") {
		t.Errorf("the paper's parts: %q", paper.WhatIf)
	}
	phys := SummariseFig9(Sweep(Fig9Grid(dash.ReadingPhysical, []string{"qwen3-235b-a22b"}, Fig9Systems, []int{4}, []Fig9bWorkload{{Prompt: 1024, Output: 17}}, nil), 0))
	if !strings.Contains(phys.WhatIf.String(), "reading paper -> physical") {
		t.Errorf("the physical reading: %q", phys.WhatIf)
	}
	// a what-if's rows are shown, not judged (one model at B = 4 is a what-if of the
	// paper's design too); the paper's Fig. 9(a) is judged
	if len(whatIf.Rows) != 6 || len(paper.Rows) != 6 {
		t.Fatalf("rows: %d paper, %d what-if", len(paper.Rows), len(whatIf.Rows))
	}
	for _, r := range append(whatIf.Rows, paper.Rows...) {
		if r.Status() != summary.StatusWhatIf || r.Pass != nil {
			t.Errorf("%s: %s, want what-if", r.ID, r.Status())
		}
	}
	var full []summary.Point
	for _, c := range fig9aSpecs(dash.ReadingPaper) {
		full = append(full, summary.Point{Case: c})
	}
	for _, r := range SummariseFig9(full).Rows {
		if r.WhatIf { // (no results: not simulated, but the paper's experiment)
			t.Errorf("the paper's design: %s is a what-if", r.ID)
		}
	}
}

// The bound note is computed from the parts simulated: with halved links the links
// bind, and no number of the paper's parts appears.
func TestArrayBoundNoteOfTheSimulatedParts(t *testing.T) {
	paper, err := ArrayBoundNote()
	if err != nil {
		t.Fatal(err)
	}
	half, err := arrayBoundNoteOf(halfLinks)
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

// The paper's own Fig. 9(a) and 9(b) designs are no what-if.
func TestFig9DesignOfThePaper(t *testing.T) {
	for name, cases := range map[string][]summary.Case{"fig9a": fig9aSpecs(dash.ReadingPaper), "fig9b": fig9bSpecs(dash.ReadingPaper)} {
		var points []summary.Point
		for _, c := range cases {
			points = append(points, summary.Point{Case: c})
		}
		if w := fig9Design(points); w.Any() {
			t.Errorf("%s: %v", name, w)
		}
	}
}

// A refused knob fails every case alike: the sweep's error says so once per message,
// naming the field and the value.
func TestSweepErrOfARefusedKnob(t *testing.T) {
	tooShort := []dash.Setting{{Path: "hbf.t_read", Value: "3ns"}}
	cases := Fig9Grid(dash.ReadingPaper, []string{"qwen3-235b-a22b", "mixtral-8x22b"}, []string{"dash"}, []int{1, 4}, []Fig9bWorkload{{Prompt: 1024, Output: 17}}, tooShort)
	err := summary.SweepErr(Sweep(cases, 0))
	if err == nil {
		t.Fatal("t_R = 3 ns ran")
	}
	msg := err.Error()
	if n := strings.Count(msg, "hbf.t_read = 3ns"); n != 1 || !strings.Contains(msg, "4 cases (") {
		t.Errorf("the error names the refusal %d times: %s", n, msg)
	}
	var re *dash.RangeError
	if !errors.As(err, &re) {
		t.Errorf("%v: not a *dash.RangeError", err)
	}
}

// A lookahead study off the paper's design is a what-if (its t_R axis is not).
func TestFig11WhatIf(t *testing.T) {
	tr := []unit.Duration{3 * unit.Microsecond}
	paper, err := LookaheadStudy(summary.LookaheadSetup{Reading: dash.ReadingPaper}, []string{"qwen3-235b-a22b"}, []unit.Duration{32 * unit.Microsecond}, "dash", 1, 4096, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := paper[0].WhatIf.String(); got != "what-if: B/L_in/L_out 1/4K/128 -> 1/4K/4" {
		t.Errorf("the paper's parts at t_R 32 µs, 4 output tokens: %q", got)
	}
	other, err := LookaheadStudy(summary.LookaheadSetup{Reading: dash.ReadingPhysical}, []string{"qwen3-235b-a22b"}, tr, "relay-only", 1, 4096, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(other[0].Rows) != 2 || len(paper[0].Rows) != 2 {
		t.Fatalf("rows: %d, %d", len(other[0].Rows), len(paper[0].Rows))
	}
	for _, r := range append(other[0].Rows, paper[0].Rows...) { // 4 output tokens: a what-if too
		if r.Status() != summary.StatusWhatIf {
			t.Errorf("%s: %s, want what-if", r.ID, r.Status())
		}
	}
	for _, want := range []string{"system dash -> relay-only", "reading paper -> physical"} {
		if !strings.Contains(other[0].WhatIf.String(), want) {
			t.Errorf("%q does not say %q", other[0].WhatIf, want)
		}
	}
}

// The KV split of the paper's Fig. 12 run is no what-if and names its run; a shorter
// decode and a slower link are named on the chart's what-if line.
func TestFig12Changes(t *testing.T) {
	paper := summary.Case{Model: Fig12Model, System: "dash", Batch: 1, Prompt: fig12Workload.Prompt, Output: fig12Workload.Output}
	exp, err := Build(paper)
	if err != nil {
		t.Fatal(err)
	}
	if w := Fig12Changes(paper, exp); w.Any() {
		t.Errorf("the paper's run: %v", w)
	}
	other := paper
	other.Output, other.Knobs = 262_144, halfLinks
	if exp, err = Build(other); err != nil {
		t.Fatal(err)
	}
	w := Fig12Changes(other, exp)
	if got := w.String(); got != "what-if: link 1.6 -> 0.8 TB/s, B/L_in/L_out 1/4K/1M -> 1/4K/256K" {
		t.Errorf("what-if %q", got)
	}
}

// A Fig. 12 study of a shorter decode is a what-if: its rows are not judged by the
// paper's 1M-token numbers and its charts say so.
func TestFig12StudyWhatIf(t *testing.T) {
	res, err := Fig12Study(Fig12Setup{Readings: []dash.Reading{dash.ReadingPaper}, Output: 64, DecodeSample: 16}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := res.WhatIf.String(); got != "what-if: L_in/L_out 4K/1M -> 4K/64" {
		t.Errorf("what-if %q", got)
	}
	if len(res.Rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range res.Rows {
		if !r.WhatIf || r.Pass != nil {
			t.Errorf("%s: judged against the paper's 1M-token run", r.ID)
		}
	}
	if !strings.HasPrefix(res.ModelName, "Llama") {
		t.Errorf("model name %q", res.ModelName)
	}
}
