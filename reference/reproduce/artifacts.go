package reproduce

import (
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/gpu"
)

// Artifacts are the engine results behind the report's figures.
type Artifacts struct {
	// Models is the catalogue with derived footprints (Fig. 1, Table II).
	Models []ModelRow
	// Fig9 holds the fixed-batch sweeps.
	Fig9 Fig9Result
	// Fig11 holds the lookahead study: per model and t_R, the conventional
	// run followed by the lookahead run.
	Fig11 []LookaheadPair
	// Fig10 is the CPU-GPU offloading comparison (nil when not run).
	Fig10 *Fig10Result
	// GPUValidation is the timing model's leave-one-out error per kind.
	GPUValidation []gpu.ErrorStats
}

// ModelRow is one catalogue model with its derived footprint.
type ModelRow struct {
	// Spec is the model.
	Spec dash.ModelSpec
	// Footprint is its derived footprint.
	Footprint dash.Footprint
	// Paper marks the six models of the paper's Table II.
	Paper bool
}
