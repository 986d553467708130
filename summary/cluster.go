package summary

import "github.com/dashlab/dashlab/dash/cluster"

// ClusterStudy is one model's comparison at cluster scale (beyond the
// paper): every contender's capacity within the P90 TPOT target, the GPUs
// each target throughput needs, the external check against a published
// measurement when the comparison has one, and the judged rows of the
// cluster.* ids (simulated only: the paper publishes no multi-GPU number).
type ClusterStudy struct {
	// ID is the comparison's id ("qwen3-235b"); Model the model's.
	ID, Model string
	// Comparison is the outcome of cluster.Compare.
	Comparison *cluster.Comparison
	// Checks are published measurements beside their simulations.
	Checks []ClusterCheck
	// Rows are the cluster.<id>.* rows.
	Rows []Row
}

// ClusterCheck is a published measurement of an HBM-only deployment beside
// the simulation of the same deployment and workload.
type ClusterCheck struct {
	// Source cites the measurement; Description says what it measured.
	Source, Description string
	// Published and Simulated output throughput (tokens/s), mean TPOT (ms),
	// mean TTFT (s) and benchmark duration (s).
	PublishedTokS, SimulatedTokS     float64
	PublishedTPOTms, SimulatedTPOTms float64
	PublishedTTFTs, SimulatedTTFTs   float64
	PublishedDurS, SimulatedDurS     float64
}
