package summary

import (
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

// LookaheadPair is one point of the lookahead study (Fig. 11): the same experiment with
// conventional and with lookahead expert selection.
type LookaheadPair struct {
	// Model is the catalogue id; TRead the HBF read latency.
	Model string
	TRead unit.Duration
	// Setup is the reading of t_R and the early-delivery setting both runs used.
	Setup LookaheadSetup
	// Conventional and Lookahead are the two runs.
	Conventional, Lookahead sim.Result
	// WhatIf lists how the pair differs from the paper's Fig. 11 study (DASH's parts
	// but t_R, the study's axis; B/L_in/L_out = 1/4K/128 on DASH; the paper reading;
	// no early delivery). Empty, its reductions are checked against the paper's.
	WhatIf WhatIf
	// Rows are the paper's numbers of this model and t_R (the E2E and TPOT reductions;
	// none where the paper reports no point), judged; what-ifs when WhatIf lists changes.
	Rows []Row
}

// E2EReductionPct is lookahead's E2E reduction in percent.
func (p LookaheadPair) E2EReductionPct() float64 {
	return ReductionPct(p.Lookahead.E2E.Seconds(), p.Conventional.E2E.Seconds())
}

// TPOTReductionPct is lookahead's TPOT reduction in percent.
func (p LookaheadPair) TPOTReductionPct() float64 {
	return ReductionPct(p.Lookahead.TPOT.Seconds(), p.Conventional.TPOT.Seconds())
}

// LookaheadSetup is what both arms of a lookahead study share besides the experiment:
// the reading of t_R and early expert delivery.
type LookaheadSetup struct {
	// Reading is the reading of t_R.
	Reading dash.Reading
	// EarlyDelivery lets selected experts enter a GPU staging buffer of EarlyBuffer
	// bytes (0: the GPU's L2) before their operator starts
	// (dash.ExecutionSpec.EarlyDelivery). The checked Fig. 11 values run without it:
	// the paper names no GPU-side buffer.
	EarlyDelivery bool
	// EarlyBuffer is the staging buffer's size (0: the GPU's L2).
	EarlyBuffer unit.Bytes
	// Knobs are set on every run first (a what-if of the system; nil: none).
	Knobs []dash.Setting `json:",omitempty"`
}

// String names the setup ("paper reading, early delivery into 50 MiB").
func (s LookaheadSetup) String() string {
	out := s.Reading.String() + " reading"
	if s.EarlyDelivery {
		out += ", early delivery"
		if s.EarlyBuffer > 0 {
			out += " into " + s.EarlyBuffer.String()
		} else {
			out += " into the GPU's L2"
		}
	}
	return out
}

// LayerRun is one traced decode layer of a lookahead study arm.
type LayerRun struct {
	// Name says which arm ("conventional", "lookahead", ...).
	Name string
	// Result holds the traced timeline (Result.Timeline).
	Result sim.Result
	// Layer is the traced layer's duration, from its first operator's start
	// to its last operator's end.
	Layer unit.Duration
	// Classes is the operator time per class, in the order the classes
	// first appear in the conventional flow.
	Classes []ClassSpan
}

// ClassSpan is the GPU time one operator class takes in a traced layer.
type ClassSpan struct {
	// Class is the operator class (sim.ClassRouter, sim.ClassExperts, ...).
	Class sim.OpClass
	// Time is the summed duration of the class's operators.
	Time unit.Duration
}

// LookaheadLayer explains a lookahead result with one traced decode layer:
// the layer's bytes that matter (the router and the attention-routing
// matrix lookahead adds, the shared experts sensed ahead in either flow,
// the base-die SRAM that can hold data before the MoE block starts) and
// the traced layer under conventional selection, lookahead selection, and
// lookahead with early expert delivery into the GPU's L2.
type LookaheadLayer struct {
	// Model is the catalogue id; TRead the HBF read latency; Reading the
	// reading of t_R.
	Model   string
	TRead   unit.Duration
	Reading dash.Reading
	// RouterBytes is the router matrix W_r of one MoE layer;
	// AttentionRoutingBytes the matrix W_out diag(gamma) W_r that lookahead
	// reads in addition (§V-C).
	RouterBytes, AttentionRoutingBytes unit.Bytes
	// SharedExpertBytes is the layer's shared experts (predictable, sensed
	// ahead of the MoE block in both flows); RoutedBytes the selected
	// experts' bytes at this batch (top-k experts at B = 1).
	SharedExpertBytes, RoutedBytes unit.Bytes
	// StagingSRAM is the base-die SRAM of the whole package that can hold
	// sensed expert data before the MoE block starts (HBF transfer regions
	// plus HBM relay regions, every stack).
	StagingSRAM unit.Bytes
	// Runs are the traced arms: conventional, lookahead, lookahead with
	// early delivery.
	Runs []LayerRun
}

// ClassTime is the time of an operator class in run i (0 when absent).
func (l LookaheadLayer) ClassTime(i int, class sim.OpClass) unit.Duration {
	for _, c := range l.Runs[i].Classes {
		if c.Class == class {
			return c.Time
		}
	}
	return 0
}
