package sim

import (
	"math"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// spillExp is a short decode that spills: Qwen3-30B-A3B at B=16 on a DASH
// whose HBM stacks hold 2.5 GB each, so the decode KV passes the
// package-wide budget after about 1,500 steps.
func spillExp(t testing.TB, out int) dash.Experiment {
	small := func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		return b.Modify(func(s *dash.SystemSpec) { s.HBM.Capacity = 2500 * unit.MB })
	}
	return build(t, "qwen3-30b-a3b", "dash", 16, 256, out, small)
}

// Every token's KV is in exactly one place at every step: layer l's
// decode tokens [0, spilled) in HBF and [spilled, generated) in HBM, the
// HBM part within the budget, moved in whole page waves; and the attention
// kernels read each attended token once, from where it is.
func TestWritebackKeepsEveryKVPageOnce(t *testing.T) {
	exp := spillExp(t, 4096)
	l, err := newKVLedger(exp)
	if err != nil || l == nil {
		t.Fatalf("ledger %v, %v", l, err)
	}
	pb := newProgramBuilder(exp)
	pb.kv = l
	w := exp.Workload()
	kvTok := exp.Footprint().KVBytesPerTokenPerLayer * unit.Bytes(w.Batch)
	var moved int64
	for s := 1; s < w.Output; s++ {
		l.advance()
		var hbm int64
		waves := 0
		for _, n := range l.waves {
			waves += n
		}
		if l.wrote != waves || l.writingBack() != (waves > 0) {
			t.Fatalf("step %d: %d waves written back, the ledger says %d", s, waves, l.wrote)
		}
		for i := range l.layers {
			if l.spilled[i] < 0 || l.spilled[i] > l.generated || l.spilled[i]%l.waveTokens != 0 {
				t.Fatalf("step %d layer %d: %d of %d tokens spilled (wave %d)", s, i, l.spilled[i], l.generated, l.waveTokens)
			}
			if l.spilled[i]-l.before[i] != l.waves[i]*l.waveTokens {
				t.Fatalf("step %d layer %d: spill moved %d tokens for %d waves", s, i, l.spilled[i]-l.before[i], l.waves[i])
			}
			moved += int64(l.waves[i] * l.waveTokens)
			hbm += int64(l.generated - l.spilled[i])
			// The kernel reads each attended token once: HBF part + HBM
			// part = the attended span in whole blocks.
			k := pb.attnKernel(i, true, w.Prompt+s)
			span := roundUp(exp.Model().AttentionSpan(i, w.Prompt+s), pb.block)
			if k.kvHBF+k.kvHBM != unit.Bytes(span)*kvTok {
				t.Fatalf("step %d layer %d: reads %v + %v for a span of %d tokens", s, i, k.kvHBF, k.kvHBM, span)
			}
			if k.kvWriteback != unit.Bytes(l.waves[i]*l.waveTokens)*kvTok {
				t.Fatalf("step %d layer %d: writes back %v", s, i, k.kvWriteback)
			}
		}
		if hbm != l.inHBM || l.inHBM > l.budget {
			t.Fatalf("step %d: %d layer-tokens in HBM, ledger says %d, budget %d", s, hbm, l.inHBM, l.budget)
		}
		var hbf int64
		for _, sp := range l.spilled {
			hbf += int64(sp)
		}
		if hbf+hbm != int64(l.layers)*int64(s) || hbf != moved {
			t.Fatalf("step %d: %d in HBF + %d in HBM != %d layers x %d tokens (moved %d)", s, hbf, hbm, l.layers, s, moved)
		}
	}
	if l.total == 0 {
		t.Fatal("the decode never spilled")
	}
	// The simulation moves exactly those bytes over the writeback route.
	r := run(t, exp, Options{})
	if r.KV.WritebackWaves != l.total || r.KV.DecodeHBF != unit.Bytes(moved)*kvTok || r.KV.Total() != r.KV.PrefillHBF+unit.Bytes(w.Output-1)*kvTok*unit.Bytes(l.layers) {
		t.Fatalf("result KV %+v; ledger moved %d waves", r.KV, l.total)
	}
	for _, rt := range r.Routes {
		if rt.Route == RouteWriteback && (rt.Delivered != r.KV.DecodeHBF || rt.Requested != rt.Delivered) {
			t.Fatalf("writeback route %+v, decode KV in HBF %v", rt, r.KV.DecodeHBF)
		}
	}
}

