package charts

import (
	"math"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
)

func figureHTML(t *testing.T, f Figure, err error) string {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	h, err := f.HTML()
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

func mustContain(t *testing.T, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("missing %q", w)
		}
	}
}

func TestPaperTable(t *testing.T) {
	yes, no := true, false
	one, two := 1.0, 2.0
	rows := []summary.Row{
		{ID: "a.b", Unit: "GB", Section: "§I", Paper: 1, Simulated: &one, Deviation: new(float64), Tolerance: 0.1, Pass: &yes},
		{ID: "c.d", Unit: "x", Paper: 1, Simulated: &two, Deviation: &one, Tolerance: 0.1, Pass: &no, Detail: "how <it> was got"},
		{ID: "e.f", Unit: "%", Paper: 3, Tolerance: 1, Note: "not yet"},
	}
	s := string(PaperTable("Table", rows))
	mustContain(t, s, "3 ids: 1 pass, 1 fail, 1 not simulated yet", `data-status="pass"`, `data-status="FAIL"`,
		`data-status="not simulated yet"`, "a.<wbr>b", "how &lt;it&gt; was got", "Paper: not yet", "+1 x<br>(+100.0 %)")
}

func TestBarNotesAndReferenceLines(t *testing.T) {
	spec := BarSpec{
		Common:     Common{ID: "notes"},
		Categories: []string{"a", "b"},
		Series:     []Series{{Name: "x", Values: []float64{1, math.NaN()}}, {Name: "y", Values: []float64{2, 3}}},
		Absent:     []BarNote{{Series: "x", Category: "b", Text: "does not fit"}},
		RefLines:   []RefLine{{Name: "paper: 5", Y: 5, Label: "5"}},
		Bands:      []Band{{Name: "range", Lo: 1, Hi: 2}},
	}
	h, err := Render(GroupedBar(spec))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, string(h), "no bar: does not fit", `"paper: 5"`, `"markArea"`, `"max":5.5`)
	bad := spec
	bad.Absent = []BarNote{{Series: "y", Category: "b", Text: "does not fit"}}
	if _, err := GroupedBar(bad); err == nil {
		t.Error("a note over a bar that has a value was accepted")
	}
	bad.Absent = []BarNote{{Series: "z", Category: "b", Text: "x"}}
	if _, err := GroupedBar(bad); err == nil {
		t.Error("a note for an unknown series was accepted")
	}
}

func TestLegendWraps(t *testing.T) {
	var series []Series
	for _, n := range []string{"a fairly long series name one", "a fairly long series name two", "a fairly long series name three",
		"a fairly long series name four", "a fairly long series name five"} {
		series = append(series, Series{Name: n, Values: []float64{1}})
	}
	h, err := Render(GroupedBar(BarSpec{Common: Common{ID: "legend", Height: "400px"}, Categories: []string{"c"}, Series: series}))
	if err != nil {
		t.Fatal(err)
	}
	mustContain(t, string(h), `"type":"plain"`)
	if strings.Contains(string(h), "height:400px") {
		t.Error("the chart did not grow for its wrapped legend")
	}
}

func TestNamesModel(t *testing.T) {
	for _, c := range []struct {
		name, model, modelName string
		want                   bool
	}{
		{"DeepSeek-V2, conventional", "deepseek-v2", "DeepSeek-V2", true},
		{"DS-V2, conventional", "deepseek-v2", "", true},
		{"Qwen3, lookahead", "qwen3-235b-a22b", "", true},
		{"conventional selection", "qwen3-235b-a22b", "Qwen3-235B-A22B", false},
		{"DASH", "deepseek-v2", "DeepSeek-V2", false},
	} {
		if got := namesModel(NamedResult{Name: c.name, Result: sim.Result{Model: c.model}, ModelName: c.modelName}); got != c.want {
			t.Errorf("namesModel(%q, %q) = %v", c.name, c.model, got)
		}
	}
}

// ResultTable writes its ratio and reduction columns at one precision, the reference row
// included ("1.000×" beside "0.982×", not "1"), a reduction that rounds to zero as
// "0.00 %" (not "-0.00399 %"), and a dash where the reference has no rate to divide by.
func TestResultTableFormatsRatiosAlike(t *testing.T) {
	ref := sim.Result{Model: "m", System: "dash", E2E: 10 * unit.Second, DecodeThroughput: 100}
	near := ref
	near.E2E, near.DecodeThroughput = unit.Duration(float64(10*unit.Second)*1.0000399), 98.2
	got := string(ResultTable("", []NamedResult{{Name: "paper", Result: ref}, {Name: "what-if", Result: near}}))
	for _, want := range []string{">1.000×<", ">0.00 %<", ">0.982×<"} {
		if strings.Count(got, want) < 1 {
			t.Errorf("table has no cell %q", want)
		}
	}
	if strings.Contains(got, "0.00399") || strings.Contains(got, ">-0.00 %<") || strings.Contains(got, ">1<") {
		t.Errorf("table keeps a three-significant-digit or unitless cell:\n%s", got)
	}
	zero := ResultTable("", []NamedResult{{Name: "a", Result: sim.Result{Model: "m"}}, {Name: "b", Result: ref}})
	if strings.Count(string(zero), ">—<") != 2 {
		t.Errorf("a reference without a rate: want two dashes\n%s", zero)
	}
}
