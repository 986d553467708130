package reproduce

import (
	"fmt"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/internal/pool"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// Sweep runs the cases on workers goroutines (0: GOMAXPROCS), one simulation each
// (RunCase), and returns the points in the order of the cases. A case that does not
// fit its system, or fails, has its reason in Point.Err (a *dash.CapacityError for the
// former).
func Sweep(cases []summary.Case, workers int) []summary.Point { return sweepWith(cases, workers, nil) }

// sweepWith is Sweep that reports progress (done of total simulations) before the first
// starts and as each ends, from one goroutine at a time; progress may be nil.
func sweepWith(cases []summary.Case, workers int, progress func(done, total int)) []summary.Point {
	return pool.Map(len(cases), pool.Options{Workers: workers, Completed: progress}, func(i int) summary.Point { return RunCase(cases[i]) })
}

// Build builds the experiment of a case: the catalogue model on the named system with
// the paper's GPU, the case's workload and reading, then its knobs.
func Build(c summary.Case) (dash.Experiment, error) {
	return reference.Experiment(c.Model, c.System).Batch(c.Batch).Prompt(c.Prompt).Output(c.Output).Reading(c.Reading).With(c.Knobs...).Build()
}

// knob is the setting of a knob to a typed value (dash.SettingOf); a value the knob
// cannot take is kept as its text, for Build to refuse with the path and the value.
func knob(path string, v any) dash.Setting {
	s, err := dash.SettingOf(path, v)
	if err != nil {
		return dash.Setting{Path: path, Value: fmt.Sprint(v)}
	}
	return s
}

// RunCase builds and runs one case: its point, with how the experiment differs from the
// paper's (CaseChanges) and the result or the reason there is none.
func RunCase(c summary.Case) summary.Point {
	p := summary.Point{Case: c}
	exp, err := Build(c)
	if err != nil {
		p.Err = err
		return p
	}
	p.WhatIf = CaseChanges(c, exp)
	p.Result, p.Err = sim.RunWith(exp, c.Sim)
	return p
}

// misfits describes the points whose experiment does not fit its system.
func misfits(points []summary.Point) string {
	seen := map[string]bool{}
	var out []string
	for _, p := range points {
		if p.Fits() || seen[p.Model+p.System] {
			continue
		}
		seen[p.Model+p.System] = true
		out = append(out, p.Model+" on "+p.System)
	}
	if len(out) == 0 {
		return ""
	}
	return "; does not fit (not simulated): " + strings.Join(out, ", ")
}
