package summary

// PairedCase is DASH against a baseline on one model and workload: the ratios DASH /
// baseline of decode throughput and of E2E latency.
type PairedCase struct {
	// Case is DASH's case (System "dash").
	Case Case
	// Throughput and E2E are the paired ratios (see PairedRatio).
	Throughput, E2E float64
}

// E2EReductionPct is DASH's E2E reduction over the baseline on this case, in percent.
func (c PairedCase) E2EReductionPct() float64 { return 100 * (1 - c.E2E) }

// Paired is DASH against one baseline over the cases of a sweep where both have a
// result: the paired ratios and their geometric means.
type Paired struct {
	// Baseline is the baseline's system id ("relay-only").
	Baseline string
	// Cases has one entry per DASH case with both results, in sweep order.
	Cases []PairedCase
	// Missing lists the DASH cases left out because DASH or the baseline has no result.
	Missing []Case
	// ThroughputSpeedupGeomean is the geometric mean of the throughput ratios.
	ThroughputSpeedupGeomean float64
	// E2EReductionPct is 100 x (1 - the geometric mean of the E2E ratios).
	E2EReductionPct float64
}

// Of returns the paired ratios of a model and workload.
func (p Paired) Of(model string, batch, prompt, output int) (PairedCase, bool) {
	want := Case{Model: model, System: "dash", Batch: batch, Prompt: prompt, Output: output}
	for _, c := range p.Cases {
		if c.Case.Same(want) {
			return c, true
		}
	}
	return PairedCase{}, false
}

// Fig9Result holds the sweeps behind Fig. 9 under one reading of t_R, with their
// summaries.
type Fig9Result struct {
	// A is Fig. 9(a): 1K/128, B in {1, 4, 16, 64}, with §I's B = 4 comparison.
	A Fig9
	// B is Fig. 9(b): B = 1 over the paper's lengths.
	B Fig9
}

// Fig9 is the harness summary of a Fig. 9 sweep: its points and DASH's paired ratios
// and geomeans against each baseline.
type Fig9 struct {
	// Points are the sweep's simulations, in sweep order.
	Points []Point
	// Paired has DASH against each baseline present (RelayOnly, then DirectOnly).
	Paired []Paired
	// B4 is §I's comparison with RelayOnly at B = 4 (nil when the sweep has no B = 4).
	B4 *Paired
	// WhatIf lists how the sweep differs from the paper's Fig. 9(a) or 9(b): its points'
	// parts and switches, its models, batch sizes and lengths. Empty, the geomeans are
	// checked against the paper's; otherwise they are a what-if.
	WhatIf WhatIf
	// Rows are the paper's numbers the sweep computes (the panel's geomeans, and §I's
	// B = 4 comparison for Fig. 9(a)), judged; what-ifs when WhatIf lists changes.
	Rows []Row
}

// Against returns DASH's comparison with a baseline.
func (f Fig9) Against(baseline string) (Paired, bool) {
	for _, p := range f.Paired {
		if p.Baseline == baseline {
			return p, true
		}
	}
	return Paired{}, false
}

// OverheadRow says, for one (model, B) pair of Fig. 9(a), where the E2E
// reduction comes from and why it sits below the throughput gain: the
// prefill's share of E2E (compute-bound and alike in every system), DASH's
// decode speedup over RelayOnly, and the share of a decode step's GPU time
// that no memory path shortens (operator compute plus the fixed part of
// each operator's measured latency).
type OverheadRow struct {
	// Model is the catalogue id; Batch is B.
	Model string
	Batch int
	// PrefillShareDASH and PrefillShareRelay are TTFT / E2E of each system.
	PrefillShareDASH, PrefillShareRelay float64
	// DecodeSpeedup is DASH's decode throughput over RelayOnly's.
	DecodeSpeedup float64
	// E2EReductionPct is 100 x (1 - DASH's E2E / RelayOnly's).
	E2EReductionPct float64
	// FixedShareDASH and FixedShareRelay are the decode phase's operator
	// compute plus fixed overhead over its GPU time, in each system.
	FixedShareDASH, FixedShareRelay float64
}
