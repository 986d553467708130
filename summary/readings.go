package summary

import (
	"math"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// ReadingValue is one paper id computed under several readings of t_R: the
// paper reading's value is checked against the paper, the others' (id suffix
// ".physical", ...) reported beside it.
type ReadingValue struct {
	// ID is the paper id (without a reading's suffix); Unit its unit.
	ID, Unit string
	// Paper is the published value.
	Paper float64
	// Values are the simulated values by reading.
	Values map[dash.Reading]float64
	// Pass is the paper reading's verdict.
	Pass bool
}

// Fig9Bound is the bound argument that opens Fig. 9, computed from the
// parts under one reading of t_R: per stack, the NAND array's read rate,
// the TSV that fills the base-die SRAM and the GPU-bound routes (Direct,
// Relay: one usable link each); from them, the fastest each system can
// deliver HBF-resident experts, and the ceiling that puts on DASH's paired
// speedup over each baseline (replicated weights, prefill and fixed
// operator time only lower it).
type Fig9Bound struct {
	// Reading is the reading of t_R.
	Reading dash.Reading
	// Array is one stack's NAND read rate (+Inf: unbounded, the paper
	// reading); TSV the rate that fills its SRAM; Link one usable link.
	Array, TSV, Link unit.BytesPerSecond
	// Systems are the Fig. 9 configurations.
	Systems []SystemBound
	// WhatIf lists how the parts differ from the paper's (empty: the paper's parts).
	WhatIf WhatIf
}

// SystemBound is one system's expert-delivery ceiling.
type SystemBound struct {
	// System is the catalogue id.
	System string
	// Stacks is the number of HBF stacks; Routes the GPU-bound routes per
	// stack.
	Stacks, Routes int
	// PerStack is min(array, TSV, routes x link); Total PerStack x Stacks.
	PerStack, Total unit.BytesPerSecond
	// Binding names what sets PerStack: "array", "TSV" or "links".
	Binding string
}

// System returns the bound of a system (false when it is not in Systems).
func (b Fig9Bound) System(id string) (SystemBound, bool) {
	for _, s := range b.Systems {
		if s.System == id {
			return s, true
		}
	}
	return SystemBound{}, false
}

// Ceiling is the most DASH's paired throughput ratio over base can be:
// DASH's expert-delivery ceiling over the baseline's (NaN when either
// system is unknown).
func (b Fig9Bound) Ceiling(base string) float64 {
	d, okD := b.System("dash")
	x, okX := b.System(base)
	if !okD || !okX || x.Total <= 0 {
		return math.NaN()
	}
	return float64(d.Total) / float64(x.Total)
}
