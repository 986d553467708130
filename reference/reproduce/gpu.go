package reproduce

import (
	"fmt"
	"time"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/gpu"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

func init() {
	register(group{name: "gpu", prefixes: []string{"gpu."}, run: runGPU})
}

// runGPU validates the GPU timing model the way the paper reports its own
// (§VI-A): relative errors of predictions at measured points, here by
// leave-one-out over the shipped GEMM measurements of the H200 profile. With
// opts.Figures it adds the held-out studies the report's figure draws.
func runGPU(opts Options, art *Artifacts) (values, error) {
	p, err := reference.LoadProfile(reference.DefaultProfile)
	if err != nil {
		return values{}, err
	}
	stats, err := p.LeaveOneOut()
	if err != nil {
		return values{}, err
	}
	v := gpuValues(stats)
	art.GPU = summary.GPUValidation{Profile: p, LeaveOneOut: stats, Rows: judgeAll(v, nil)}
	if opts.Figures {
		start := time.Now()
		derived, err := reference.Timing(reference.DefaultGPU)
		if err != nil {
			return v, err
		}
		if art.GPU, err = validate(p, derived, stats); err != nil {
			return v, err
		}
		art.figureTime("GPU held-out studies", time.Since(start))
	}
	return v, nil
}

// gpuValues are the gpu.timing_model ids from the leave-one-out statistics.
func gpuValues(stats []gpu.ErrorStats) values {
	var v values
	for _, s := range stats {
		if s.Kind != "gemm" {
			continue
		}
		detail := fmt.Sprintf("leave-one-out over %d GEMM points of the %s profile", s.Count, reference.DefaultProfile)
		v.Set("gpu.timing_model.median_err_pct", s.MedianPct, detail)
		v.Set("gpu.timing_model.p90_err_pct", s.P90Pct, detail)
	}
	return v
}

// GPUValidation validates a timing model's measured profile (§VI-A): the leave-one-out
// errors the gpu.timing_model ids are judged on, the held-out studies (whole shape
// families, a model's GEMMs, one size), the profile's own noise and the held-out
// predictions, with derived (nil: none) the timing model of another GPU drawn beside
// the measurements. The ids are what-ifs for a profile other than the shipped one.
func GPUValidation(p *gpu.Profile, derived *gpu.Model) (summary.GPUValidation, error) {
	stats, err := p.LeaveOneOut()
	if err != nil {
		return summary.GPUValidation{}, err
	}
	return validate(p, derived, stats)
}

func validate(p *gpu.Profile, derived *gpu.Model, loo []gpu.ErrorStats) (summary.GPUValidation, error) {
	v := summary.GPUValidation{Profile: p, Derived: derived, LeaveOneOut: loo, Repeats: p.Repeats()}
	var err error
	if v.Checks, err = p.HeldOutChecks(); err != nil {
		return v, err
	}
	if v.HeldOut, err = p.HeldOut(); err != nil {
		return v, err
	}
	v.HeldOutByModel, _ = p.HeldOutByModel() // a profile with one model's GEMMs has nothing to hold out
	if v.HeldOutSizes, err = p.HeldOutSweep(); err != nil {
		return v, err
	}
	if v.SizeJitter, err = p.SweepJitter(); err != nil {
		return v, err
	}
	var w summary.WhatIf
	if id := p.GPU().ID; id != reference.DefaultProfile {
		w = w.Add(dash.Change{Field: "profile", From: reference.DefaultProfile, To: id})
	}
	v.Rows = judgeAll(gpuValues(loo), w)
	return v, nil
}
