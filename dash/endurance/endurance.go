package endurance

import (
	"errors"
	"fmt"
	"math"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

// SecondsPerYear is a Julian year.
const SecondsPerYear = 365.25 * 24 * 3600

// PECycles is the default sweep of program/erase cycles.
var PECycles = []float64{3e3, 1e4, 3e4, 5e4, 1e5}

// Inputs are the terms of the lifetime formula.
type Inputs struct {
	// KVCapacity is C_KV, the HBF capacity the KV cache owns.
	KVCapacity unit.Bytes
	// PECycles is E_SLC.
	PECycles float64
	// WriteAmplification is A_W (>= 1).
	WriteAmplification float64
	// WriteRate is R_HBF, the KV write rate into HBF at full load.
	WriteRate unit.BytesPerSecond
	// Utilization is u in (0, 1].
	Utilization float64
}

// Validate names every bad term.
func (in Inputs) Validate() error {
	var errs []error
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	if in.KVCapacity <= 0 {
		errs = append(errs, fmt.Errorf("kv_capacity = %v: must be positive", in.KVCapacity))
	}
	if !(in.PECycles >= 1) || !finite(in.PECycles) || in.PECycles > 1e9 {
		errs = append(errs, fmt.Errorf("pe_cycles = %g: must be between 1 and 1e9", in.PECycles))
	}
	if !(in.WriteAmplification >= 1) || !finite(in.WriteAmplification) || in.WriteAmplification > 1e6 {
		errs = append(errs, fmt.Errorf("write_amplification = %g: must be between 1 and 1e6", in.WriteAmplification))
	}
	if !(in.WriteRate >= 0) || !finite(float64(in.WriteRate)) {
		errs = append(errs, fmt.Errorf("write_rate = %v: must be finite and not negative", in.WriteRate))
	}
	if !(in.Utilization > 0 && in.Utilization <= 1) {
		errs = append(errs, fmt.Errorf("utilization = %g: must be in (0, 1]", in.Utilization))
	}
	return errors.Join(errs...)
}

// LifetimeSeconds is C_KV x E_SLC / (A_W x R_HBF x u), +Inf when nothing is
// written.
func (in Inputs) LifetimeSeconds() (float64, error) {
	if err := in.Validate(); err != nil {
		return 0, err
	}
	if in.WriteRate == 0 {
		return math.Inf(1), nil
	}
	return float64(in.KVCapacity) * in.PECycles / (in.WriteAmplification * float64(in.WriteRate) * in.Utilization), nil
}

// LifetimeYears is LifetimeSeconds in years.
func (in Inputs) LifetimeYears() (float64, error) {
	s, err := in.LifetimeSeconds()
	return s / SecondsPerYear, err
}

// KVCapacity is the HBF capacity an experiment leaves to the KV cache: each
// HBF stack's capacity less the weights placed on it.
func KVCapacity(p dash.Plan) unit.Bytes {
	return unit.Bytes(p.HBFStacks) * (p.HBF.Capacity - p.HBF.Weights)
}

// WrittenBytes is what a run wrote into HBF: direct and relay KV writes and
// HBM-to-HBF writebacks.
func WrittenBytes(r sim.Result) unit.Bytes {
	var b unit.Bytes
	for _, rt := range r.Routes {
		if rt.Route.WritesHBF() {
			b += rt.Delivered
		}
	}
	return b
}

// Measurement is R_HBF, C_KV and A_W with where each came from.
type Measurement struct {
	// WriteRate is R_HBF; WriteRateSource says how it was measured.
	WriteRate       unit.BytesPerSecond
	WriteRateSource string
	// KVCapacity is C_KV.
	KVCapacity unit.Bytes
	// WriteAmplification is A_W; WASource says where it came from.
	WriteAmplification float64
	WASource           string
}

// Inputs completes the measurement with E_SLC and u.
func (m Measurement) Inputs(peCycles, utilization float64) Inputs {
	return Inputs{KVCapacity: m.KVCapacity, PECycles: peCycles, WriteAmplification: m.WriteAmplification,
		WriteRate: m.WriteRate, Utilization: utilization}
}

// MeasuredWA is the write amplification the engine's flash management
// (garbage collection over KV-owned superblocks) measured in a run, with a
// description; ok is false when the run programmed no KV page.
func MeasuredWA(r sim.Result) (wa float64, source string, ok bool) {
	f := r.Flash
	if f.HostPages <= 0 || f.WriteAmplification < 1 {
		return 0, "", false
	}
	return f.WriteAmplification, fmt.Sprintf("measured by the engine's flash management: %d KV pages programmed, %d relocated by garbage collection, %d superblock erases",
		f.HostPages, f.RelocatedPages, f.Erases), true
}

// KVCapacityOf is C_KV from a run's flash model: the KV-owned superblocks
// of every HBF stack (a stack's superblocks less the weight-owned ones), or
// KVCapacity of the plan when the run has no flash model.
func KVCapacityOf(r sim.Result, p dash.Plan) unit.Bytes {
	f := r.Flash
	if f.Superblocks > f.WeightSuperblocks && f.SuperblockBytes > 0 && len(r.HBF) > 0 {
		return unit.Bytes(len(r.HBF)*(f.Superblocks-f.WeightSuperblocks)) * f.SuperblockBytes
	}
	return KVCapacity(p)
}

// FromFixedBatch measures R_HBF as a fixed-batch run's HBF writes over its
// simulated time (a backlogged, full-load run) and C_KV from its flash
// model (or plan). A_W is wa from waSource, or, when wa is 0, the run's
// own measured write amplification ([MeasuredWA]).
func FromFixedBatch(r sim.Result, p dash.Plan, wa float64, waSource string) (Measurement, error) {
	if r.E2E <= 0 {
		return Measurement{}, fmt.Errorf("run %s has no simulated time", r.Name)
	}
	if wa == 0 {
		var ok bool
		if wa, waSource, ok = MeasuredWA(r); !ok {
			return Measurement{}, fmt.Errorf("run %s programmed no KV page into HBF: its write amplification is not measured (give A_W)", r.Name)
		}
	}
	w := WrittenBytes(r)
	return Measurement{
		WriteRate: unit.BytesPerSecond(float64(w) / r.E2E.Seconds()),
		WriteRateSource: fmt.Sprintf("fixed-batch run %s B=%d %d/%d on %s: %v written to HBF in %v (prefill KV writes and writebacks)",
			r.Model, r.Batch, r.Prompt, r.Output, r.System, w, r.E2E),
		KVCapacity:         KVCapacityOf(r, p),
		WriteAmplification: wa,
		WASource:           waSource,
	}, nil
}
