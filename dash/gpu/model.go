package gpu

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/dashlab/dashlab/dash/unit"
)

// FP8BlockScaleEfficiency is the fraction of the FP8 tensor-core speed-up
// over BF16 (PeakFP8/PeakBF16, 2x on Hopper) that an FP8 GEMM with 128x128
// block scales keeps: its partial sums are promoted to FP32 on CUDA cores
// every 128 K-elements (DeepSeek-V3 technical report §3.3.2; DeepGEMM), so
// it reaches 1.6x the measured BF16 compute time rather than 2x. This is an
// assumption, not a measurement: the profile times BF16 only.
const FP8BlockScaleEfficiency = 0.8

// defaultFloorUs is the launch floor used when env.json has no
// tiny_kernel_us (a kernel start inside a CUDA graph on Hopper, ~1.4 us).
const defaultFloorUs = 1.5

// Model is a GPU timing model: a profile's measured latencies, interpolated
// and extended by fitted rooflines, for one target GPU. It is immutable and
// safe for concurrent use. The family of a shape the profile never measured
// (another model's K and N) is synthesised on its first Predict and cached
// in a sync.Map, so only that first call allocates.
type Model struct {
	target, source Spec
	derived        bool

	floor float64 // s: the launch floor (kernel start inside a CUDA graph)
	bw    float64 // B/s: effective HBM bandwidth on the profile's GPU

	// Derivation: compute time is multiplied by cScale and memory time by
	// mScale (both 1 on the measured GPU).
	cScale, mScale float64
	fp8Speed       float64 // compute speed-up of FP8 weights on the target

	tables [numKinds]*lazyTable
}

// lazyTable is one kind's table, whose families are built on the kind's
// first Predict: a process pays only for the kinds it uses (a GQA model never
// builds the MLA table). Its roofline is fitted (or read from fittedRoofs)
// when the model is made, since the effective bandwidth depends on it.
type lazyTable struct {
	once    sync.Once
	kind    OpKind
	samples []sample
	roof    roof
	tb      *table
}

// builtTable wraps a table already built.
func builtTable(tb *table) *lazyTable {
	l := &lazyTable{kind: tb.kind, roof: tb.roof, tb: tb}
	l.once.Do(func() {})
	return l
}

// get returns the table, building its families on first use.
func (l *lazyTable) get() *table {
	l.once.Do(func() { l.tb = buildFamilies(l.kind, l.samples, l.roof) })
	return l.tb
}

// NewModel fits a timing model to a profile for a target GPU. When the target
// is the profile's GPU (same ID as [Profile.GPU]) the model is measured;
// otherwise it is derived: compute time scales by the ratio of SMs x boost
// clock, memory time by the ratio of HBM bandwidths, and the launch floor is
// kept. Deriving needs a valid target spec and the profile GPU's SM count,
// boost clock and bandwidth, which a catalogue GPU has and a GPU known only
// from env.json lacks.
func NewModel(p *Profile, target Spec) (*Model, error) {
	if p == nil || len(p.Points) == 0 {
		return nil, errors.New("gpu: empty profile")
	}
	m := &Model{target: target, source: p.GPU(), cScale: 1, mScale: 1}
	m.derived = m.source.ID != target.ID
	if m.derived {
		if err := target.Validate(); err != nil {
			return nil, err
		}
		s := m.source
		if s.SMs <= 0 || s.BoostClock <= 0 || s.MemBandwidth <= 0 {
			return nil, fmt.Errorf("gpu: cannot derive %s from a profile of %q: its SM count, boost clock or bandwidth is unknown", target.ID, s.Name)
		}
		m.cScale = s.computeScale() / target.computeScale()
		m.mScale = float64(s.MemBandwidth) / float64(target.MemBandwidth)
		m.target.Measured = false
		m.target.DerivedFrom = s.ID
	}
	m.fp8Speed = 1
	if target.PeakFP8 > 0 && target.PeakBF16 > 0 {
		m.fp8Speed = math.Max(1, float64(target.PeakFP8)/float64(target.PeakBF16)*FP8BlockScaleEfficiency)
	}
	m.fit(p)
	return m, nil
}

// fit sets the floor, builds the tables and sets the effective bandwidth.
func (m *Model) fit(p *Profile) {
	m.floor = floorOf(p)
	prior := priorRoof(m.source, m.floor)
	byKind := samplesByKind(p.Points)
	m.bw = envelopeBandwidth(p.Points, m.floor)
	for k := GEMM; k <= Route; k++ {
		r := kindRoof(k, byKind[k], prior)
		m.tables[k] = &lazyTable{kind: k, samples: byKind[k], roof: r}
		if memoryBound(r, byKind[k]) >= 3 {
			m.bw = math.Max(m.bw, r.bw)
		}
	}
}

