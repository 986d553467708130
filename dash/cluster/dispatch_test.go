package cluster_test

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/dash/unit"
)

// Deduplicated and FP8 dispatch move fewer bytes for the same expert work:
// every pair is still processed once, the rows sent are the distinct
// tokens per GPU (fewer than the pairs when a token has several experts on
// one GPU), the scale-up ports carry exactly rows x (dispatched token +
// BF16 result), the GPUs' work is unchanged and no run is slower.
func TestDispatchDedupAndFP8(t *testing.T) {
	for _, r := range []cluster.RoutingSpec{{}, {Kind: cluster.RoutingZipf, ZipfS: 1, Seed: 3}} {
		e := build(t, ep8(t, cluster.NewExperiment()).Routing(r))
		base := run(t, e)
		hidden := unit.Bytes(e.Model().HiddenSize)
		perRow := func(res cluster.Result) unit.Bytes { return scaleUp(res) / unit.Bytes(res.Stats.DispatchRows) }
		if base.Stats.DispatchRows != base.Stats.DispatchPairs {
			t.Errorf("routing %+v, plain dispatch: %d rows sent for %d pairs", r, base.Stats.DispatchRows, base.Stats.DispatchPairs)
		}
		unitRow := perRow(base) // each direction counted: 2 x (BF16 token + BF16 result)
		if unitRow != 2*(2*hidden+2*hidden) {
			t.Errorf("routing %+v: %d bytes a row on the scale-up ports, want %d", r, unitRow, 2*(4*hidden))
		}
		for _, d := range []cluster.DispatchSpec{{Dedup: true}, {DType: cluster.DispatchFP8}, {Dedup: true, DType: cluster.DispatchFP8}} {
			got := run(t, build(t, ep8(t, cluster.NewExperiment()).Routing(r).Dispatch(d)))
			if got.Stats.DispatchPairs != base.Stats.DispatchPairs || got.Stats.LocalPairs != base.Stats.LocalPairs || got.Stats.GPUTime != base.Stats.GPUTime {
				t.Errorf("routing %+v, %+v: pairs %d+%d GPU %v, plain %d+%d %v", r, d, got.Stats.DispatchPairs, got.Stats.LocalPairs,
					got.Stats.GPUTime, base.Stats.DispatchPairs, base.Stats.LocalPairs, base.Stats.GPUTime)
			}
			if d.Dedup && !(got.Stats.DispatchRows < base.Stats.DispatchRows) || !d.Dedup && got.Stats.DispatchRows != base.Stats.DispatchRows {
				t.Errorf("routing %+v, %+v: %d rows sent, plain %d", r, d, got.Stats.DispatchRows, base.Stats.DispatchRows)
			}
			tok := 2 * hidden
			if d.DType == cluster.DispatchFP8 {
				tok = hidden + (hidden+127)/128*4
			}
			if want := unit.Bytes(got.Stats.DispatchRows) * 2 * (tok + 2*hidden); scaleUp(got) != want {
				t.Errorf("routing %+v, %+v: scale-up ports carried %d bytes, want %d rows x 2 x (%d + %d) = %d", r, d, scaleUp(got), got.Stats.DispatchRows, tok, 2*hidden, want)
			}
			if got.E2E > base.E2E || got.TTFT > base.TTFT || got.Stats.CommTime >= base.Stats.CommTime {
				t.Errorf("routing %+v, %+v: E2E %v TTFT %v comm %v, plain %v %v %v", r, d, got.E2E, got.TTFT, got.Stats.CommTime, base.E2E, base.TTFT, base.Stats.CommTime)
			}
		}
	}
}

func scaleUp(res cluster.Result) unit.Bytes {
	var b unit.Bytes
	for _, p := range res.Stats.Ports {
		if p.Kind == cluster.PortScaleUp {
			b += p.Bytes
		}
	}
	return b
}

// A bad dispatch type is refused naming the field.
func TestDispatchRefusesAnUnknownType(t *testing.T) {
	_, err := ep8(t, cluster.NewExperiment()).Dispatch(cluster.DispatchSpec{DType: "fp4"}).Build()
	if err == nil || !strings.Contains(err.Error(), "dispatch.dtype") {
		t.Errorf("dtype fp4: %v", err)
	}
}
