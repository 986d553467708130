package reproduce

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/summary"
)

func TestFig10(t *testing.T) {
	rep, err := Run(Options{Only: "fig10."})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 8 {
		t.Fatalf("%d rows", len(rep.Rows))
	}
	for _, r := range rep.Rows {
		if r.Simulated == nil || (r.Pass == nil) != strings.HasSuffix(r.ID, ReadingSuffix(dash.ReadingPhysical)) {
			t.Fatalf("%s not simulated", r.ID)
		}
		if strings.Contains(r.ID, "slowdown") && *r.Simulated <= 1 {
			t.Errorf("%s = %g: an offloading scheme faster than DASH", r.ID, *r.Simulated)
		}
	}
	f, phys := rep.Artifacts.Fig10[dash.ReadingPaper], rep.Artifacts.Fig10[dash.ReadingPhysical]
	if f == nil || phys == nil || len(f.Evaluations) != len(Fig10Batches) || len(f.Measured) != len(Fig10Batches) || len(phys.Evaluations) != len(Fig10Batches) {
		t.Fatalf("artifacts %+v", f)
	}
	if len(f.Rows) != 4 || phys.Rows[0].Status() != summary.StatusWhatIf {
		t.Errorf("rows: %d, physical %+v", len(f.Rows), phys.Rows)
	}
	for _, e := range f.Evaluations {
		if !e.CPUModelled || e.Scenario.Cores != Fig10Cores {
			t.Errorf("B=%d: %d cores not marked modelled", e.Scenario.Batch, e.Scenario.Cores)
		}
		if e.Hybrid.TPOT > e.BetterSingle().TPOT {
			t.Errorf("B=%d: hybrid worse than the better single path", e.Scenario.Batch)
		}
	}
	for _, e := range f.Measured {
		if e.CPUModelled {
			t.Errorf("B=%d: 16 cores were measured, marked modelled", e.Scenario.Batch)
		}
	}
	modelled := 0
	for _, p := range f.Curve {
		if p.Modelled != (p.Cores == 32) {
			t.Errorf("curve point %+v: modelled flag wrong", p)
		}
		if p.Modelled {
			modelled++
		}
	}
	if modelled != 4 {
		t.Errorf("%d modelled curve points, want one per batch", modelled)
	}
}
