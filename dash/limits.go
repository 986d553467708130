package dash

import (
	"fmt"
	"math"
	"reflect"

	"github.com/dashlab/dashlab/dash/unit"
)

// Plausible ranges of the spec fields. They follow from physics and from
// what any package of the catalogue could hold, far outside every paper
// experiment and every shipped file, and they keep every derived quantity
// (page waves, capacities, token counts, KV bytes, simulated time) well
// inside int64. Validate enforces them with an error naming the field, its
// value and the range (a *RangeError). The ranges of the memory system, the
// workload and the execution switches are their knob tags (see Knob; the
// table is docs/knobs.md): the constants below are the bounds other code
// needs, which TestKnobRangesMatchLimits holds the tags to, and the model's.
const (
	// MaxPairs bounds topology.pairs (1..64 HBM-HBF stack pairs).
	MaxPairs = 64

	// MaxStackCapacity bounds hbm.capacity and hbf.capacity (1 PB per stack).
	MaxStackCapacity = 1000 * unit.TB

	// MinTRead bounds hbf.t_read from below (10 ns: a hundred times faster
	// than any NAND read, yet above a bare Go constant such as
	// unit.Duration(3), which is 3 ns, not the 3 µs meant). hbf.t_prog may
	// be 1 ns (Fig. 12's reference row: "no program latency"); both at most
	// 10 s.
	MinTRead = 10 * unit.Nanosecond

	// MinPageSize bounds the NAND page (512 B .. 1 MiB) and a relay SRAM
	// region from below; MaxPageWave bounds the data one t_R senses across
	// a stack (4 GiB).
	MinPageSize = 512 * unit.Byte
	MaxPageWave = 4 * unit.GiB

	// MaxBatch bounds workload.batch (1..65,536 requests); MaxTokens bounds
	// workload.prompt + workload.output and a model's max_context (16 Mi
	// tokens, above every catalogue model's context).
	MaxBatch  = 1 << 16
	MaxTokens = 1 << 24
	// MaxZipfS bounds workload.routing.zipf_s (100: all but the top expert
	// have vanishing popularity long before).
	MaxZipfS = 100

	// MaxLayers bounds num_layers (100,000); MaxMTPLayers mtp_layers;
	// MaxWidth the hidden, intermediate and latent widths (1 Mi); MaxHeads
	// the attention heads and MaxHeadDim their widths (65,536); MaxVocab
	// the vocabulary (16 Mi); MaxExperts the routed experts per layer
	// (65,536) and MaxSharedExperts the shared ones (1024).
	MaxLayers        = 100_000
	MaxMTPLayers     = 64
	MaxWidth         = 1 << 20
	MaxHeads         = 1 << 16
	MaxHeadDim       = 1 << 16
	MaxVocab         = 1 << 24
	MaxExperts       = 1 << 16
	MaxSharedExperts = 1024

	// MaxFootprint bounds the bytes a model's weights, its KV cache or its
	// activation workspace may take (1 EB): 15 times the largest package the
	// limits above allow, and small enough that any sum of them fits in
	// int64.
	MaxFootprint = 1000 * 1000 * unit.TB
)

// RangeError is a spec field outside its plausible range.
type RangeError struct {
	// Field is the YAML path of the field ("hbf.t_read").
	Field string
	// Value is the value given, printed with its unit.
	Value string
	// Min and Max bound the range, printed with their unit.
	Min, Max string
	// Hint, when set, says what was most likely meant: a positive
	// duration, size or rate below its range is most often a number
	// without its unit (in Go, unit.Duration(3) is 3 ns); a parallel
	// degree of 0, a default spelled out.
	Hint string
	// Choices, for a field that takes names, lists them (Min and Max are
	// then empty).
	Choices string
}

