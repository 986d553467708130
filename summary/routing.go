package summary

import (
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/routing"
	"github.com/dashlab/dashlab/dash/sim"
)

// RoutingStudy is what skewed per-token routing does to DASH (beyond the
// paper, whose §VI-E assigns whole experts to one route only under
// balanced routing): one model and system at one fixed batch, under the
// paper's balanced routing, a routing trace and synthetic skews, each with
// and without the HBM expert cache, and the trace's own skew per layer.
type RoutingStudy struct {
	// ID names the study ("mixtral-8x22b"); Model, ModelName and System
	// the experiment's.
	ID, Model, ModelName, System string
	// Batch, Prompt and Output are the fixed batch's.
	Batch, Prompt, Output int
	// Trace is the trace's name and Stats its routing properties per MoE
	// layer (routing.Analyze); empty without a trace.
	Trace string
	Stats routing.Stats
	// Cases are the runs, the paper's balanced routing first.
	Cases []RoutingCase
	// Rows are the routing.<id>.* rows.
	Rows []Row
}

// RoutingCase is one run of a routing study.
type RoutingCase struct {
	// ID is the case's id in the routing.* ids ("balanced", "trace",
	// "trace_cache", "zipf1.2", "zipf1.2_cache"); Label says it in words.
	ID, Label string
	// Routing and Cache are the experiment's workload.routing and
	// execution.expert_cache.
	Routing dash.RoutingSpec
	Cache   dash.ExpertCacheSpec
	// Result is the run (Result.Routing is nil for balanced routing;
	// Result.KV.BudgetHBM is the decode-KV budget the cache leaves).
	Result sim.Result
}
