package resultdocs

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

const root = "../.."

func golden(t *testing.T) []summary.Row {
	t.Helper()
	rows, err := Load(filepath.Join(root, GoldenPath))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// README's generated regions are what the committed reproduction gives: an edit by
// hand, or a reproduction committed without regenerating, fails here.
func TestDocsAreGenerated(t *testing.T) {
	stale, err := Stale(root, golden(t), false)
	if err != nil {
		t.Fatal(err)
	}
	if len(stale) > 0 {
		t.Errorf("generated regions stale in %s: run go generate ./internal/resultdocs", strings.Join(stale, ", "))
	}
}

// No simulated number is typed in prose.
func TestNoTypedSimulatedNumbers(t *testing.T) {
	found, err := TypedNumbers(root, golden(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("typed in prose: %v (generate it, or print it from a notebook cell)", f)
	}
}

// The committed reproduction is one of paper.yaml: the same ids in its order (each
// followed by the other readings' rows), the same published values and tolerances, and
// the verdicts the harness's judge gives today.
func TestGoldenIsOfPaperYAML(t *testing.T) {
	entries, err := reference.Paper()
	if err != nil {
		t.Fatal(err)
	}
	rows := golden(t)
	var want []string
	for _, e := range entries {
		want = append(want, e.ID)
	}
	var got []string
	for _, r := range rows {
		if !r.Beside() {
			got = append(got, r.ID)
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ids differ from paper.yaml's:\n got %v\nwant %v", got, want)
	}
	byID := map[string]reference.PaperEntry{}
	for _, e := range entries {
		byID[e.ID] = e
	}
	for _, r := range rows {
		e := byID[r.BaseID()]
		if r.Paper != e.Value || r.Unit != e.Unit || r.Section != e.Section || r.Tolerance != e.AbsTolerance() || r.Note != e.Note ||
			(r.AtMost == nil) != (e.AtMost == 0) {
			t.Errorf("%s: paper %v %s (%s, ±%v), paper.yaml %v %s (%s, ±%v)", r.ID, r.Paper, r.Unit, r.Section, r.Tolerance, e.Value, e.Unit, e.Section, e.AbsTolerance())
		}
		checked := !r.Beside()
		switch {
		case r.Simulated == nil:
		case e.SimulatedOnly: // beyond the paper: never a verdict
			if r.Pass != nil || r.Deviation != nil {
				t.Errorf("%s: a simulated-only row with a verdict or deviation", r.ID)
			}
		case checked && (r.Pass == nil || *r.Pass != e.Passes(*r.Simulated)):
			t.Errorf("%s: verdict %v, the judge gives %v", r.ID, r.Pass, e.Passes(*r.Simulated))
		case !checked && r.Pass != nil:
			t.Errorf("%s: a reported row with a verdict", r.ID)
		}
	}
}

func TestGenerate(t *testing.T) {
	x, y := 1.23456, 2.0
	yes := true
	rows := []summary.Row{{ID: "a.b", Unit: "x", Paper: 1.5, Simulated: &x, Tolerance: 0.15, Pass: &yes},
		{ID: "a.b.physical", Unit: "x", Paper: 1.5, Simulated: &y, Reading: "physical"}}
	rows[0].Reading = "paper"
	in := "speedup <!--v a.b %.2fx-->old<!--/v--> (<!--v a.b pass-->?<!--/v-->), physical <!--v a.b.physical %.1f-->0<!--/v-->\n" +
		"<!-- BEGIN GENERATED rows (hand-edited) -->\nstale\n<!-- END GENERATED rows -->\n"
	out, err := Generate(in, rows)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!--v a.b %.2fx-->1.23x<!--/v-->", "<!--v a.b pass-->pass<!--/v-->", "<!--v a.b.physical %.1f-->2.0<!--/v-->",
		"| `a.b` | 1.5x | 1.235x | physical: 2x | ±0.15x | pass |"} {
		if !strings.Contains(out, want) {
			t.Errorf("generated text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "stale") {
		t.Error("the block was not rewritten")
	}
	if again, _ := Generate(out, rows); again != out {
		t.Error("generating twice changes the text")
	}
	if _, err := Generate("<!--v no.such %.1f-->1<!--/v-->", rows); err == nil {
		t.Error("an unknown id was accepted")
	}
	if _, err := Generate("<!-- BEGIN GENERATED nothing -->\n<!-- END GENERATED nothing -->", rows); err == nil {
		t.Error("an unknown block was accepted")
	}
	if got := Strip(out); strings.Contains(got, "1.23") || strings.Count(got, "\n") != strings.Count(out, "\n") {
		t.Errorf("Strip: %q", got)
	}
}

func TestFind(t *testing.T) {
	x, y := 36.3456, 1.7571
	rows := []summary.Row{{ID: "e2e", Paper: 42.2, Simulated: &x}, {ID: "tput", Paper: 1.9, Simulated: &y}}
	n := NewNumbers(rows)
	text := "E2E 36.3% shorter, speedup 1.76x over RelayOnly; paper 42.2% and 1.90x; a 1.5 TB stack; " +
		"per step 1.58x; version 1.26.8; id tr36.3us; 36.35 s"
	var got []string
	for _, f := range n.Find("f", text) {
		got = append(got, f.Text)
	}
	want := []string{"36.3%", "1.76x", "1.58x", "36.35"}
	if !slices.Equal(got, want) {
		t.Errorf("found %v, want %v", got, want)
	}
}
