package reproduce

import (
	"fmt"

	"github.com/dashlab/dashlab/reference"
)

func init() {
	register(group{name: "gpu", prefixes: []string{"gpu."}, run: runGPU})
}

// runGPU validates the GPU timing model the way the paper reports its own
// (§VI-A): relative errors of predictions at measured points, here by
// leave-one-out over the shipped GEMM measurements of the H200 profile.
func runGPU(_ Options, art *Artifacts) (Values, error) {
	var v Values
	p, err := reference.LoadProfile(reference.DefaultProfile)
	if err != nil {
		return v, err
	}
	stats, err := p.LeaveOneOut()
	if err != nil {
		return v, err
	}
	art.GPUValidation = stats
	for _, s := range stats {
		if s.Kind != "gemm" {
			continue
		}
		detail := fmt.Sprintf("leave-one-out over %d GEMM points of the %s profile", s.Count, reference.DefaultProfile)
		v.Set("gpu.timing_model.median_err_pct", s.MedianPct, detail)
		v.Set("gpu.timing_model.p90_err_pct", s.P90Pct, detail)
	}
	return v, nil
}
