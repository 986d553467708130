package charts

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/dash/unit"
)

// The comparison figure draws every contender, writes "misses the target"
// where one cannot meet it, and tabulates the provisioning.
func TestClusterComparisonFigure(t *testing.T) {
	cmp := &cluster.Comparison{TPOTTarget: 150 * unit.Millisecond,
		Capacities: []cluster.Capacity{
			{Label: "HBM EP8", GPUs: 8, Price: 1, TokensPerS: 4000, PerGPU: 500, PerCost: 500, BreakEvenPrice: 1},
			{Label: "DASH 1 GPU", GPUs: 1, Price: 1, TokensPerS: 200, PerGPU: 200, PerCost: 200, BreakEvenPrice: 0.4},
			{Label: "slow", GPUs: 1, Price: 1, Note: "P90 TPOT above"},
		},
		Provisions: []cluster.Provision{{TargetTokS: 1000, Instances: []int{1, 5, 0}, GPUs: []int{8, 5, 0}, Cost: []float64{8, 5, 0}},
			{TargetTokS: 10000, Instances: []int{3, 50, 0}, GPUs: []int{24, 50, 0}, Cost: []float64{24, 50, 0}}}}
	fig, err := ClusterComparison(cmp, "qwen3-235b-a22b")
	if err != nil {
		t.Fatal(err)
	}
	h, err := fig.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"DASH 1 GPU", "misses the target", "cannot", "24 (24.0)", "break-even"} {
		if !strings.Contains(string(h), want) {
			t.Errorf("figure lacks %q", want)
		}
	}
	if _, err := ClusterComparison(nil, "x"); err == nil {
		t.Error("nil comparison drawn")
	}
}
