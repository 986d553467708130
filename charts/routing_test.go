package charts

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash/routing"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
)

// The routing figure draws the trace's skew per layer, every case's TPOT
// and tail, the route sets' busy time where a case has two paths, and a
// table naming the cache's work; a case under balanced routing has no
// per-token statistics and shows dashes.
func TestRoutingFigure(t *testing.T) {
	st := routing.Stats{Layers: []int{0, 1, 2}, Experts: 8, TopK: 2, Tokens: 100, HotLoad: []float64{1.4, 1.3, 1.2},
		FirstRepeat: []float64{0.27, 0.26, 0.28}, AnyRepeat: []float64{0.63, 0.62, 0.64}, NextLayer: []float64{0, 0.3, 0.28},
		FirstRepeatRandom: 0.125, AnyRepeatRandom: 0.464}
	g := &sim.RoutingStats{DistinctMean: 7.1, DirectTime: 5 * unit.Millisecond, RelayTime: 4 * unit.Millisecond, IdealTime: 4500 * unit.Microsecond,
		Imbalance: 0.111, StepP50: 52 * unit.Millisecond, StepP99: 54 * unit.Millisecond,
		Cache: &sim.CacheStats{Policy: "lru", Capacity: 39, HitRate: 0.088, Fills: 504}}
	s := summary.RoutingStudy{ID: "mixtral-8x22b", Model: "mixtral-8x22b", System: "dash", Batch: 8, Prompt: 256, Output: 128,
		Trace: "t.parquet", Stats: st, Cases: []summary.RoutingCase{
			{ID: "balanced", Label: "balanced", Result: sim.Result{System: "dash", TPOT: 55 * unit.Millisecond}},
			{ID: "trace_cache", Label: "trace, cache", Result: sim.Result{System: "dash", TPOT: 57 * unit.Millisecond, Routing: g}},
		}}
	fig, err := RoutingFigure(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(fig.Charts) != 4 {
		t.Errorf("%d charts, want skew, locality, TPOT and route sets", len(fig.Charts))
	}
	h, err := fig.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Hottest expert", "8.8% of 39 experts held (504 fills)", "11.1%", "T_Direct", "t.parquet"} {
		if !strings.Contains(string(h), want) {
			t.Errorf("figure lacks %q", want)
		}
	}
	if _, err := RoutingFigure(summary.RoutingStudy{}); err == nil {
		t.Error("a study without cases drawn")
	}
	if _, err := RoutingSkew("x", "t", routing.Stats{}); err == nil {
		t.Error("a trace without layers drawn")
	}
}
