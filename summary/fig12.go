package summary

import (
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

// Fig. 12: the sensitivity of DASH to the HBF parameters (§VI-F); see
// reproduce.Fig12Study.

// Fig12DecodeSample is the decode sampling of the study's runs (one KV
// block in 16 simulated, the rest interpolated; see sim.Options).
const Fig12DecodeSample = 16

// Fig12Param names a swept parameter.
type Fig12Param string

// The four sweeps.
const (
	Fig12PageSize Fig12Param = "page_size"
	Fig12TRead    Fig12Param = "t_read"
	Fig12TProg    Fig12Param = "t_prog"
	Fig12Link     Fig12Param = "d2d_bandwidth"
)

// Fig12Point is one point of a sweep.
type Fig12Point struct {
	// Param and Value: the parameter and its value in the sweep's unit
	// (KiB, us, us, TB/s); Label prints it.
	Param Fig12Param
	Value float64
	Label string
	// Reading is the reading of t_R.
	Reading dash.Reading
	// Result is the run.
	Result sim.Result
	// Normalized is E2E over the sweep's reference point's E2E.
	Normalized float64
	// ProgramBusy is the stacks' total program time and Stall the
	// E2E-exposed write stall (t_PROG sweep only).
	ProgramBusy, Stall unit.Duration
}

// Fig12Result is the study under one or more readings.
type Fig12Result struct {
	// Points holds every sweep point, by reading, sweep and value.
	Points []Fig12Point
	// Nominal is the nominal run (4 KiB, 3 µs, 100 µs, 1.6 TB/s) and
	// RelayOnly the same workload on RelayOnly, per reading.
	Nominal, RelayOnly map[dash.Reading]sim.Result
	// KV is the KV split against generated tokens on the nominal system.
	KV []sim.KVPoint
	// WhatIf lists how the study differs from the paper's (a decode other
	// than 1M tokens); not empty, its rows are what-ifs, not judged.
	WhatIf WhatIf
	// DecodeSample is the decode sampling the runs used (one KV block in
	// DecodeSample simulated; 0: every step).
	DecodeSample int
	// ModelName is the study's model by its catalogue name.
	ModelName string
	// Programs are the write stalls under each NAND program model (its own
	// program scope and suspend: the part's, from Points, and the others'),
	// under the paper reading, at the t_PROG of the paper's stall ids.
	Programs []Fig12Program
	// Rows are the paper's numbers the study computes under the paper reading (the KV
	// split at 1M tokens, the write stalls, the 4K/1M comparison with RelayOnly), judged;
	// what-ifs when WhatIf lists changes.
	Rows []Row
}

// Fig12Program is the exposed write stall at one t_PROG under one NAND program
// model (dash.ProgramModels): E2E less E2E of the same model with programs that
// take no time.
type Fig12Program struct {
	// Model is the program model ("stack", "planes", "suspend"); Default marks
	// the part's own (the checked values).
	Model   string
	Default bool
	// TProg is t_PROG; Result the run.
	TProg  unit.Duration
	Result sim.Result
	// ProgramBusy is the stacks' total program time, Stall the exposed stall,
	// Suspends the programs' suspensions (program suspend only).
	ProgramBusy, Stall unit.Duration
	Suspends           int64
}

// OwnModel is the program model of the part the study's sweeps ran on ("" before Programs is set).
func (r *Fig12Result) OwnModel() string {
	for _, p := range r.Programs {
		if p.Default {
			return p.Model
		}
	}
	return ""
}

// Sweep returns a sweep's points under a reading, in value order.
func (r *Fig12Result) Sweep(p Fig12Param, rd dash.Reading) []Fig12Point {
	var out []Fig12Point
	for _, x := range r.Points {
		if x.Param == p && x.Reading == rd {
			out = append(out, x)
		}
	}
	return out
}

// KVSplit is where a long decode's KV cache lives against generated tokens (§VI-F's
// asymmetric placement), with the paper's split at 1M tokens.
type KVSplit struct {
	// Case is the run; ModelName its model by its catalogue name.
	Case      Case
	ModelName string
	// WhatIf lists how the run differs from the paper's Fig. 12 run.
	WhatIf WhatIf
	// Trajectory is the split against generated tokens (sim.KVTrajectory).
	Trajectory []sim.KVPoint
	// Rows are the paper's split at 1M tokens (fig12.kv_hbm_gb, fig12.kv_hbf_gb) against
	// the trajectory's last point, judged; what-ifs when WhatIf lists changes.
	Rows []Row
}
