package summary

import "github.com/dashlab/dashlab/dash/gpu"

// GPUValidation is the GPU timing model's validation (§VI-A): the measured profile, the
// error statistics of the studies package gpu runs on it, the held-out predictions
// drawn against the measurements, and the judged rows of the paper's validation
// numbers.
type GPUValidation struct {
	// Profile is the measured profile the model interpolates.
	Profile *gpu.Profile
	// Derived is a timing model derived from Profile for another GPU (the paper's H100
	// PCIe), drawn against the measurements as derived, not measured; nil leaves it out.
	Derived *gpu.Model
	// Checks are the measured operators, each predicted with its shape family held out
	// (Profile.HeldOutChecks).
	Checks []gpu.HeldOutCheck
	// LeaveOneOut (the checked study), HeldOut (whole shape families held out),
	// HeldOutByModel (every GEMM of one model held out) and HeldOutSizes (every
	// measurement of one size held out) are the studies' error statistics per kind.
	LeaveOneOut, HeldOut, HeldOutByModel, HeldOutSizes []gpu.ErrorStats
	// Repeats and SizeJitter are what the profile's own noise allows (Profile.Repeats,
	// Profile.SweepJitter: the floor of HeldOutSizes).
	Repeats    []gpu.ErrorStats
	SizeJitter []gpu.SweepJitter
	// Rows are the judged rows of the gpu.timing_model.* ids.
	Rows []Row
}
