package offload

import (
	"fmt"
	"math"

	"github.com/dashlab/dashlab/dash/gpu"
	"github.com/dashlab/dashlab/dash/unit"
)

// Predictor times GPU operators; *gpu.Model implements it.
type Predictor interface {
	Predict(op gpu.Op) gpu.Prediction
}

// Scenario is one decode workload for the offloading alternatives.
type Scenario struct {
	// Batch is B, the tokens of one decode step.
	Batch int
	// Cores is the host core cap for CPU compute and the Hybrid.
	Cores int
	// MoELayers is the number of MoE layers a token crosses.
	MoELayers int
	// Shape is the model's expert layer; it must match the host profile's.
	Shape LayerShape
	// CachedFraction is the share of the routed experts resident in the
	// GPU's HBM (the rest live in host memory), in [0, 1].
	CachedFraction float64
	// NonExpertPerToken is the non-expert GPU time of one decode step,
	// shared by every scheme (the caller takes it from the engine's DASH
	// run).
	NonExpertPerToken unit.Duration
	// DASHTPOT is the engine's DASH TPOT for the same workload, the
	// normaliser.
	DASHTPOT unit.Duration
}

// Validate names the first bad field.
func (s Scenario) Validate() error {
	switch {
	case s.Batch < 1:
		return fmt.Errorf("batch %d: must be at least 1", s.Batch)
	case s.Cores < 1:
		return fmt.Errorf("cores %d: must be at least 1", s.Cores)
	case s.MoELayers < 1:
		return fmt.Errorf("moe_layers %d: must be at least 1", s.MoELayers)
	case !(s.CachedFraction >= 0 && s.CachedFraction <= 1):
		return fmt.Errorf("cached_fraction %g: must be in [0, 1]", s.CachedFraction)
	case s.NonExpertPerToken < 0:
		return fmt.Errorf("non_expert_per_token %v: must not be negative", s.NonExpertPerToken)
	case s.DASHTPOT <= 0:
		return fmt.Errorf("dash_tpot %v: must be positive", s.DASHTPOT)
	}
	return nil
}

// ActiveExperts is the expected number of distinct experts B tokens touch
// when each picks topK of experts uniformly: experts (1 - (1 - topK /
// experts)^B), rounded, at least 1.
func ActiveExperts(batch, experts, topK int) int {
	e := float64(experts)
	a := e * (1 - math.Pow(1-float64(topK)/e, float64(batch)))
	return max(1, min(experts, int(math.Round(a))))
}

// Split is one CPU/GPU division of a layer's active experts.
type Split struct {
	// GPUExperts run on the GPU: Cached of them already in HBM, Streamed
	// copied over PCIe first. CPUExperts run on the host.
	GPUExperts, Cached, Streamed, CPUExperts int
	// GPUSide is max(copies, GPU compute); CPUSide the activations' round
	// trip over PCIe plus the host compute. Both run concurrently.
	GPUSide, CPUSide unit.Duration
	// Stage is the layer's expert stage, max(GPUSide, CPUSide).
	Stage unit.Duration
	// TPOT is NonExpertPerToken + MoELayers x Stage.
	TPOT unit.Duration
}

// Evaluation is the three alternatives for one scenario.
type Evaluation struct {
	// Scenario is what was evaluated.
	Scenario Scenario
	// ActiveExperts is A, the distinct experts of one layer's step.
	ActiveExperts int
	// CPUModelled is true when the host time at Scenario.Cores comes from
	// the core-scaling fit rather than a measurement.
	CPUModelled bool
	// CPULayer is the host's whole-layer time at the batch and core cap.
	CPULayer unit.Duration
	// ExpertCopy is one expert's pinned host-to-GPU copy time.
	ExpertCopy unit.Duration
	// Streaming is weight streaming with pinned buffers (all A on the GPU);
	// StreamingPageable the same with pageable buffers.
	Streaming, StreamingPageable Split
	// CPU is CPU compute (all A on the host).
	CPU Split
	// Hybrid is the best split; Splits every evaluated one, j = 0..A GPU
	// experts (pinned buffers).
	Hybrid Split
	Splits []Split
}

// Slowdown is a split's TPOT over DASH's.
func (e Evaluation) Slowdown(s Split) float64 {
	return s.TPOT.Seconds() / e.Scenario.DASHTPOT.Seconds()
}

