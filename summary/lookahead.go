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
