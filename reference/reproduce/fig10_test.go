package reproduce

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

func TestFig10(t *testing.T) {
	rep, err := Run(Options{Only: "fig10."})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 16 { // the paper's host under each of three readings, the measured host under the paper reading
		t.Fatalf("%d rows", len(rep.Rows))
	}
	for _, r := range rep.Rows {
		if r.Simulated == nil || (r.Pass == nil) != r.Beside() {
			t.Fatalf("%s not simulated, or judged when reported beside the checked value", r.ID)
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
	if f.Host != reference.PaperHost || f.Derived == nil {
		t.Errorf("checked on host %s (derived %v), want the paper's %s", f.Host, f.Derived != nil, reference.PaperHost)
	}
	for _, p := range f.Curve {
		if !p.Modelled {
			t.Errorf("curve point %+v of a derived host not marked modelled", p)
		}
	}
	m := rep.Artifacts.Fig10Measured
	if m == nil || m.Host != reference.MeasuredHost || m.Derived != nil || len(m.Rows) != 4 || m.Rows[0].Variant != VariantMeasuredHost {
		t.Fatalf("measured host's study %+v", m)
	}
	for _, e := range m.Measured {
		if e.CPUModelled {
			t.Errorf("B=%d: 16 cores were measured, marked modelled", e.Scenario.Batch)
		}
	}
	modelled := 0
	for _, p := range m.Curve {
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
	// The derived Xeon's CPU path is faster than the VM's (its DRAM, its 32 cores): the
	// Hybrid is nearer DASH, never further.
	for i, e := range f.Evaluations {
		if x, vm := e.Slowdown(e.Hybrid), m.Evaluations[i].Slowdown(m.Evaluations[i].Hybrid); x > vm {
			t.Errorf("B=%d: Hybrid %.2fx slower than DASH on the Xeon, %.2fx on the VM", e.Scenario.Batch, x, vm)
		}
	}
}
