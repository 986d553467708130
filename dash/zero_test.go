package dash

import (
	"testing"

	"github.com/dashlab/dashlab/internal/zerotest"
)

// TestZeroValuesAreSafe calls every exported method of the zero value of
// every exported type: each returns a zero value or an error, never panics.
func TestZeroValuesAreSafe(t *testing.T) {
	for _, v := range []any{
		Experiment{}, ExperimentBuilder{}, ExperimentFile{}, ModelSpec{}, SystemSpec{}, HBMSpec{}, HBFSpec{},
		LinkSpec{}, SRAMSpec{}, TopologySpec{}, WorkloadSpec{}, RoutingSpec{}, ExecutionSpec{}, Inventory{},
		Tensor{}, Footprint{}, Plan{}, StackUse{}, KVPlan{}, LayerWeights{}, RangeError{},
	} {
		for _, bad := range zerotest.CallAll(v) {
			t.Error(bad)
		}
	}
}
