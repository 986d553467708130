package gpu

import (
	"testing"

	"github.com/dashlab/dashlab/internal/zerotest"
)

// TestZeroValuesAreSafe calls every exported method of the zero value of
// every exported type: each returns a zero value or an error, never panics.
func TestZeroValuesAreSafe(t *testing.T) {
	for _, v := range []any{Model{}, &Model{}, Op{}, OpKind(0), DType(0), Prediction{}, Point{}, Env{}, Profile{}, &Profile{}, ShapeTable{}, Spec{}, ErrorStats{}} {
		for _, bad := range zerotest.CallAll(v) {
			t.Error(bad)
		}
	}
}
