package reproduce

import (
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/summary"
)

// NewOverheadRow compares a DASH run with the RelayOnly run of the same
// work.
func NewOverheadRow(model string, batch int, dash, relay sim.Result) summary.OverheadRow {
	tput, e2e := dash.DecodeThroughput/relay.DecodeThroughput, dash.E2E.Seconds()/relay.E2E.Seconds()
	return summary.OverheadRow{
		Model: model, Batch: batch,
		PrefillShareDASH: prefillShare(dash), PrefillShareRelay: prefillShare(relay),
		DecodeSpeedup: tput, E2EReductionPct: 100 * (1 - e2e),
		FixedShareDASH: fixedShare(dash), FixedShareRelay: fixedShare(relay),
	}
}

// prefillShare is a run's TTFT over its E2E latency.
func prefillShare(r sim.Result) float64 {
	if r.E2E <= 0 {
		return 0
	}
	return r.TTFT.Seconds() / r.E2E.Seconds()
}

// fixedShare is the share of a run's decode-phase GPU time that is
// operator compute or fixed overhead (launch, pipeline fill, tail): the
// time no memory path shortens.
func fixedShare(r sim.Result) float64 {
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