// The shortcuts (replayed passes, segments and rests of segments, forked
// kernels, jumps) give the same result as the step-by-step run on a decode
// that writes back.
func TestSpillExactShortcuts(t *testing.T) {
	if testing.Short() {
		t.Skip("event-by-event run of a 2,000-step decode")
	}
	exp := build(t, "qwen3-30b-a3b", "dash", 64, 64, 1100, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		return b.Modify(func(s *dash.SystemSpec) { s.HBM.Capacity = 2500 * unit.MB })
	})
	fast, slow := run(t, exp, Options{}), run(t, exp, Options{NoJump: true})
	if fast.KV.WritebackWaves == 0 || !sameResult(fast, slow) {
		t.Fatalf("writeback run: shortcuts %v (%d waves), step by step %v", fast.E2E, fast.KV.WritebackWaves, slow.E2E)
	}
	if fast.Perf.ReplayedSegments == 0 || fast.Perf.ResumedKernels == 0 || fast.Perf.ReplayedRests == 0 {
		t.Errorf("%d decode segments replayed (%d from within), %d kernels resumed from a checkpoint",
			fast.Perf.ReplayedSegments, fast.Perf.ReplayedRests, fast.Perf.ResumedKernels)
	}
}

// A sampled decode stays within 0.1% of the exact run and moves the same
// KV.
func TestSampledDecode(t *testing.T) {
	exp := spillExp(t, 4096)
	exact := run(t, exp, Options{})
	for _, s := range []int{4, 16} {
		r := run(t, exp, Options{DecodeSample: s})
		if d := math.Abs(r.E2E.Seconds()/exact.E2E.Seconds() - 1); d > 1e-3 || r.KV != exact.KV || r.TTFT != exact.TTFT {
			t.Errorf("sample %d: E2E %v vs exact %v (%.4f%%), KV %+v vs %+v", s, r.E2E, exact.E2E, 100*d, r.KV, exact.KV)
		}
		if r.Perf.SampledPasses == 0 || r.Perf.SampledPasses >= exact.Output/s+int(exact.KV.WritebackWaves) {
			t.Errorf("sample %d: %d passes simulated", s, r.Perf.SampledPasses)
		}
	}
}

// A budget too small to stage a page wave per layer is an error.
func TestSpillBudgetTooSmall(t *testing.T) {
	exp := build(t, "qwen3-30b-a3b", "dash", 16, 256, 4096, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		return b.Modify(func(s *dash.SystemSpec) { s.HBM.Capacity = 1500 * unit.MB })
	})
	if _, err := RunWith(exp, Options{}); err == nil {
		t.Fatal("expected an error for a decode-KV budget below one wave per layer")
	}
}

// The exposed write stall (E2E less E2E with programs that take no time)
// is zero while t_PROG fits the work a program overlaps and positive when
// it does not; the program-busy time grows with t_PROG either way.
func TestWriteStall(t *testing.T) {
	e2e := func(tprog unit.Duration) Result {
		exp := build(t, "qwen3-30b-a3b", "dash", 16, 256, 4096, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
			return b.Modify(func(s *dash.SystemSpec) { s.HBM.Capacity = 2500 * unit.MB }).TProg(tprog)
		})
		return run(t, exp, Options{})
	}
	base, fits, long := e2e(1), e2e(10*unit.Microsecond), e2e(10*unit.Millisecond)
	if fits.KV.WritebackWaves == 0 {
		t.Fatal("no writeback")
	}
	if fits.E2E != base.E2E {
		t.Errorf("t_PROG 10us: stall %v, want 0", fits.E2E-base.E2E)
	}
	if long.E2E <= base.E2E {
		t.Errorf("t_PROG 10ms: stall %v, want positive", long.E2E-base.E2E)
	}
	if !(base.Flash.ProgramBusy < fits.Flash.ProgramBusy && fits.Flash.ProgramBusy < long.Flash.ProgramBusy) {
		t.Errorf("program busy %v, %v, %v: must grow with t_PROG", base.Flash.ProgramBusy, fits.Flash.ProgramBusy, long.Flash.ProgramBusy)
	}
}
