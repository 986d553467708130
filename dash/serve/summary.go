package serve

import (
	"slices"

	"gonum.org/v1/gonum/stat"
)

// Dist summarises one latency metric over a run's measured requests.
type Dist struct {
	// N is the number of values.
	N int `json:"n"`
	// Mean, P50, P90 and P99 are in the metric's unit (ms or s, named by
	// the field that holds the Dist).
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
}

// Summary is one run's headline numbers.
type Summary struct {
	// TTFTs, TPOTms, E2Es, Queues and GapMS are the latency distributions.
	TTFTs  Dist `json:"ttft_s"`
	TPOTms Dist `json:"tpot_ms"`
	E2Es   Dist `json:"e2e_s"`
	Queues Dist `json:"queue_s"`
	GapMS  Dist `json:"gap_ms"`
	// OfferedRPS is the measured window's arrival rate; ThroughputRPS the
	// requests completed within the window per second of it.
	OfferedRPS    float64 `json:"offered_rps"`
	ThroughputRPS float64 `json:"throughput_rps"`
	// MeanInSystem is the time-average number of requests in the system
	// over the window; LittleLambdaW is arrival rate x mean E2E (Little's
	// law says they are equal in a stationary window).
	MeanInSystem  float64 `json:"mean_in_system"`
	LittleLambdaW float64 `json:"little_lambda_w"`
}

// Summarize computes the run's distributions and rates.
func (r *Run) Summarize() Summary {
	n := len(r.Measured)
	ttft, tpot, e2e, queue := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	for _, m := range r.Measured {
		ttft = append(ttft, m.TTFT.Seconds())
		if m.Output > 1 {
			tpot = append(tpot, m.TPOT.Milliseconds())
		}
		e2e = append(e2e, m.E2E.Seconds())
		queue = append(queue, m.Queue.Seconds())
	}
	s := Summary{TTFTs: dist(ttft), TPOTms: dist(tpot), E2Es: dist(e2e), Queues: dist(queue),
		GapMS: dist(append([]float64(nil), r.GapsMS...))}
	if w := (r.WindowEnd - r.WindowStart).Seconds(); w > 0 && r.WindowRequests > 1 {
		s.OfferedRPS = float64(r.WindowRequests-1) / w
		s.ThroughputRPS = float64(r.CompletedInWindow) / w
		s.MeanInSystem = r.InSystem / w
		s.LittleLambdaW = s.OfferedRPS * s.E2Es.Mean
	}
	return s
}

// dist sorts xs in place and summarises it (empirical quantiles).
func dist(xs []float64) Dist {
	if len(xs) == 0 {
		return Dist{}
	}
	slices.Sort(xs)
	return Dist{N: len(xs), Mean: stat.Mean(xs, nil),
		P50: stat.Quantile(0.5, stat.Empirical, xs, nil),
		P90: stat.Quantile(0.9, stat.Empirical, xs, nil),
		P99: stat.Quantile(0.99, stat.Empirical, xs, nil)}
}
