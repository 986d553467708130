package dash

import (
	"fmt"
	"math"

	"github.com/dashlab/dashlab/dash/unit"
)

// Plausible ranges of the spec fields. They follow from physics and from
// what any package of the catalogue could hold, far outside every paper
// experiment and every shipped file, and they keep every derived quantity
// (page waves, capacities, token counts, KV bytes, simulated time) well
// inside int64. Validate enforces them with an error naming the field, its
// value and the range (a *RangeError). Each field's doc comment repeats its
// range.
const (
	// MaxPairs bounds topology.pairs (1..64 HBM-HBF stack pairs).
	MaxPairs = 64

	// MinStackCapacity and MaxStackCapacity bound hbm.capacity and
	// hbf.capacity (1 MB .. 1 PB per stack).
	MinStackCapacity = unit.MB
	MaxStackCapacity = 1000 * unit.TB

	// MinRate and MaxRate bound every data rate: link.usable,
	// hbm.array_bandwidth, hbf.tsv_bandwidth (1 GB/s .. 1 PB/s).
	MinRate = unit.GBps
	MaxRate = 1000 * unit.TBps

	// MinTRead bounds hbf.t_read from below (10 ns: a hundred times faster
	// than any NAND read, yet above a bare Go constant such as
	// nb.Knobs{TRead: 3}, which is 3 ns, not the 3 µs meant). MinLatency and
	// MaxLatency bound hbf.t_prog (1 ns .. 10 s: Fig. 12's reference row
	// programs in 1 ns, "no program latency") and t_read from above.
	MinTRead   = 10 * unit.Nanosecond
	MinLatency = unit.Nanosecond
	MaxLatency = 10 * unit.Second

	// MaxDies, MaxPlanesPerDie and MaxSubarraysPerPlane bound the NAND
	// organisation; MinPageSize and MaxPageSize the NAND page (512 B .. 1 MiB);
	// MaxPageWave the data one t_R senses across a stack (4 GiB).
	MaxDies              = 1024
	MaxPlanesPerDie      = 1024
	MaxSubarraysPerPlane = 64
	MinPageSize          = 512 * unit.Byte
	MaxPageSize          = unit.MiB
	MaxPageWave          = 4 * unit.GiB
	// MaxReadWavesInFlight bounds hbf.read_waves_in_flight (0, unbounded:
	// the paper reading; or 1..1024 waves a stack senses at once).
	MaxReadWavesInFlight = 1024

	// MaxSRAMRegions and MaxSRAMRegion bound a base-die SRAM (1..1024
	// regions of at most 4 GiB); a region holds at least one NAND page
	// (relay SRAM) or one page wave (HBF SRAM). MaxECCOverheadPct bounds
	// the check-bit overhead (0..100%).
	MaxSRAMRegions    = 1024
	MaxSRAMRegion     = 4 * unit.GiB
	MaxECCOverheadPct = 100

	// MaxLinkModules, MaxLanesPerModule and MaxGTPerSecond bound a UCIe link
	// (1..64 modules of 1..1024 lanes at up to 100,000 GT/s, which with the
	// paper's 256 lanes is the raw rate of a 1 PB/s usable link);
	// MaxEnergyPerBit bounds its energy (1 nJ/bit) and MaxModuleWidthMM the
	// module's edge width (100 mm).
	MaxLinkModules    = 64
	MaxLanesPerModule = 1024
	MaxGTPerSecond    = 100_000
	MaxEnergyPerBit   = 1e-9 * unit.JoulesPerBit(1)
	MaxModuleWidthMM  = 100

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
	// Hint, when set, says what a number without a unit means: a positive
	// duration, size or rate below its range is most often one (in Go,
	// unit.Duration(3) is 3 ns).
	Hint string
}