// floorOf is the launch floor: env.json's tiny kernel, else the default,
// never above half the fastest measurement.
func floorOf(p *Profile) float64 {
	f := p.Env.TinyKernelUs * 1e-6
	if f <= 0 {
		f = defaultFloorUs * 1e-6
	}
	for _, pt := range p.Points {
		f = math.Min(f, 0.5*pt.Median.Seconds())
	}
	return f
}

// envelopeBandwidth is the highest bandwidth any measurement implies once
// the floor is removed: bytes / (latency - floor). With it every measured
// latency is at least floor + bytes/bandwidth, so the split into Overhead and
// a memory floor never goes negative. The model takes the larger of it and
// the bandwidth of every kind's fitted roofline that the kind's memory-bound
// measurements determine, so that extrapolating a roofline to larger
// transfers stays above the floor too.
func envelopeBandwidth(pts []Point, floor float64) float64 {
	bw := 0.0
	for _, pt := range pts {
		op := normalize(pt.Op)
		t := pt.Median.Seconds() - floor
		if t <= 0 {
			continue
		}
		bw = math.Max(bw, workOf(op).bytes()/t)
	}
	if bw == 0 {
		bw = 1e12
	}
	return bw
}

// priorRoof is the roofline the fits start from (and a kind without
// measurements uses): 5 us overhead, 90% of the datasheet bandwidth, 65% of
// the dense BF16 peak.
func priorRoof(s Spec, floor float64) roof {
	r := roof{o: math.Max(5e-6, 2*floor), bw: 0.9 * float64(s.MemBandwidth), p: 0.65 * float64(s.PeakBF16)}
	if r.bw <= 0 {
		r.bw = 2e12
	}
	if r.p <= 0 {
		r.p = 300e12
	}
	return r
}

// samplesByKind splits the points by kind, in order, into one allocation
// (a sample is 160 bytes; appending kind by kind allocated twice that).
func samplesByKind(pts []Point) [numKinds][]sample {
	var count [numKinds]int
	for _, pt := range pts {
		if k := pt.Op.Kind; k >= GEMM && k <= Route {
			count[k]++
		}
	}
	all := make([]sample, 0, len(pts))
	var out [numKinds][]sample
	for k := range out {
		if count[k] > 0 {
			out[k] = all[len(all) : len(all) : len(all)+count[k]]
			all = all[:len(all)+count[k]]
		}
	}
	for _, pt := range pts {
		op := normalize(pt.Op)
		op.WeightDType = BF16
		if op.Kind >= GEMM && op.Kind <= Route {
			out[op.Kind] = append(out[op.Kind], sample{op, pt.Median.Seconds()})
		}
	}
	return out
}

// GPU returns the target GPU's spec. For a derived model Measured is false
// and DerivedFrom names the profile's GPU.
func (m *Model) GPU() Spec { return m.target }

// ProfileGPU returns the spec of the GPU the profile was measured on.
func (m *Model) ProfileGPU() Spec { return m.source }

// Derived reports whether the target GPU differs from the profile's: its
// latencies are scaled, not measured.
func (m *Model) Derived() bool { return m.derived }

// MemBandwidth is the effective HBM bandwidth of the target GPU that the
// split of Latency into Overhead + max(Compute, bytes/bandwidth) uses: on
// the profile's GPU the highest bandwidth the measurements reach (4.56 TB/s
// on the H200, 95% of its datasheet figure), scaled by the bandwidth ratio
// for a derived GPU. An engine that streams an op's bytes from this GPU's
// own HBM should use it, so that it reproduces Latency.
func (m *Model) MemBandwidth() unit.BytesPerSecond {
	return unit.BytesPerSecond(m.bw / m.mScale)
}

// LaunchFloor is the per-op floor of a compute-bound op: a kernel start
// inside a CUDA graph (env.json tiny_kernel_us).
func (m *Model) LaunchFloor() unit.Duration { return seconds(m.floor) }

// seconds converts to nanoseconds, rounded, at least 1 ns and at most ~31
// years so that absurd shapes stay representable.
func seconds(s float64) unit.Duration {
	ns := math.Round(s * 1e9)
	switch {
	case !(ns >= 1):
		return 1
	case ns > float64(MaxPredictedLatency):
		return MaxPredictedLatency
	}
	return unit.Duration(ns)
}

