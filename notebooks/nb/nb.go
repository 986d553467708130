// Package nb is what the dashlab notebooks share: the display helpers (Library, Show,
// ShowFig, MD, Must, through GoNB's gonbui), knobs by path from dash's knob table
// (Knobs, Set, With, Help), parallel sweeps of catalogue experiments (Grid, LengthGrid, Sweep) whose points
// carry their own case, and traced runs. A notebook's setup is its imports:
//
//	import (
//		"github.com/dashlab/dashlab/charts"
//		"github.com/dashlab/dashlab/notebooks/nb"
//	)
//
// Notebooks read numbers from the harness's summaries (reproduce.SummariseFig9, the
// lookahead pairs, ...), never from rendered figures.
package nb

import (
	"fmt"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/internal/pool"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/reference/reproduce"
	"github.com/dashlab/dashlab/summary"
)

// Grid returns the cases of every model x system x batch at one prompt/output length.
func Grid(models, systems []string, batches []int, prompt, output int, knobs []dash.Setting) []summary.Case {
	var out []summary.Case
	for _, m := range models {
		for _, b := range batches {
			for _, s := range systems {
				out = append(out, summary.Case{Model: m, System: s, Batch: b, Prompt: prompt, Output: output, Knobs: knobs})
			}
		}
	}
	return out
}

// Workload is one prompt/output length pair.
type Workload struct{ Prompt, Output int }

// LengthGrid returns the B = batch cases of every model x workload x system, leaving out
// workloads beyond a model's context window (as the paper does).
func LengthGrid(models, systems []string, batch int, workloads []Workload, knobs []dash.Setting) []summary.Case {
	var out []summary.Case
	for _, m := range models {
		spec, err := reference.Model(m)
		for _, w := range workloads {
			if err == nil && spec.MaxContext > 0 && w.Prompt+w.Output > spec.MaxContext {
				continue
			}
			for _, s := range systems {
				out = append(out, summary.Case{Model: m, System: s, Batch: batch, Prompt: w.Prompt, Output: w.Output, Knobs: knobs})
			}
		}
	}
	return out
}

// Sweep runs the cases on one goroutine per CPU and returns their points in order,
// in the form the reproduce package gives its own sweeps (so that the charts package's
// Fig9a and Fig9b draw them). A case that does not fit its memory system has Fits false
// and the planner's message in Err; Err returns the errors of cases that fit but failed.
// A sweep that runs over a second shows its progress in the cell (Progress).
func Sweep(cases []summary.Case) []summary.Point { return SweepNamed("sweep", cases) }

// SweepNamed is Sweep with the progress line labelled ("Fig. 9(b)"). It runs on the
// harness's worker pool (one simulation per goroutine, reproduce.RunCase each), naming
// each case as it starts.
func SweepNamed(label string, cases []summary.Case) []summary.Point {
	p := NewProgress(label, len(cases), "simulations")
	defer p.Finish()
	return pool.Map(len(cases), pool.Options{}, func(i int) summary.Point {
		c := cases[i]
		p.Start(fmt.Sprintf("%s on %s, B = %d, %d/%d", c.Model, c.System, c.Batch, c.Prompt, c.Output))
		defer p.Step(1)
		return reproduce.RunCase(c)
	})
}

// Err joins the errors of points that fit their memory system but failed.
func Err(points []summary.Point) error { return summary.SweepErr(points) }

// Find returns the point of a model, system, batch and lengths with a result.
func Find(points []summary.Point, model, system string, batch, prompt, output int) (summary.Point, bool) {
	return summary.Find(points, model, system, batch, prompt, output)
}

// Build builds the experiment of a case (its knobs applied).
func Build(c summary.Case) (dash.Experiment, error) { return reproduce.Build(c) }

// Trace runs a case with one traced layer (pass 0 is the prefill, pass i the i-th decode
// step) and names the result after its system (charts.SystemName) for the charts, with
// how it differs from the paper's experiment (reproduce.CaseChanges), which the charts
// print.
func Trace(c summary.Case, pass, layer int) (charts.NamedResult, error) {
	c.Sim.Trace = &sim.TraceSpec{Pass: pass, Layer: layer}
	return Run(c)
}

// Run runs a case and names the result after its system (charts.SystemName), with how it
// differs from the paper's experiment (reproduce.CaseChanges), which the charts print.
func Run(c summary.Case) (charts.NamedResult, error) {
	exp, err := Build(c)
	if err != nil {
		return charts.NamedResult{}, err
	}
	r, err := sim.RunWith(exp, c.Sim)
	if err != nil {
		return charts.NamedResult{}, err
	}
	return charts.NamedResult{Name: charts.SystemName(c.System), Result: r, WhatIf: reproduce.CaseChanges(c, exp), ModelName: exp.Model().Name}, nil
}
