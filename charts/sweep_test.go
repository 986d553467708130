package charts

import (
	"math"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/summary"
)

// Made-up example data, not the simulator's numbers.
func TestSweepHeatMap(t *testing.T) {
	h := summary.HeatMap{XAxis: "overrides.hbf.t_read", YAxis: "overrides.hbf.page_size", Metric: "decode_throughput_tok_per_s",
		X: []string{"1µs", "3µs"}, Y: []string{"4 KiB", "8 KiB"}, Z: [][]float64{{200, 120}, {260, math.NaN()}}}
	c, err := SweepHeatMap(Common{ID: "test_sweep_heat", Title: "made-up example data"}, h, SweepMark{X: "3us", Y: "4 KiB", Label: "the paper"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Snippet(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"heatmap"`, `"overrides.hbf.t_read"`, `"the paper"`, `"4 KiB"`, `[1,0,120]`} {
		if !strings.Contains(string(s), want) {
			t.Errorf("snippet lacks %s", want)
		}
	}
	if strings.Contains(string(s), "NaN") {
		t.Errorf("a missing cell was drawn")
	}
	for _, x := range []string{"3µs", "3us"} { // rows say µs; the ASCII spelling finds them too
		if _, err := SweepHeatMap(Common{}, h, SweepMark{X: x, Y: "8 KiB"}); err != nil {
			t.Errorf("mark at %s: %v", x, err)
		}
	}
	if _, err := SweepHeatMap(Common{}, h, SweepMark{X: "2us", Y: "4 KiB"}); err == nil {
		t.Errorf("a mark off the grid was accepted")
	}
	if _, err := SweepHeatMap(Common{}, summary.HeatMap{}); err == nil {
		t.Errorf("an empty heat map was accepted")
	}
}