func bytesOf(b float64) unit.Bytes {
	if !(b >= 0) {
		return 0
	}
	if b > float64(MaxPredictedBytes) {
		return MaxPredictedBytes
	}
	return unit.Bytes(math.Round(b))
}

// Predict returns the timing of one operator on the model's target GPU. It
// never returns a zero, negative or NaN latency: sizes below 1 are taken as
// 1, and a kind the model does not know gets the launch floor, marked
// Extrapolated.
func (m *Model) Predict(op Op) Prediction {
	op = normalize(op)
	if op.Kind < GEMM || op.Kind > Route {
		return Prediction{Latency: seconds(m.floor), Overhead: seconds(m.floor), LaunchFloor: seconds(m.floor), Extrapolated: true}
	}
	w := workOf(op)
	op16 := op
	op16.WeightDType = BF16
	w16 := workOf(op16)
	tb := m.tables[op.Kind].get()
	lat, extrap := m.measuredLatency(tb, op16)

	// Split the profile-GPU latency (BF16 weights, operands in HBM).
	mem := w16.bytes() / m.bw
	lat = math.Max(lat, m.floor+mem) // nothing streams faster than the envelope
	comp := w16.flops / tb.roof.p
	var overhead, compute float64
	switch excess := lat - m.floor - math.Max(comp, mem); {
	case comp <= mem:
		// Memory-bound: the stream is the floor; what the latency holds
		// beyond it (kernel start, pipeline fill, tail) does not overlap it.
		overhead, compute = lat-mem, comp
	case excess < 0:
		// Compute-bound and faster than the fitted rate: all measured.
		overhead, compute = m.floor, lat-m.floor
	default:
		// Compute-bound: the measured time beyond the launch floor is
		// compute, blended in from the ridge (comp = mem) to twice it so
		// that the split is continuous across the ridge.
		a := math.Min(1, comp/mem-1)
		overhead, compute = m.floor+(1-a)*excess, comp+a*excess
	}

	// Stored dtype and target GPU.
	if op.WeightDType == FP8 && (op.Kind == GEMM || op.Kind == Grouped) {
		compute /= m.fp8Speed
	}
	memT := w.bytes() / m.bw * m.mScale
	compute *= m.cScale
	total := overhead + math.Max(compute, memT)
	return Prediction{
		Latency:         seconds(total),
		Compute:         seconds(compute),
		Overhead:        seconds(overhead),
		LaunchFloor:     min(seconds(overhead), seconds(m.floor)),
		WeightBytes:     bytesOf(w.weight),
		ActivationBytes: bytesOf(w.act),
		KVBytes:         bytesOf(w.kv),
		FLOPs:           unit.FLOPs(w.flops),
		Extrapolated:    extrap,
		OutOfRange: !(total*1e9 < float64(MaxPredictedLatency)) || !(w.weight < float64(MaxPredictedBytes)) ||
			!(w.act < float64(MaxPredictedBytes)) || !(w.kv < float64(MaxPredictedBytes)),
	}
}

// measuredLatency is the latency on the profile's GPU with BF16 weights:
// interpolated from the measured family, carried along the roofline beyond
// it, or the roofline corrected by the nearest families.
func (m *Model) measuredLatency(tb *table, op Op) (float64, bool) {
	switch op.Kind {
	case AttnPrefill:
		// The profile times one request with QLen == KVLen. Any other
		// shape maps to the full causal prefill of equal total work,
		// L(L+1)/2 = batch x query-key pairs per request: a batch of short
		// prompts fills the GPU like one long prompt of the same work.
		q, kv := float64(op.QLen), float64(op.KVLen)
		pairs := float64(op.Batch) * (q*(kv-q) + q*(q+1)/2)
		l := (math.Sqrt(1+8*pairs) - 1) / 2
		t, ex := tb.latency(withSweep(op, 0, l))
		return t, ex || op.Batch != 1 || op.QLen != op.KVLen
	case AttnDecode, AttnDecodeMLA:
		if op.QLen > 1 {
			// Several query tokens per request (speculative decoding):
			// scale the one-token time by the roofline.
			one := op
			one.QLen = 1
			t, _ := tb.latency(one)
			return t * tb.roof.at(workOf(op)) / tb.roof.at(workOf(one)), true
		}
	}
	return tb.latency(op)
}