// BetterSingle is the faster of weight streaming (pinned) and CPU compute.
func (e Evaluation) BetterSingle() Split {
	if e.CPU.TPOT < e.Streaming.TPOT {
		return e.CPU
	}
	return e.Streaming
}

// HybridReductionPct is the Hybrid's TPOT reduction over the better single
// path, in percent (0 when a single path is the best split).
func (e Evaluation) HybridReductionPct() float64 {
	return 100 * (1 - e.Hybrid.TPOT.Seconds()/e.BetterSingle().TPOT.Seconds())
}

// Evaluate computes weight streaming, CPU compute and every Hybrid split
// for one scenario, with GPU expert compute from timing and host data from
// host.
func Evaluate(s Scenario, host *HostProfile, timing Predictor) (Evaluation, error) {
	if err := s.Validate(); err != nil {
		return Evaluation{}, err
	}
	if s.Shape != host.Shape {
		return Evaluation{}, fmt.Errorf("the host profile %s measured a %+v expert layer; the scenario's layer is %+v", host.Name, host.Shape, s.Shape)
	}
	cpu, err := host.LayerTime(s.Batch, s.Cores)
	if err != nil {
		return Evaluation{}, err
	}
	a := ActiveExperts(s.Batch, s.Shape.Experts, s.Shape.TopK)
	cached := int(math.Round(s.CachedFraction * float64(a)))
	e := Evaluation{Scenario: s, ActiveExperts: a, CPUModelled: cpu.Modelled, CPULayer: cpu.Latency,
		ExpertCopy: host.CopyTime(s.Shape.ExpertBytes(), true)}
	ev := splitter{s: s, host: host, timing: timing, active: a, cached: cached, cpu: cpu.Latency}
	for j := 0; j <= a; j++ {
		sp := ev.split(j, true)
		e.Splits = append(e.Splits, sp)
		if j == 0 || sp.TPOT < e.Hybrid.TPOT {
			e.Hybrid = sp
		}
	}
	e.CPU, e.Streaming = e.Splits[0], e.Splits[a]
	e.StreamingPageable = ev.split(a, false)
	for _, sp := range []Split{e.CPU, e.Streaming, e.StreamingPageable, e.Hybrid} {
		if sp.TPOT <= 0 || sp.TPOT >= unit.MaxDuration {
			return Evaluation{}, fmt.Errorf("host profile %s at batch %d, %d cores: a TPOT of %v is not a time (check the host data's units)", host.Name, s.Batch, s.Cores, sp.TPOT)
		}
	}
	return e, nil
}

type splitter struct {
	s              Scenario
	host           *HostProfile
	timing         Predictor
	active, cached int
	cpu            unit.Duration
}

// split evaluates j experts on the GPU (cached ones first) and the rest on
// the host.
func (v splitter) split(j int, pinned bool) Split {
	s := v.s
	sp := Split{GPUExperts: j, Cached: min(j, v.cached), CPUExperts: v.active - j}
	sp.Streamed = j - sp.Cached
	if j > 0 {
		rows := (s.Batch*s.Shape.TopK + v.active - 1) / v.active
		compute := v.timing.Predict(gpu.Op{Kind: gpu.Grouped, Experts: j, Rows: rows,
			Hidden: s.Shape.Hidden, Inter: s.Shape.Inter}).Latency
		copies := unit.Duration(sp.Streamed) * v.host.CopyTime(s.Shape.ExpertBytes(), pinned)
		sp.GPUSide = max(copies, compute)
	}
	if sp.CPUExperts > 0 {
		act := unit.Bytes(s.Batch * s.Shape.Hidden * s.Shape.WeightBytes)
		share := float64(sp.CPUExperts) / float64(v.active)
		sp.CPUSide = 2*v.host.CopyTime(act, pinned) + unit.Duration(math.Round(share*float64(v.cpu)))
	}
	sp.Stage = max(sp.GPUSide, sp.CPUSide)
	sp.TPOT = s.NonExpertPerToken + unit.Duration(s.MoELayers)*sp.Stage
	return sp
}

// CacheFraction is the share of routed-expert bytes that fit in the GPU's
// HBM after the non-expert weights and the KV cache, in [0, 1].
func CacheFraction(hbm, nonExpert, kv, routedExperts unit.Bytes) float64 {
	free := hbm - nonExpert - kv
	if free <= 0 || routedExperts <= 0 {
		return 0
	}
	return math.Min(1, float64(free)/float64(routedExperts))
}
