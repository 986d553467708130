package charts

import (
	"math"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
)

func TestFig9Readings(t *testing.T) {
	bounds := []summary.Fig9Bound{
		{Reading: dash.ReadingPaper, Array: unit.BytesPerSecond(math.Inf(1)), TSV: 3.2e12, Link: 1.6e12,
			Systems: []summary.SystemBound{{System: "dash", Stacks: 2, Routes: 2, PerStack: 3.2e12, Total: 6.4e12, Binding: "links"},
				{System: "relay-only", Stacks: 2, Routes: 1, PerStack: 1.6e12, Total: 3.2e12, Binding: "links"}}},
	}
	vals := []summary.ReadingValue{
		{ID: "fig9a.throughput_speedup_geomean.vs_relay_only", Unit: "x", Paper: 1.9, Values: map[dash.Reading]float64{dash.ReadingPaper: 1.73, dash.ReadingPhysical: 1.6}, Pass: true},
		{ID: "fig9a.e2e_reduction_pct.vs_relay_only", Unit: "%", Paper: 42.2, Values: map[dash.Reading]float64{dash.ReadingPaper: 35.7, dash.ReadingPhysical: 31.9}},
	}
	f, err := Fig9Readings(bounds, vals)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Charts) != 2 || len(f.Tables) != 1 {
		t.Fatalf("%d charts, %d tables", len(f.Charts), len(f.Tables))
	}
	h, err := f.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"unbounded", "6.40 TB/s", "2.00x", "physical reading", "paper reading (checked) and physical reading (reported); ticks: the paper"} {
		if !strings.Contains(string(h), want) {
			t.Errorf("no %q in the figure", want)
		}
	}
	if _, err := Fig9Readings(nil, nil); err == nil {
		t.Error("no error without data")
	}
}

func TestIDLabelReads(t *testing.T) {
	for id, want := range map[string]string{
		"fig9a.throughput_speedup_geomean.vs_relay_only":     "Fig. 9(a)\nthroughput geomean\nvs RelayOnly",
		"fig9b.llama4_4k_1m.e2e_reduction_pct.vs_relay_only": "Fig. 9(b)\nLlama 4, 4K/1M\nE2E reduction\nvs RelayOnly",
		"intro.b4.throughput_speedup_geomean.vs_relay_only":  "§I\nB = 4\nthroughput geomean\nvs RelayOnly",
		"fig9a.e2e_reduction_pct.vs_direct_only":             "Fig. 9(a)\nE2E reduction\nvs DirectOnly",
	} {
		if got := idLabel(id); got != want {
			t.Errorf("idLabel(%q) = %q, want %q", id, got, want)
		}
	}
}