func (e *RangeError) Error() string {
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
// without a unit means in Go and how to write the unit; elsewhere it says
// nothing.
func unitHint[T int | unit.Bytes | unit.Duration | unit.BytesPerSecond | float64 | unit.JoulesPerBit](v, lo T) string {
	if v <= 0 || v >= lo {
		return ""
	}
	switch x := any(v).(type) {
	case unit.Duration:
		return fmt.Sprintf("a number without a unit is in ns: did you mean %v (%d * unit.Microsecond)?", x*unit.Microsecond, int64(x))
	case unit.Bytes:
		return "a number without a unit is in bytes: write the unit (4 * unit.KiB, 24 * unit.GB)"
	case unit.BytesPerSecond:
		return "a number without a unit is in B/s: write the unit (1.6 * unit.TBps)"
	}
	return ""
}

func (s SRAMSpec) limits(field string, minRegion unit.Bytes) []error {
	var errs []error
	errs = inRange(errs, field+".regions", s.Regions, 1, MaxSRAMRegions)
	errs = inRange(errs, field+".region_size", s.RegionSize, minRegion, MaxSRAMRegion)
	errs = inRange(errs, field+".ecc_overhead_pct", s.ECCOverheadPct, 0, MaxECCOverheadPct)
	return errs
}

func (h HBMSpec) limits() []error {
	var errs []error
	errs = inRange(errs, "hbm.capacity", h.Capacity, MinStackCapacity, MaxStackCapacity)
	errs = inRange(errs, "hbm.array_bandwidth", h.ArrayBandwidth, MinRate, MaxRate)
	return append(errs, h.RelaySRAM.limits("hbm.relay_sram", MinPageSize)...)
}

func (h HBFSpec) limits() []error {
	var errs []error
	errs = inRange(errs, "hbf.capacity", h.Capacity, MinStackCapacity, MaxStackCapacity)
	errs = inRange(errs, "hbf.dies", h.Dies, 1, MaxDies)
	errs = inRange(errs, "hbf.planes_per_die", h.PlanesPerDie, 1, MaxPlanesPerDie)
	errs = inRange(errs, "hbf.subarrays_per_plane", h.SubarraysPerPlane, 1, MaxSubarraysPerPlane)
	errs = inRange(errs, "hbf.page_size", h.PageSize, MinPageSize, MaxPageSize)
	errs = inRange(errs, "hbf.t_read", h.TRead, MinTRead, MaxLatency)
	errs = inRange(errs, "hbf.t_prog", h.TProg, MinLatency, MaxLatency)
	errs = inRange(errs, "hbf.tsv_bandwidth", h.TSVBandwidth, MinRate, MaxRate)
	errs = inRange(errs, "hbf.read_waves_in_flight", h.ReadWavesInFlight, ReadWavesUnbounded, MaxReadWavesInFlight)
	if len(errs) == 0 {
		// Every factor is bounded, so the product cannot wrap.
		errs = inRange(errs, "hbf page wave (dies x planes_per_die x subarrays_per_plane x page_size)", h.PageWave(), MinPageSize, MaxPageWave)
	}
	return append(errs, h.SRAM.limits("hbf.sram", MinPageSize)...)
}

func (l LinkSpec) limits() []error {
	var errs []error
	errs = inRange(errs, "link.modules", l.Modules, 1, MaxLinkModules)
	errs = inRange(errs, "link.lanes_per_module", l.LanesPerModule, 1, MaxLanesPerModule)
	errs = inRange(errs, "link.gt_per_second", l.GTPerSecond, math.SmallestNonzeroFloat64, MaxGTPerSecond)
	errs = inRange(errs, "link.usable", l.Usable, MinRate, MaxRate)
	errs = inRange(errs, "link.energy_low", l.EnergyLow, 0, MaxEnergyPerBit)
	errs = inRange(errs, "link.energy_high", l.EnergyHigh, 0, MaxEnergyPerBit)
	errs = inRange(errs, "link.module_width_mm", l.ModuleWidthMM, 0, MaxModuleWidthMM)
	return errs
}

func (w WorkloadSpec) limits() []error {
	var errs []error
	errs = inRange(errs, "workload.batch", w.Batch, 1, MaxBatch)
	errs = inRange(errs, "workload.prompt", w.Prompt, 1, MaxTokens)
	errs = inRange(errs, "workload.output", w.Output, 1, MaxTokens)
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
