package summary

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
)

// Case names one simulation of a sweep: a catalogue model on a named system at a
// fixed-batch workload, with knobs set (a different t_R, execution switches, ...). It is
// data, as a sweep point is: it encodes to JSON and back to the same experiment, so a
// list of cases can be stored, resumed or sharded.
type Case struct {
	// Model and System are catalogue ids.
	Model  string `json:"model"`
	System string `json:"system"`
	// Batch, Prompt and Output are B, L_in and L_out.
	Batch  int `json:"batch"`
	Prompt int `json:"prompt_tokens"`
	Output int `json:"output_tokens"`
	// Reading is the reading of t_R applied to the system (dash.ReadingPaper lifts the
	// array's rate limit, dash.ReadingPhysical is the stated part); the zero value,
	// dash.ReadingSystem, keeps the system's own hbf.read_waves_in_flight.
	Reading dash.Reading `json:"reading,omitzero"`
	// Knobs are set on the experiment, in order, after the reading (dash's knob table:
	// hbf.t_read=10us, execution.lookahead=true, ...).
	Knobs []dash.Setting `json:"knobs,omitempty"`
	// Sim are the simulation options (a sampled long decode, say).
	Sim sim.Options `json:"sim,omitzero"`
}

// String names the case: "qwen3-235b-a22b/dash B=4 1024/128".
func (c Case) String() string {
	return fmt.Sprintf("%s/%s B=%d %d/%d", c.Model, c.System, c.Batch, c.Prompt, c.Output)
}

// Same reports whether c names the same model, system and workload as o (Reading and
// Knobs are not compared: a sweep runs under one reading).
func (c Case) Same(o Case) bool {
	return c.Model == o.Model && c.System == o.System && c.Batch == o.Batch && c.Prompt == o.Prompt && c.Output == o.Output
}

// Point is one simulation of a sweep: its case and its outcome. The case's fields
// (Model, System, Batch, ...) are promoted.
type Point struct {
	Case
	// Result is valid when Err is nil.
	Result sim.Result
	// Err is why there is no result: a *dash.CapacityError when the experiment does not
	// fit its memory system (see Fits), any other error when it failed.
	Err error
	// WhatIf lists how the experiment built differs from the paper's for its case
	// (reproduce.CaseChanges): empty for the paper's parts and switches.
	WhatIf WhatIf
}

// OK reports whether the point has a result.
func (p Point) OK() bool { return p.Err == nil }

// Fits reports whether the experiment fits its memory system: false only for a
// *dash.CapacityError. A point that fits may still have failed (Err non-nil).
func (p Point) Fits() bool {
	var ce *dash.CapacityError
	return !errors.As(p.Err, &ce)
}

// Failed reports whether the point fits its memory system but has no result: an error
// to report, unlike a capacity refusal.
func (p Point) Failed() bool { return p.Err != nil && p.Fits() }

// SweepErr joins the errors of the points that fit their memory system but failed
// (points that do not fit are reported by Fits, not as errors). Points failing with
// the same message are reported once, with their count and the first few cases (a
// refused knob fails every case of a sweep alike).
func SweepErr(points []Point) error {
	var order []string
	cases := map[string][]string{}
	first := map[string]error{}
	for _, p := range points {
		if !p.Failed() {
			continue
		}
		msg := p.Err.Error()
		if _, ok := first[msg]; !ok {
			order = append(order, msg)
			first[msg] = p.Err
		}
		cases[msg] = append(cases[msg], p.Model+"/"+p.System)
	}
	var errs []error
	for _, msg := range order {
		cs := cases[msg]
		if len(cs) == 1 {
			errs = append(errs, fmt.Errorf("%s: %w", cs[0], first[msg]))
			continue
		}
		shown := strings.Join(cs[:min(3, len(cs))], ", ")
		if len(cs) > 3 {
			shown += ", ..."
		}
		errs = append(errs, fmt.Errorf("%d cases (%s): %w", len(cs), shown, first[msg]))
	}
	return errors.Join(errs...)
}

// Find returns the point of a model, system, batch and lengths, and whether it has a
// result.
func Find(points []Point, model, system string, batch, prompt, output int) (Point, bool) {
	want := Case{Model: model, System: system, Batch: batch, Prompt: prompt, Output: output}
	for _, p := range points {
		if p.Case.Same(want) {
			return p, p.OK()
		}
	}
	return Point{}, false
}
