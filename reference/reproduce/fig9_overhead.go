package reproduce

import (
	"github.com/dashlab/dashlab/dash/sim"
)

// OverheadRow says, for one (model, B) pair of Fig. 9(a), where the E2E
// reduction comes from and why it sits below the throughput gain: the
// prefill's share of E2E (compute-bound and alike in every system), DASH's
// decode speedup over RelayOnly, and the share of a decode step's GPU time
// that no memory path shortens (operator compute plus the fixed part of
// each operator's measured latency).
type OverheadRow struct {
	// Model is the catalogue id; Batch is B.
	Model string
	Batch int
	// PrefillShareDASH and PrefillShareRelay are TTFT / E2E of each system.
	PrefillShareDASH, PrefillShareRelay float64
	// DecodeSpeedup is DASH's decode throughput over RelayOnly's.
	DecodeSpeedup float64
	// E2EReductionPct is 100 x (1 - DASH's E2E / RelayOnly's).
	E2EReductionPct float64
	// FixedShareDASH and FixedShareRelay are the decode phase's operator
	// compute plus fixed overhead over its GPU time, in each system.
	FixedShareDASH, FixedShareRelay float64
}

// NewOverheadRow compares a DASH run with the RelayOnly run of the same
// work.
func NewOverheadRow(model string, batch int, dash, relay sim.Result) OverheadRow {
	tput, e2e := dash.DecodeThroughput/relay.DecodeThroughput, dash.E2E.Seconds()/relay.E2E.Seconds()
	return OverheadRow{
		Model: model, Batch: batch,
		PrefillShareDASH: PrefillShare(dash), PrefillShareRelay: PrefillShare(relay),
		DecodeSpeedup: tput, E2EReductionPct: 100 * (1 - e2e),
		FixedShareDASH: FixedShare(dash), FixedShareRelay: FixedShare(relay),
	}
}

// PrefillShare is a run's TTFT over its E2E latency.
func PrefillShare(r sim.Result) float64 {
	if r.E2E <= 0 {
		return 0
	}
	return r.TTFT.Seconds() / r.E2E.Seconds()
}

// FixedShare is the share of a run's decode-phase GPU time that is
// operator compute or fixed overhead (launch, pipeline fill, tail): the
// time no memory path shortens.
func FixedShare(r sim.Result) float64 {
	var fixed, total float64
	for _, c := range r.Decode.Classes {
		fixed += float64(c.Compute + c.Overhead)
		total += float64(c.Time)
	}
	if total == 0 {
		return 0
	}
	return fixed / total
}
