package reproduce

import (
	"time"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/summary"
)

// Artifacts are the engine results behind the report's figures.
type Artifacts struct {
	// Catalogue is the model catalogue with derived footprints and its judged rows
	// (Fig. 1, Table II).
	Catalogue summary.Catalogue
	// Fig9 holds the fixed-batch sweeps with their paired summaries under the paper
	// reading of t_R (the checked values); Fig9Physical the same under the physical
	// reading (reported beside them).
	Fig9, Fig9Physical Fig9Result
	// Fig11 holds the lookahead study under the paper reading: per model and t_R, the
	// conventional run and the lookahead run; Fig11Physical the same under the
	// physical reading.
	Fig11, Fig11Physical []LookaheadPair
	// Fig11Early is the lookahead study under the paper reading with early
	// expert delivery into the GPU's L2 (not checked: the paper names no
	// GPU-side buffer).
	Fig11Early []LookaheadPair
	// Fig12 is the sensitivity study on Llama 4 Maverick 1/4K/1M under
	// both readings (nil when not run).
	Fig12 *Fig12Result
	// Fig10 is the CPU-GPU offloading comparison (nil when not run).
	Fig10 *Fig10Result
	// Cost is the capacity-per-cost grid and pair scaling (nil when not
	// run).
	Cost *summary.CostResult
	// Energy prices Fig. 9(a)'s runs (memory-system energy per token).
	Energy []EnergyPoint
	// Endurance is the HBF lifetime study (nil when not run).
	Endurance *EnduranceResult
	// ServingEndurance is the lifetime at the serving study's loads, with
	// R_HBF from its backlogged rate (nil without a serving study).
	ServingEndurance *ServingEndurance
	// Serving is the continuous-batching study behind Table III under the
	// paper reading (nil when the serving group did not run);
	// ServingPhysical the same under the physical reading.
	Serving, ServingPhysical *serve.StudyResult
	// GPU is the timing model's validation: its leave-one-out error per kind and judged
	// rows, and with Options.Figures the held-out studies and predictions the report
	// draws.
	GPU summary.GPUValidation
	// Fig9Bounds are the bound argument that opens Fig. 9, one per reading of t_R, and
	// BoundNote says what it bounds (ArrayBoundNote); with Options.Figures.
	Fig9Bounds []summary.Fig9Bound
	BoundNote  string
	// Traces are the traced layer of the report's route figure (TraceModel ...
	// TraceLayer) on each of TraceSystems; with Options.Figures.
	Traces []sim.Result
	// FigureTime is the wall time of what only the figures need (Options.Figures), by
	// what it computed.
	FigureTime map[string]time.Duration
}

// figureTime records the wall time of a computation only the figures need.
func (a *Artifacts) figureTime(what string, d time.Duration) {
	if a.FigureTime == nil {
		a.FigureTime = map[string]time.Duration{}
	}
	a.FigureTime[what] += d
}

// fig9 is the Fig. 9 result of a reading.
func (a *Artifacts) fig9(r dash.Reading) *Fig9Result {
	if r == dash.ReadingPaper {
		return &a.Fig9
	}
	return &a.Fig9Physical
}
