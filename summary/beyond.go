package summary

import (
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/endurance"
	"github.com/dashlab/dashlab/dash/energy"
	"github.com/dashlab/dashlab/dash/offload"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

// The studies beyond the paper's figures: CPU-GPU offloading (Fig. 10), memory-system
// energy per token and HBF endurance.

// CoreCurvePoint is one point of Fig. 10(a): the host's expert-layer
// latency at a batch and core cap.
type CoreCurvePoint struct {
	// Batch and Cores locate the point.
	Batch, Cores int
	// Latency is the layer's median latency.
	Latency unit.Duration
	// Modelled marks core caps that were not measured.
	Modelled bool
}

// Fig10Result is the offloading comparison.
type Fig10Result struct {
	// Model, Prompt and Output are the workload; GPU the engine's GPU; Host the
	// host profile's name (a catalogue host id, or the directory of measured data).
	Model, GPU, Host string
	Prompt, Output   int
	// Derived, for a host that was not measured, is how its layer times follow
	// from the measured host's (nil for a measured host).
	Derived *offload.Derivation
	// Curve is Fig. 10(a), per batch over Fig10CoreCurve.
	Curve []CoreCurvePoint
	// Fits are the core-scaling models behind the modelled points.
	Fits []offload.AmdahlFit
	// Reading is the reading of t_R of the engine's DASH runs.
	Reading dash.Reading
	// Evaluations are Fig. 10(b) at the study's core cap, one per batch;
	// Measured the same at the host's largest measured core count.
	Evaluations, Measured []offload.Evaluation
	// Rows are the paper's Fig. 10(b) numbers computed from Evaluations, judged.
	Rows []Row
}

// CostResult is the capacity-per-cost gain grid, its breakeven line and the n-pair
// scaling (§VI-G).
type CostResult struct {
	// Grid is G over the (r, δ) grid; Breakeven the r with G = 1 per δ.
	Grid, Breakeven []dash.CostPoint
	// Scaling is the system at 1..n pairs.
	Scaling []dash.PairScaling
	// Rows are the paper's cost.gain and cost.breakeven numbers the grid holds, judged.
	Rows []Row
}

// Parts is a system's parts (§IV) with the paper's numbers about them judged: the
// link, the base-die SRAMs and the HBF page wave.
type Parts struct {
	// System is the system.
	System dash.SystemSpec
	// WhatIf lists how it differs from the paper's system of its id; not empty, Rows
	// are what-ifs.
	WhatIf WhatIf
	// Rows are the judged rows of the §IV ids (ucie.*, hbf.*, hbm.*).
	Rows []Row
}

// EnergyPoint is one simulation priced.
type EnergyPoint struct {
	// Model and System are catalogue ids; Batch is B.
	Model, System string
	Batch         int
	// Params are the prices used.
	Params energy.Params
	// Breakdown is valid when Err is nil.
	Breakdown energy.Breakdown
	// Err says why there is no breakdown (a *dash.CapacityError for a
	// configuration the memory system cannot hold).
	Err error
}

// EnduranceResult is the lifetime at each load and P/E budget.
type EnduranceResult struct {
	// Measurement holds R_HBF, C_KV and A_W with their sources.
	Measurement endurance.Measurement
	// Run is the engine run R_HBF came from.
	Run sim.Result
	// Loads and PECycles are the axes; Years[i][j] is the lifetime at
	// Loads[i] and PECycles[j].
	Loads, PECycles []float64
	Years           [][]float64
}

// ServingEndurance is the lifetime at the serving study's loads.
type ServingEndurance struct {
	// Measurement holds R_HBF (from the serving study), C_KV and A_W (from
	// the full-load fixed-batch run's flash model).
	Measurement endurance.Measurement
	// Loads are the study's loads (fractions of the baseline's rate) and
	// Utilizations DASH's u at each; Years[i][j] is the lifetime at
	// Loads[i] and PECycles[j].
	Loads, Utilizations, PECycles []float64
	Years                         [][]float64
}
