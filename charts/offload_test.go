package charts

import (
	"math"
	"testing"
)

func TestFractionalIndex(t *testing.T) {
	if got := fractionalIndex([]float64{1, 2, 4}, 2*math.Sqrt2); math.Abs(got-1.5) > 1e-12 {
		t.Errorf("fractionalIndex = %g, want 1.5 (halfway in log r)", got)
	}
}
