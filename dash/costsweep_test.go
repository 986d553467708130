package dash

import (
	"math"
	"testing"

	"github.com/dashlab/dashlab/dash/unit"
)

func TestCostGainMatchesClosedForm(t *testing.T) {
	s, err := PaperSystem("dash")
	if err != nil {
		t.Fatal(err)
	}
	// §VI-G: G(r, δ) = (1072 / 96) x 4 / (2 + 2r + δ) = 44.67 / (2 + 2r + δ).
	closed := func(r, d float64) float64 { return (1072.0 / 96.0) * 4 / (2 + 2*r + d) }
	table := []struct{ r, d, want float64 }{
		{1, 0, 11.1667}, {0.5, 0, 14.8889}, {2, 0, 7.4444}, {21.3333, 0, 1.0000},
		{1, 1, 8.9333}, {1, 4, 5.5833}, {4, 2.5, 3.5733}, {10, 10, 1.3958}, {0.1, 0.25, 18.2313},
	}
	var rs, ds []float64
	for _, c := range table {
		got := CostModel{R: c.r, Delta: c.d}.Gain(s)
		if math.Abs(got-closed(c.r, c.d)) > 1e-9 || math.Abs(got-c.want) > 5e-4 {
			t.Errorf("G(%g, %g) = %.6f, closed form %.6f, table %.4f", c.r, c.d, got, closed(c.r, c.d), c.want)
		}
		rs, ds = append(rs, c.r), append(ds, c.d)
	}
	grid, err := CostSweep(s, rs, ds)
	if err != nil || len(grid) != len(rs)*len(ds) {
		t.Fatalf("sweep: %d points, %v", len(grid), err)
	}
	for _, p := range grid {
		if math.Abs(p.Gain-closed(p.R, p.Delta)) > 1e-9 {
			t.Errorf("sweep point %+v: closed form %.6f", p, closed(p.R, p.Delta))
		}
	}
	line, err := BreakevenLine(s, []float64{0, 1, 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range line {
		if g := (CostModel{R: p.R, Delta: p.Delta}).Gain(s); math.Abs(g-1) > 1e-9 {
			t.Errorf("breakeven %+v has G = %g", p, g)
		}
	}
	if math.Abs(line[0].R-21.3333) > 5e-4 {
		t.Errorf("breakeven r at δ = 0: %g, want 21.33", line[0].R)
	}
	for _, bad := range []CostModel{{R: 0}, {R: -1}, {R: math.NaN()}, {R: 1, Delta: -0.5}, {R: math.Inf(1)}} {
		if _, err := CostSweep(s, []float64{bad.R}, []float64{bad.Delta}); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

func TestScalePairs(t *testing.T) {
	s, _ := PaperSystem("dash")
	rows, err := ScalePairs(s, 8)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rows {
		n := p.Pairs
		if p.GPUFacingLinks != 2*n || p.PairLocalLinks != n || p.LogicalLinks != 3*n {
			t.Errorf("n=%d: links %+v, want 2n, n, 3n", n, p)
		}
		if p.Capacity != unit.Bytes(n)*(24*unit.GB+512*unit.GB) || p.ReferenceCapacity != unit.Bytes(2*n)*24*unit.GB {
			t.Errorf("n=%d: capacity %v vs %v", n, p.Capacity, p.ReferenceCapacity)
		}
		if math.Abs(p.ExpertBandwidth.TBps()-3.2*float64(n)) > 1e-9 {
			t.Errorf("n=%d: expert bandwidth %v, want 3.2n TB/s", n, p.ExpertBandwidth)
		}
		if math.Abs(p.BeachfrontMM-float64(2*n)*4*0.389) > 1e-9 {
			t.Errorf("n=%d: beachfront %g mm", n, p.BeachfrontMM)
		}
		if math.Abs(float64(p.LinkPowerLow)-float64(3*n)*6.4) > 1e-6 || math.Abs(float64(p.LinkPowerHigh)-float64(3*n)*7.68) > 1e-6 {
			t.Errorf("n=%d: link power %v..%v", n, p.LinkPowerLow, p.LinkPowerHigh)
		}
	}
	relay, _ := PaperSystem("relay-only")
	rr, _ := ScalePairs(relay, 2)
	if rr[1].ExpertBandwidth.TBps() != 3.2 || rr[1].LogicalLinks != 4 {
		t.Errorf("relay-only, 2 pairs: %+v", rr[1])
	}
	if _, err := ScalePairs(s, 0); err == nil {
		t.Error("0 pairs accepted")
	}
}
