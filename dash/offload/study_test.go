package offload

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"testing/fstest"

	"github.com/dashlab/dashlab/dash/gpu"
	"github.com/dashlab/dashlab/dash/unit"
)

var testShape = LayerShape{Hidden: 4096, Inter: 1536, Experts: 128, TopK: 8, WeightBytes: 2}

func fakeFS(cpu, h2d string) fstest.MapFS {
	return fstest.MapFS{FileCPUExpert: {Data: []byte(cpu)}, FileH2D: {Data: []byte(h2d)}}
}

func shipped(t *testing.T) *HostProfile {
	t.Helper()
	p, err := LoadHostProfile(os.DirFS("../../reference/profiles/h200-host-offload"), "h200-host-offload", testShape)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// linearGPU is a stand-in timing model: a fixed cost per expert.
type linearGPU struct{ perExpert unit.Duration }

func (g linearGPU) Predict(op gpu.Op) gpu.Prediction {
	return gpu.Prediction{Latency: 10*unit.Microsecond + unit.Duration(op.Experts)*g.perExpert}
}

func TestMeasuredPointsAndModelledCores(t *testing.T) {
	p := shipped(t)
	got, err := p.LayerTime(16, 16)
	if err != nil || got.Modelled || got.Latency != micros(90480.9) {
		t.Errorf("LayerTime(16, 16) = %+v, %v; want the measured 90480.9 us", got, err)
	}
	for _, b := range p.Batches() {
		f, err := p.Fit(b)
		if err != nil {
			t.Fatal(err)
		}
		if f.MaxErrPct > 25 {
			t.Errorf("batch %d: core-scaling fit misses a measurement by %.1f%%", b, f.MaxErrPct)
		}
		t32, _ := p.LayerTime(b, 32)
		t16, _ := p.LayerTime(b, 16)
		if !t32.Modelled || t32.Latency <= 0 || t32.Latency > f.At(16) {
			t.Errorf("batch %d: 32 cores = %+v (16: %v), want modelled, positive, no slower than the fit at 16", b, t32, t16.Latency)
		}
	}
	if _, err := p.LayerTime(8, 16); err == nil {
		t.Error("an unmeasured batch was accepted")
	}
}

func TestCopyTime(t *testing.T) {
	p := shipped(t)
	for _, c := range p.Copies {
		if got := p.CopyTime(c.Size, c.Pinned); got != c.Median {
			t.Errorf("CopyTime(%v, %v) = %v, want the measured %v", c.Size, c.Pinned, got, c.Median)
		}
	}
	for _, pinned := range []bool{true, false} {
		prev := unit.Duration(0)
		for s := unit.Bytes(1024); s < 8*unit.GB; s = s * 3 / 2 {
			got := p.CopyTime(s, pinned)
			if got <= 0 || got < prev {
				t.Fatalf("pinned=%v: CopyTime(%v) = %v after %v: not positive and monotone", pinned, s, got, prev)
			}
			prev = got
		}
	}
	if bw := p.Bandwidth(testShape.ExpertBytes(), true).GBps(); math.Abs(bw-54.5) > 0.3 {
		t.Errorf("pinned bandwidth at one expert = %.2f GB/s, want the measured 54.49", bw)
	}
}

func TestActiveExperts(t *testing.T) {
	// The host measured 8, 28-30, 82-87 and 122-127 distinct experts.
	for b, want := range map[int]int{1: 8, 4: 29, 16: 82, 64: 126} {
		if got := ActiveExperts(b, 128, 8); got != want {
			t.Errorf("ActiveExperts(%d) = %d, want %d", b, got, want)
		}
	}
}

func TestHybridNeverWorseThanBestSinglePath(t *testing.T) {
	p := shipped(t)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200 {
		s := Scenario{
			Batch: p.Batches()[rng.IntN(4)], Cores: 1 + rng.IntN(64), MoELayers: 1 + rng.IntN(100), Shape: testShape,
			CachedFraction:    rng.Float64(),
			NonExpertPerToken: unit.Duration(rng.IntN(20)) * unit.Millisecond,
			DASHTPOT:          unit.Duration(1+rng.IntN(100)) * unit.Millisecond,
		}
		e, err := Evaluate(s, p, linearGPU{perExpert: unit.Duration(rng.IntN(2000)) * unit.Microsecond})
		if err != nil {
			t.Fatal(err)
		}
		best := min(e.CPU.TPOT, e.Streaming.TPOT)
		if e.Hybrid.TPOT > best || e.HybridReductionPct() < 0 {
			t.Fatalf("case %d %+v: hybrid %v worse than best single path %v", i, s, e.Hybrid.TPOT, best)
		}
		if e.CPU.GPUExperts != 0 || e.Streaming.CPUExperts != 0 || len(e.Splits) != e.ActiveExperts+1 {
			t.Fatalf("case %d: endpoints are not the single paths: %+v", i, e)
		}
		if e.StreamingPageable.TPOT < e.Streaming.TPOT {
			t.Fatalf("case %d: pageable streaming beat pinned", i)
		}
	}
}

func TestEvaluateRefusesMismatchedShape(t *testing.T) {
	p := shipped(t)
	s := Scenario{Batch: 1, Cores: 16, MoELayers: 1, Shape: LayerShape{Hidden: 7168, Inter: 2048, Experts: 256, TopK: 8, WeightBytes: 1}, DASHTPOT: unit.Millisecond}
	if _, err := Evaluate(s, p, linearGPU{}); err == nil {
		t.Error("a model whose layer the host did not measure was accepted")
	}
	s.Shape, s.CachedFraction = testShape, 1.5
	if _, err := Evaluate(s, p, linearGPU{}); err == nil {
		t.Error("cached_fraction 1.5 was accepted")
	}
}
