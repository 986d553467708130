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
	// Fig9 holds the fixed-batch sweeps with their paired summaries by reading of t_R
	// (the paper reading's are the checked values, the others' reported beside them).
	Fig9 map[dash.Reading]summary.Fig9Result
	// Fig11 holds the lookahead study by reading of t_R: per model and t_R, the
	// conventional run and the lookahead run.
	Fig11 map[dash.Reading][]summary.LookaheadPair
	// Fig11Early is the lookahead study under the paper reading with early
	// expert delivery into the GPU's L2 (not checked: the paper names no
	// GPU-side buffer).
	Fig11Early []summary.LookaheadPair
	// Fig12 is the sensitivity study on Llama 4 Maverick 1/4K/1M under
	// every reading (nil when not run).
	Fig12 *summary.Fig12Result
	// Fig10 is the CPU-GPU offloading comparison by reading of t_R of the engine's
	// DASH runs.
	Fig10 map[dash.Reading]*summary.Fig10Result
	// Fig10Measured is the comparison on the host the offload primitives were
	// measured on (reference.MeasuredHost), under the paper reading; Fig10's
	// checked values use the paper's Xeon, derived from it.
	Fig10Measured *summary.Fig10Result
	// Cost is the capacity-per-cost grid and pair scaling (nil when not
	// run).
	Cost *summary.CostResult
	// Energy prices Fig. 9(a)'s runs (memory-system energy per token).
	Energy []summary.EnergyPoint
	// Endurance is the HBF lifetime study (nil when not run).
	Endurance *summary.EnduranceResult
	// ServingEndurance is the lifetime at the serving study's loads, with
	// R_HBF from its backlogged rate (nil without a serving study).
	ServingEndurance *summary.ServingEndurance
	// Serving is the continuous-batching study behind Table III by reading of t_R
	// (empty when the serving group did not run).
	Serving map[dash.Reading]*serve.StudyResult
	// Cluster holds the comparisons at cluster scale (beyond the paper), one
	// per shipped comparison (empty when the cluster group did not run).
	Cluster []summary.ClusterStudy
	// Routing holds what skewed routing and the HBM expert cache do to
	// DASH (beyond the paper), one per routing study (empty when the
	// routing group did not run).
	Routing []summary.RoutingStudy
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
	// Assumptions is every memory-system id with the parameters the paper does not
	// state (the HBM array rate, the TSV rate) at half and twice their assumed values;
	// with Options.Assumptions on a whole reproduction.
	Assumptions *summary.AssumptionTable
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

// setReading stores a reading's result in a map of results by reading, making the map.
func setReading[T any](m *map[dash.Reading]T, r dash.Reading, v T) {
	if *m == nil {
		*m = map[dash.Reading]T{}
	}
	(*m)[r] = v
}
