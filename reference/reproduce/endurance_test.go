package reproduce

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash/endurance"
	"github.com/dashlab/dashlab/summary"
)

func TestEnduranceStudy(t *testing.T) {
	res, err := defaultEndurance()
	if err != nil {
		t.Fatal(err)
	}
	m := res.Measurement
	if m.WriteRate <= 0 || m.KVCapacity <= 0 || !strings.Contains(m.WriteRateSource, "fixed-batch") {
		t.Fatalf("measurement %+v", m)
	}
	if len(res.Years) != len(EnduranceLoads) || len(res.Years[0]) != len(endurance.PECycles) {
		t.Fatalf("grid %v", res.Years)
	}
	for i, row := range res.Years {
		for j, y := range row {
			if y <= 0 || (j > 0 && y <= row[j-1]) || (i > 0 && y >= res.Years[i-1][j]) {
				t.Errorf("load %g, %g cycles: %g years is not monotone (more cycles: longer; more load: shorter)", res.Loads[i], res.PECycles[j], y)
			}
		}
	}
	// A measured write amplification shortens the lifetime in proportion.
	wa2, err := EnduranceStudy(EnduranceCase, 2, "test", EnduranceLoads[:1], endurance.PECycles[:1])
	if err != nil {
		t.Fatal(err)
	}
	if r := wa2.Years[0][0] / res.Years[0][0]; r < 0.4999 || r > 0.5001 {
		t.Errorf("A_W = 2 changed the lifetime by %g, want 0.5", r)
	}
}

func TestEnergyOverFig9aSystems(t *testing.T) {
	var cases []summary.Case
	for _, s := range Fig9Systems {
		cases = append(cases, summary.Case{Model: "mixtral-8x22b", System: s, Batch: 4, Prompt: 1024, Output: 16})
	}
	pts, err := EnergyStudy(Sweep(cases, 0), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pts {
		if p.Err != nil || p.Breakdown.PerToken() <= 0 || len(p.Breakdown.Routes) == 0 {
			t.Errorf("%s: %+v", p.System, p)
		}
	}
	// Relay data cross two links: RelayOnly spends more link energy per
	// token than DirectOnly on the same work.
	if pts[2].Breakdown.Link <= pts[3].Breakdown.Link {
		t.Errorf("relay-only link energy %g J <= direct-only %g J", pts[2].Breakdown.Link, pts[3].Breakdown.Link)
	}
}
