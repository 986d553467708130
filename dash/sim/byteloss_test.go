package sim

import (
	"errors"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// readTotal is the bytes a result read over every route into the GPU.
func readTotal(r Result) unit.Bytes {
	var n unit.Bytes
	for _, rt := range r.Routes {
		if rt.Route.IsRead() {
			n += rt.Delivered
		}
	}
	return n
}

// TestRelayOnlyReadsHBFKVAtAnyLinkRate is issue 21's first case: on
// RelayOnly with an HBM array at or above the link rate, the static rate
// share left Relay nothing for the HBF-resident KV, which was then never
// read (Qwen3-235B-A22B, B=4, 1K/16, link 1.19 TB/s: 2,393.6 GB read
// against 2,405.5 GB at 1.6 TB/s, the 11.8 GB of prompt KV gone, TPOT
// shorter). The bytes an experiment reads do not depend on a rate.
func TestRelayOnlyReadsHBFKVAtAnyLinkRate(t *testing.T) {
	ref := run(t, build(t, "qwen3-235b-a22b", "relay-only", 4, 1024, 16), Options{})
	for _, bw := range []float64{1.19, 1.2, 0.8} {
		exp := build(t, "qwen3-235b-a22b", "relay-only", 4, 1024, 16, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
			return b.Modify(func(s *dash.SystemSpec) { s.Link.Usable = unit.BytesPerSecond(bw) * unit.TBps })
		})
		r, err := RunWith(exp, Options{})
		if err != nil {
			t.Fatalf("link %.2f TB/s: %v", bw, err)
		}
		if got, want := readTotal(r), readTotal(ref); got != want {
			t.Errorf("link %.2f TB/s: read %.1f GB, want %.1f GB (as at 1.6 TB/s): %.1f GB not read",
				bw, got.GB(), want.GB(), (want - got).GB())
		}
		if r.TPOT <= ref.TPOT {
			t.Errorf("link %.2f TB/s: TPOT %v, not longer than %v at 1.6 TB/s", bw, r.TPOT, ref.TPOT)
		}
	}
}

// TestRelayOnlyAttentionWithinItsLinks is issue 21's second case: with an
// HBM array of 1.6 TB/s (the link rate), RelayOnly's attention over a 4K
// prompt read only the HBM KV and ran at an effective 9.1 TB/s, above the
// 3.2 TB/s of its GPU-facing links. Every KV byte a decode attention needs
// must cross a GPU-HBM link, so its time is at least KV / (2 x 1.6 TB/s).
func TestRelayOnlyAttentionWithinItsLinks(t *testing.T) {
	exp := build(t, "llama4-maverick", "relay-only", 1, 131072, 8, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		return b.Modify(func(s *dash.SystemSpec) { s.HBM.ArrayBandwidth = 1.6 * unit.TBps })
	})
	r, err := RunWith(exp, Options{})
	if err != nil {
		var ce *ConservationError
		if errors.As(err, &ce) {
			t.Fatalf("bytes lost: %v", err)
		}
		t.Fatal(err)
	}
	// The KV the decode attention kernels read, from their programs.
	pb := newProgramBuilder(exp)
	w := exp.Workload()
	var kv unit.Bytes
	for s := 1; s < w.Output; s++ {
		p := pb.build(true, w.Prompt+s, s)
		for _, i := range p.attnIdx {
			kv += p.ops[i].kvHBM + p.ops[i].kvHBF
		}
	}
	var attn unit.Duration
	for _, c := range r.Decode.Classes {
		if c.Class == ClassAttention {
			attn = c.Time
		}
	}
	links := 2 * exp.System().Link.Usable
	if eff := unit.Rate(kv, attn); eff > links {
		t.Errorf("decode attention read %v of KV in %v: %v effective, above the %v of the GPU-HBM links", kv, attn, eff, links)
	}
}

// TestConservationErrorNamesTheOperator checks the engine's own guard: an
// operator issued fewer bytes than it reads ends the run with a
// *ConservationError.
func TestConservationErrorNamesTheOperator(t *testing.T) {
	e := &engine{pass: &pass{ops: []opSpec{{class: ClassAttention, layer: 3, kvHBF: 100, kvHBM: 50}}}, ops: []opState{{total: 50}}}
	e.checkConserved(0)
	var ce *ConservationError
	if !errors.As(e.err, &ce) || ce.Need != 150 || ce.Issued != 50 || ce.Layer != 3 {
		t.Fatalf("got %v, want a ConservationError (need 150, issued 50, layer 3)", e.err)
	}
}

// TestProgramDoesNotDeadlockBehindSensedReads is the deadlock the random
// what-ifs found and notebook 05's slider grid hit on the paper's own DASH
// (Llama 4 Maverick, B=16, 1K/2, the paper reading, t_R 8 µs, links at
// 2.4 TB/s): the prefill KV filled the transfer SRAM with data waiting to
// be programmed, the program waited for the array, and the array's sensed
// waves waited for an SRAM region, with no event left. The sensed data
// are now dropped and sensed again after the program (engine.resense).
func TestProgramDoesNotDeadlockBehindSensedReads(t *testing.T) {
	exp := build(t, "llama4-maverick", "dash", 16, 1024, 2, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		return b.Reading(dash.ReadingPaper).TRead(8*unit.Microsecond).Set("link.usable", 2.4*unit.TBps)
	})
	r := run(t, exp, Options{})
	var resensed int64
	for _, h := range r.HBF {
		resensed += h.Resensed
	}
	if resensed == 0 {
		t.Errorf("no chunk sensed again: the case no longer reaches the circular wait it tests")
	}
	if slow := run(t, exp, Options{NoJump: true}); !sameResult(r, slow) {
		t.Errorf("the shortcuts change the result: E2E %v vs %v", r.E2E, slow.E2E)
	}
}
