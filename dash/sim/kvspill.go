package sim

import (
	"fmt"
	"slices"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// kvLedger places the decode KV of a fixed-batch run step by step (§V-A,
// §V-B "HBM-to-HBF KV writeback"). Prefill KV lives in HBF. Decode KV is
// appended in HBM; when appending a step's KV would exceed the plan's
// package-wide decode-KV budget, the oldest page-aligned decode KV leaves
// HBM: one full page wave of one layer (every HBM stack holds its part of
// the wave, since each token's KV is striped over the stacks), written back
// over the HBM-HBF paths after that layer's QKV projection, its program
// overlapping the attention. Layers take turns (each layer's oldest KV is
// the oldest of all), so the writebacks spread over steps. A token's KV is
// then in exactly one place: layer l's decode tokens [0, spilled[l]) in
// HBF, [spilled[l], generated) in HBM.
type kvLedger struct {
	layers     int
	token      unit.Bytes // one token of one layer, whole batch
	waveTokens int        // tokens of one layer per full page wave (all stacks)
	budget     int64      // the decode-KV budget in layer-tokens
	inHBM      int64      // layer-tokens resident in HBM
	generated  int        // decode tokens appended so far (per layer)
	spilled    []int      // per layer: decode tokens in HBF
	next       int        // the layer whose oldest wave goes next
	// this step: the spill before its writebacks, and the waves written
	// back (per layer)
	before  []int
	waves   []int
	wrote   int   // waves written back this step (the sum of waves)
	version int   // changes with every writeback
	total   int64 // waves written back so far
}

// newKVLedger returns the ledger of an experiment, or nil when its decode
// KV fits the budget (nothing is ever written back). A budget that cannot
// hold a page wave of every layer plus one step's KV cannot stage
// page-aligned writebacks: that is an error, not a silent overflow.
func newKVLedger(exp dash.Experiment) (*kvLedger, error) {
	p, w, m := exp.Plan(), exp.Workload(), exp.Model()
	if p.KV.Spill <= 0 {
		return nil, nil
	}
	token := unit.Bytes(w.Batch) * exp.Footprint().KVBytesPerTokenPerLayer
	s := exp.System()
	wave := unit.Bytes(s.Topology.Pairs) * s.HBF.PageWave()
	l := &kvLedger{layers: m.NumLayers, token: token, waveTokens: max(1, int(wave/token)),
		budget: int64(p.KV.HBMBudget / token), spilled: make([]int, m.NumLayers),
		before: make([]int, m.NumLayers), waves: make([]int, m.NumLayers)}
	if need := int64(l.layers) * int64(l.waveTokens+1); l.budget < need {
		return nil, fmt.Errorf("sim: %s: the HBM decode-KV budget %v holds less than one page wave (%v) per layer plus a step's KV (%v in all): "+
			"decode KV cannot be written back page-aligned; give HBM more room or use fewer layers' worth of waves",
			exp.Name(), p.KV.HBMBudget, wave, unit.Bytes(need)*token)
	}
	return l, nil
}

// advance places decode step s's KV: it writes back the oldest waves that
// appending this step's tokens would push over the budget, then appends.
func (l *kvLedger) advance() {
	if l.wrote > 0 { // otherwise before is spilled and waves are zero already
		copy(l.before, l.spilled)
		clear(l.waves)
		l.wrote = 0
	}
	for tries := 0; l.inHBM+int64(l.layers) > l.budget && tries < l.layers; {
		i := l.next
		// Only a complete wave of KV that is already in HBM leaves.
		if l.generated-l.spilled[i] >= l.waveTokens {
			l.spilled[i] += l.waveTokens
			l.waves[i]++
			l.wrote++
			l.inHBM -= int64(l.waveTokens)
			l.total++
			l.version++
			tries = 0
		} else {
			tries++
		}
		l.next = (l.next + 1) % l.layers
	}
	l.generated++
	l.inHBM += int64(l.layers)
}

// dropWritebacks clears the current step's writebacks and returns the
// function that puts them back.
func (l *kvLedger) dropWritebacks() (restore func()) {
	saved, wrote := slices.Clone(l.waves), l.wrote
	clear(l.waves)
	l.wrote = 0
	return func() { copy(l.waves, saved); l.wrote = wrote }
}

// writingBack reports whether the current step writes any KV back.
func (l *kvLedger) writingBack() bool { return l.wrote > 0 }

// hbfTokens is the number of layer i's decode tokens in HBF while the
// current step's attention runs (its own writeback is still in HBM).
func (l *kvLedger) hbfTokens(i int) int { return l.before[i] }

// sameAsPrev reports whether layer i's decode KV sits as layer i-1's does
// in the current step (as many tokens in HBF, as many written back).
func (l *kvLedger) sameAsPrev(i int) bool {
	return l.before[i] == l.before[i-1] && l.waves[i] == l.waves[i-1]
}

// writeback is the bytes of layer i written back in the current step.
func (l *kvLedger) writeback(i int) unit.Bytes {
	return unit.Bytes(l.waves[i]*l.waveTokens) * l.token
}

// hbmBytes and hbfBytes are the decode KV resident in HBM and in HBF
// after the current step.
func (l *kvLedger) hbmBytes() unit.Bytes { return unit.Bytes(l.inHBM) * l.token }

func (l *kvLedger) hbfBytes() unit.Bytes {
	var n int64
	for _, s := range l.spilled {
		n += int64(s)
	}
	return unit.Bytes(n) * l.token
}

// kvStats is the final KV placement of a run whose ledger is l (nil: no
// spill; every decode step's KV stayed in HBM).
func kvStats(exp dash.Experiment, l *kvLedger) KVStats {
	p, w := exp.Plan(), exp.Workload()
	k := KVStats{PrefillHBF: p.KV.Prefill, BudgetHBM: p.KV.HBMBudget}
	if l == nil {
		// The last token's KV is produced by no step: L_out - 1 decode steps.
		k.DecodeHBM = unit.Bytes(w.Batch) * unit.Bytes(max(0, w.Output-1)) * p.KV.BytesPerToken
		return k
	}
	k.DecodeHBM, k.DecodeHBF, k.WritebackWaves = l.hbmBytes(), l.hbfBytes(), l.total
	return k
}

// KVPoint is the KV placement after a number of decode steps.
type KVPoint struct {
	// Generated is the decode tokens per request appended so far.
	Generated int `json:"generated_tokens"`
	// HBM and HBF are the KV bytes resident in each (HBF includes the
	// prompt's KV).
	HBM unit.Bytes `json:"hbm_bytes"`
	HBF unit.Bytes `json:"hbf_bytes"`
}

// KVTrajectory is the KV placement of a fixed-batch run at about n evenly
// spaced decode steps (and the first writeback), from the same ledger the
// simulation uses; it simulates no timing.
func KVTrajectory(exp dash.Experiment, n int) ([]KVPoint, error) {
	if !exp.Valid() {
		return nil, fmt.Errorf("sim: KVTrajectory: experiment was not built")
	}
	if n < 1 {
		return nil, fmt.Errorf("sim: KVTrajectory: n = %d points: must be at least 1", n)
	}
	l, err := newKVLedger(exp)
	if err != nil {
		return nil, err
	}
	w, p := exp.Workload(), exp.Plan()
	steps := max(0, w.Output-1)
	every := max(1, steps/n)
	out := []KVPoint{{HBF: p.KV.Prefill}}
	var hbm unit.Bytes
	for s := 1; s <= steps; s++ {
		first := false
		if l != nil {
			before := l.total
			l.advance()
			first = before == 0 && l.total > 0
		} else {
			hbm += unit.Bytes(w.Batch) * p.KV.BytesPerToken
		}
		if s%every != 0 && s != steps && !first {
			continue
		}
		pt := KVPoint{Generated: s, HBM: hbm, HBF: p.KV.Prefill}
		if l != nil {
			pt.HBM, pt.HBF = l.hbmBytes(), p.KV.Prefill+l.hbfBytes()
		}
		out = append(out, pt)
	}
	return out, nil
}
