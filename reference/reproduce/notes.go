package reproduce

import (
	"fmt"
	"math"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// ArrayBoundNote says, from the paper's parts and one engine run, what bounds
// the simulated Fig. 9 speedups (of the paper's parts).
func ArrayBoundNote() (string, error) { return arrayBoundNoteOf(nil) }

// arrayBoundNoteOf says, from the parts knobs make of the paper's (a notebook's
// knobs; none for the paper's) and one engine run on them, what
// bounds the simulated Fig. 9 speedups under each reading of t_R (BoundNote),
// and which share of a decode step no memory path shortens. Every number in it
// is computed from the system simulated.
func arrayBoundNoteOf(knobs []dash.Setting) (string, error) {
	phys, err := ComputeFig9BoundOf(dash.ReadingPhysical, knobs)
	if err != nil {
		return "", err
	}
	pap, err := ComputeFig9BoundOf(dash.ReadingPaper, knobs)
	if err != nil {
		return "", err
	}
	// The share of a DASH decode step that no memory path shortens: the
	// operators' compute and fixed overhead (launch, pipeline fill, tail).
	c := Fig9Case("qwen3-235b-a22b", "dash", 4, 1024, 17, dash.ReadingPaper)
	c.Knobs = withKnobs(knobs, c.Knobs) // as Fig9Grid: the case's own switches last
	exp, err := Build(c)
	if err != nil {
		return "", err
	}
	res, err := sim.Run(exp)
	if err != nil {
		return "", err
	}
	return BoundNote(phys, pap) + fmt.Sprintf(" Under both, a fixed share of every decode step does not shrink: in a DASH decode step of Qwen3-235B-A22B at B = 4 (paper reading), %.0f%% of the GPU time is operator compute "+
		"and fixed overhead (launch, pipeline fill and tail, measured on the profiled GPU), and prefill is compute-bound and alike in every system. "+
		"execution.launch_only_overhead bounds the overhead's effect from below (notebook 05).", 100*fixedShare(res)), nil
}

// BoundNote says, from the bounds of the parts under the physical and the paper
// reading (ComputeFig9BoundOf), what bounds DASH's Fig. 9 speedups, and how that
// compares with the paper's geomean over DirectOnly. It is computed from the parts
// the bounds were computed for (named when they are a what-if), never from the
// paper's.
func BoundNote(phys, pap summary.Fig9Bound) string {
	var b strings.Builder
	b.WriteString("What bounds the simulated Fig. 9 speedups")
	if w := phys.WhatIf.Add(pap.WhatIf...); w.Any() {
		fmt.Fprintf(&b, " (parts changed, %s)", w)
	}
	pd, _ := phys.System("dash")
	px, _ := phys.System("direct-only")
	drain := float64(pd.Routes) * phys.Link.TBps()
	than := "less than"
	switch {
	case phys.Array.TBps() > drain:
		than = "more than"
	case phys.Array.TBps() == drain:
		than = "as much as"
	}
	routes := "its route drains"
	if pd.Routes != 1 {
		routes = fmt.Sprintf("its %d routes drain together", pd.Routes)
	}
	ceiling := phys.Ceiling("direct-only")
	fmt.Fprintf(&b, ". Under the physical reading of t_R (the stated part: one page wave per t_R per stack) a stack's array senses %.2f TB/s, %s %s (%.2f TB/s): "+
		"DASH's experts arrive at most at %.2f TB/s (%s-bound) against %.2f TB/s for DirectOnly (%s-bound), so no paired speedup over DirectOnly can exceed %.2fx",
		phys.Array.TBps(), than, routes, drain, pd.Total.TBps(), pd.Binding, px.Total.TBps(), px.Binding, ceiling)
	if e, err := reference.PaperValue("fig9a.throughput_speedup_geomean.vs_direct_only"); err == nil && !math.IsNaN(ceiling) {
		if ceiling < e.Value {
			fmt.Fprintf(&b, ", below the paper's own %.2fx geomean: with these parts the paper's Fig. 9 is possible only under the paper reading (t_R a readiness latency)", e.Value)
		} else {
			fmt.Fprintf(&b, ", at least the paper's %.2fx geomean, so with these parts the array does not rule it out", e.Value)
		}
	}
	qd, _ := pap.System("dash")
	fmt.Fprintf(&b, ". Under the paper reading the array never binds and DASH's ceiling is %.2f TB/s (%s-bound): %.2fx RelayOnly, %.2fx DirectOnly.",
		qd.Total.TBps(), qd.Binding, pap.Ceiling("relay-only"), pap.Ceiling("direct-only"))
	return b.String()
}