func (e *RangeError) Error() string {
	if e.Choices != "" {
		return fmt.Sprintf("%s = %s: must be %s", e.Field, e.Value, e.Choices)
	}
	msg := fmt.Sprintf("%s = %s: outside the plausible range %s .. %s", e.Field, e.Value, e.Min, e.Max)
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

// inRange appends a *RangeError to errs unless lo <= v <= hi (NaN is never
// in range).
func inRange[T int | unit.Bytes | unit.Duration | unit.BytesPerSecond | float64 | unit.JoulesPerBit](errs []error, field string, v, lo, hi T) []error {
	if v >= lo && v <= hi {
		return errs
	}
	return append(errs, &RangeError{Field: field, Value: fmt.Sprint(v), Min: fmt.Sprint(lo), Max: fmt.Sprint(hi), Hint: unitHint(v, lo)})
}

// unitHint says, for a positive value below its range, what a number
// without a unit means in Go and how to write the unit (see unitHintOf).
func unitHint[T int | unit.Bytes | unit.Duration | unit.BytesPerSecond | float64 | unit.JoulesPerBit](v, lo T) string {
	return unitHintOf(reflect.ValueOf(v), float64(v), float64(lo))
}

// The spec fields' ranges are their knob tags (see Knob); limits checks
// them for one part of a system, in the table's order.

func (h HBMSpec) limits() []error {
	return checkKnobs(KnobTarget{System: &SystemSpec{HBM: h}}, "hbm.")
}

// hbmArrayLimits checks the HBM stack's own fields (not its relay SRAM).
func hbmArrayLimits(errs []error, h HBMSpec) []error {
	t := KnobTarget{System: &SystemSpec{HBM: h}}
	errs = append(errs, checkKnobs(t, "hbm.capacity")...)
	return append(errs, checkKnobs(t, "hbm.array_bandwidth")...)
}

func (h HBFSpec) limits() []error {
	errs := checkKnobs(KnobTarget{System: &SystemSpec{HBF: h}}, "hbf.")
	if len(errs) == 0 {
		// Every factor is bounded, so the product cannot wrap.
		errs = inRange(errs, "hbf page wave (dies x planes_per_die x subarrays_per_plane x page_size)", h.PageWave(), MinPageSize, MaxPageWave)
	}
	return errs
}

func (l LinkSpec) limits() []error {
	return checkKnobs(KnobTarget{System: &SystemSpec{Link: l}}, "link.")
}

func (t TopologySpec) limits() []error {
	return checkKnobs(KnobTarget{System: &SystemSpec{Topology: t}}, "topology.")
}

func (w WorkloadSpec) limits() []error {
	errs := checkKnobs(KnobTarget{Workload: &w}, "workload.")
	if len(errs) == 0 {
		errs = inRange(errs, "workload.prompt + workload.output", w.Prompt+w.Output, 2, MaxTokens)
	}
	return errs
}

func (m ModelSpec) limits() []error {
	var errs []error
	for _, f := range []struct {
		name      string
		v, lo, hi int
	}{
		{"num_layers", m.NumLayers, 1, MaxLayers},
		{"mtp_layers", m.MTPLayers, 0, MaxMTPLayers},
		{"hidden_size", m.HiddenSize, 1, MaxWidth},
		{"vocab_size", m.VocabSize, 1, MaxVocab},
		{"max_context", m.MaxContext, 0, MaxTokens},
		{"attention.heads", m.Attention.Heads, 1, MaxHeads},
		{"attention.kv_heads", m.Attention.KVHeads, 0, MaxHeads},
		{"attention.head_dim", m.Attention.HeadDim, 1, MaxHeadDim},
		{"attention.chunk_size", m.Attention.ChunkSize, 0, MaxTokens},
		{"attention.global_every", m.Attention.GlobalEvery, 0, MaxLayers},
		{"ffn.dense_intermediate", m.FFN.DenseIntermediate, 0, MaxWidth},
		{"ffn.moe_intermediate", m.FFN.MoEIntermediate, 1, MaxWidth},
		{"ffn.routed_experts", m.FFN.RoutedExperts, 1, MaxExperts},
		{"ffn.shared_experts", m.FFN.SharedExperts, 0, MaxSharedExperts},
		{"ffn.shared_intermediate", m.FFN.SharedIntermediate, 0, MaxWidth},
		{"ffn.top_k", m.FFN.TopK, 1, MaxExperts},
		{"norm.per_layer", m.Norm.PerLayer, 1, 64},
		{"router.groups", m.Router.Groups, 0, MaxExperts},
		{"router.top_k_groups", m.Router.TopKGroups, 0, MaxExperts},
	} {
		errs = inRange(errs, f.name, f.v, f.lo, f.hi)
	}
	if l := m.Attention.MLA; l != nil {
		for _, f := range []struct {
			name  string
			v, hi int
		}{
			{"q_lora_rank", l.QLoraRank, MaxWidth}, {"kv_lora_rank", l.KVLoraRank, MaxWidth},
			{"qk_nope_head_dim", l.QKNopeHeadDim, MaxHeadDim}, {"qk_rope_head_dim", l.QKRopeHeadDim, MaxHeadDim},
			{"v_head_dim", l.VHeadDim, MaxHeadDim},
		} {
			if f.v > f.hi { // Validate reports the lower bounds
				errs = inRange(errs, "attention.mla."+f.name, f.v, 0, f.hi)
			}
		}
		if ix := l.Indexer; ix != nil {
			errs = inRange(errs, "attention.mla.indexer.heads", ix.Heads, 0, MaxHeads)
			errs = inRange(errs, "attention.mla.indexer.head_dim", ix.HeadDim, 0, MaxHeadDim)
			errs = inRange(errs, "attention.mla.indexer.top_k", ix.TopK, 0, MaxTokens)
		}
	}
	return errs
}

// checkFootprint refuses a model whose weights would pass MaxFootprint,
// summing in float64 before any int64 sum can wrap.
func (inv Inventory) checkFootprint() error {
	total := 0.0
	for _, t := range inv.Tensors {
		n := float64(t.Count)
		for _, d := range t.Shape {
			n *= float64(d)
		}
		total += n * float64(t.DType.Size())
	}
	if total > float64(MaxFootprint) {
		return fmt.Errorf("model %s: weights of about %.3g bytes: more than the %v any package could hold", inv.Model, total, MaxFootprint)
	}
	return nil
}

// checkScale refuses a workload whose KV cache or activation workspace
// would pass MaxFootprint, computed in float64 before the placement sums
// them in int64.
func checkScale(m ModelSpec, f Footprint, w WorkloadSpec) error {
	kv := float64(f.KVBytesPerTokenPerLayer) * float64(m.NumLayers) * float64(w.Batch) * float64(w.Prompt+w.Output)
	ffn := math.Max(float64(m.FFN.DenseIntermediate), float64(m.FFN.TopK)*float64(m.FFN.MoEIntermediate)+float64(m.FFN.SharedIntermediate))
	ws := float64(w.Batch) * float64(w.Prompt) * (4*float64(m.HiddenSize) + 2*ffn) * float64(BF16.Size())
	if kv > float64(MaxFootprint) || ws > float64(MaxFootprint) {
		return fmt.Errorf("model %s at B = %d, L_in + L_out = %d: KV cache of about %.3g bytes and workspace of about %.3g: more than the %v any package could hold",
			m.ID, w.Batch, w.Prompt+w.Output, kv, ws, MaxFootprint)
	}
	return nil
}
