package sim

import (
	"testing"

	"github.com/dashlab/dashlab/internal/zerotest"
)

// TestZeroValuesAreSafe calls every exported method of the zero value of
// every exported type: each returns a zero value or an error, never panics.
func TestZeroValuesAreSafe(t *testing.T) {
	for _, v := range []any{Result{}, Row{}, PassResult{}, Passer{}, &Passer{}, BudgetError{}, TimeRangeError{}, OpClass(0),
		Phase{}, Timeline{}, Perf{}, KVStats{}, Options{}} {
		for _, bad := range zerotest.CallAll(v) {
			t.Error(bad)
		}
	}
}
