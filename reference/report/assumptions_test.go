package report

import (
	"math"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/reference/reproduce"
	"github.com/dashlab/dashlab/summary"
)

// The assumption section draws every row, the one that moves most first, marks the
// verdicts that differ from the checked value's, writes a failed run as a dash, and
// draws nothing when the study did not run.
func TestAssumptionSection(t *testing.T) {
	tbl := &summary.AssumptionTable{Params: reproduce.AssumedParameters, Factors: reproduce.AssumptionFactors,
		Rows: []summary.AssumptionRow{
			{ID: "fig9a.steady", Unit: "x", Paper: 1.9, Base: 1.8, PassBase: true,
				Values: [][]float64{{1.8, 1.8}, {1.79, 1.81}}, Pass: [][]bool{{true, true}, {true, true}}},
			{ID: "table3.moves", Unit: "ms", Paper: 148, Base: 60, PassBase: false,
				Values: [][]float64{{140, 50}, {math.NaN(), 61}}, Pass: [][]bool{{true, false}, {false, false}}},
		}}
	if m := tbl.Movers(1); len(m) != 1 || m[0].ID != "table3.moves" {
		t.Fatalf("movers %+v", m)
	}
	if n := tbl.VerdictChanges(); n != 1 {
		t.Fatalf("%d verdict changes, want 1", n)
	}
	p := charts.NewPage("t")
	var rep reproduce.Report
	if err := assumptionSection(p, rep); err != nil {
		t.Fatal(err)
	}
	empty, _ := p.Bytes()
	rep.Artifacts.Assumptions = tbl
	if err := assumptionSection(p, rep); err != nil {
		t.Fatal(err)
	}
	html, err := p.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	s := string(html)
	for _, want := range []string{"What the unstated parameters move", "hbm.array_bandwidth", "hbf.tsv_bandwidth", "140 ms (pass*)", "—", "HBM array rate x 0.5"} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in the section", want)
		}
	}
	if i, j := strings.Index(s, "table3.moves"), strings.Index(s, "fig9a.steady"); i < 0 || j < 0 || i > j {
		t.Errorf("the row that moves most is not first (%d, %d)", i, j)
	}
	if strings.Contains(string(empty), "What the unstated") {
		t.Error("drawn without a study")
	}
}
