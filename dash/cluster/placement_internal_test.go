package cluster

import (
	"math"
	"testing"
)

// Pair shares never give an expert more pairs than tokens (at most 1/k
// each), sum to 1, keep the popularity's order, and are the popularity
// itself where it needs no cap.
func TestPairSharesCapAtOnePerToken(t *testing.T) {
	for _, s := range []float64{0.3, 1, 1.2, 2, 5} {
		for _, k := range []int{1, 2, 8} {
			r := RoutingSpec{Kind: RoutingZipf, ZipfS: s, Seed: 7}
			raw := r.popularity(0, 128, 1)
			got := r.popularity(0, 128, k)
			sum, most := 0.0, 0.0
			for i := range got {
				sum += got[i]
				most = max(most, raw[i])
				if got[i] > 1/float64(k)+1e-12 {
					t.Errorf("s %v k %d: expert %d gets %v of the pairs, above 1/k", s, k, i, got[i])
				}
				for j := range got {
					if raw[i] > raw[j] && got[i] < got[j]-1e-15 {
						t.Errorf("s %v k %d: order of %d and %d reversed", s, k, i, j)
					}
				}
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("s %v k %d: shares sum to %v", s, k, sum)
			}
			if most <= 1/float64(k) {
				for i := range got {
					if math.Abs(got[i]-raw[i]) > 1e-15 {
						t.Errorf("s %v k %d: no cap needed, yet share %d moved %v -> %v", s, k, i, raw[i], got[i])
					}
				}
			}
		}
	}
}
