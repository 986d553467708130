package summary

import "math"

// Geomean is the geometric mean of positive values (NaN for none).
func Geomean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(xs)))
}

// ReductionPct is 100 x (1 - a/b): the reduction of a relative to b in percent.
func ReductionPct(a, b float64) float64 { return 100 * (1 - a/b) }

// PairedRatio returns DASH's decode-throughput ratio and E2E-latency ratio over a
// baseline run of the same work: the paired ratios Fig. 9's geomeans are taken over.
func PairedRatio(dash, base Point) (throughput, e2e float64) {
	return dash.Result.DecodeThroughput / base.Result.DecodeThroughput, dash.Result.E2E.Seconds() / base.Result.E2E.Seconds()
}
