package sim

import (
	"fmt"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// monotoneStep is one point of a monotonicity sweep: a label and the
// change that makes the memory system "more" than the previous point's.
type monotoneStep struct {
	label  string
	modify func(dash.ExperimentBuilder) dash.ExperimentBuilder
}

// checkNeverSlower runs the steps in order and fails when a step (more
// resources) gives a longer E2E or TPOT than the step before.
func checkNeverSlower(t *testing.T, what, model string, reading dash.Reading, steps []monotoneStep) {
	t.Helper()
	var prev Result
	for i, st := range steps {
		r := run(t, build(t, model, "dash", 4, 512, 9, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
			return st.modify(b.Reading(reading))
		}), Options{})
		if i > 0 && (r.E2E > prev.E2E || r.TPOT > prev.TPOT) {
			t.Errorf("%s, %s, %v reading: %s gives E2E %v, TPOT %v: slower than %s (E2E %v, TPOT %v)",
				model, what, reading, st.label, r.E2E, r.TPOT, steps[i-1].label, prev.E2E, prev.TPOT)
		}
		prev = r
	}
}

func relayRegion(size unit.Bytes, regions int) monotoneStep {
	return monotoneStep{fmt.Sprintf("relay SRAM %d x %v", regions, size), func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		return b.Modify(func(s *dash.SystemSpec) { s.HBM.RelaySRAM.RegionSize, s.HBM.RelaySRAM.Regions = size, regions })
	}}
}

// TestMoreSRAMNeverSlower grows the relay SRAM (region size at and above
// half a page wave, then the region count) and the HBF SRAM (regions):
// a larger buffer never makes a run slower. It covers issue 9's case, a
// 5 MiB relay region at 4 KiB pages, which ran 50% slower than 4 MiB before
// the transfer chunk became a fraction of the page wave (see
// transferChunk). Below half a wave the chunk shrinks with the region and
// a smaller region may be slightly faster (finer store-and-forward
// pipelining, physical); the sweep starts at half a wave for that reason.
func TestMoreSRAMNeverSlower(t *testing.T) {
	for _, reading := range []dash.Reading{dash.ReadingPaper, dash.ReadingPhysical} {
		for _, model := range []string{"qwen3-235b-a22b", "mixtral-8x22b"} {
			checkNeverSlower(t, "relay region size", model, reading, []monotoneStep{
				relayRegion(4*unit.MiB, 2), relayRegion(5*unit.MiB, 2), relayRegion(6*unit.MiB, 2),
				relayRegion(8*unit.MiB, 2), relayRegion(16*unit.MiB, 2),
			})
			checkNeverSlower(t, "relay regions", model, reading, []monotoneStep{
				relayRegion(4*unit.MiB, 1), relayRegion(4*unit.MiB, 2), relayRegion(4*unit.MiB, 3), relayRegion(4*unit.MiB, 4),
			})
			var hbf []monotoneStep
			for _, n := range []int{1, 2, 3, 4} {
				hbf = append(hbf, monotoneStep{fmt.Sprintf("HBF SRAM %d regions", n), func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
					return b.Modify(func(s *dash.SystemSpec) { s.HBF.SRAM.Regions = n })
				}})
			}
			checkNeverSlower(t, "HBF SRAM regions", model, reading, hbf)
		}
	}
}

// TestMorePairsFasterLinksShorterTReadNeverSlower covers the physical
// reading (one wave in flight) for link rate and t_R (the paper reading is
// covered by TestMonotoneInBandwidthAndReadLatency) and both readings for
// the number of HBM-HBF pairs.
func TestMorePairsFasterLinksShorterTReadNeverSlower(t *testing.T) {
	for _, reading := range []dash.Reading{dash.ReadingPaper, dash.ReadingPhysical} {
		var pairs []monotoneStep
		for _, n := range []int{1, 2, 3, 4, 8} {
			pairs = append(pairs, monotoneStep{fmt.Sprintf("%d pairs", n), func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.Pairs(n) }})
		}
		checkNeverSlower(t, "pairs", "qwen3-235b-a22b", reading, pairs)
	}
	var links, treads []monotoneStep
	for _, bw := range []float64{0.8, 1.6, 3.2, 6.4} {
		links = append(links, monotoneStep{fmt.Sprintf("link %.1f TB/s", bw), func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
			return b.LinkBandwidth(unit.BytesPerSecond(bw) * unit.TBps)
		}})
	}
	for _, tr := range []unit.Duration{32, 10, 3, 1} {
		treads = append(treads, monotoneStep{fmt.Sprintf("t_R %v", tr*unit.Microsecond), func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
			return b.TRead(tr * unit.Microsecond)
		}})
	}
	for _, model := range []string{"qwen3-235b-a22b", "deepseek-v2"} {
		checkNeverSlower(t, "link rate", model, dash.ReadingPhysical, links)
		checkNeverSlower(t, "t_R", model, dash.ReadingPhysical, treads)
	}
}
