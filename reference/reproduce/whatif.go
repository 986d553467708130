package reproduce

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// CaseChanges lists how the experiment built for a case differs from the
// paper's experiment of that case: the memory system's parts against the
// named system (reference.System) under the case's reading, the execution
// switches against the defaults (lookahead excepted: it is a figure's own
// design, on for DASH in Fig. 9, both ways in Fig. 11), the routing against
// balanced, the GPU against the paper's, and the model and workload against
// the case's. Sweep records them in each point (summary.Point.WhatIf).
func CaseChanges(c summary.Case, exp dash.Experiment) summary.WhatIf {
	var w summary.WhatIf
	if ref, err := reference.System(c.System); err == nil {
		if ref, err = dash.NewExperiment().System(ref).Reading(c.Reading).ResolvedSystem(); err == nil {
			w = w.Add(dash.DiffSystems(ref, exp.System())...)
		}
	}
	x := exp.Execution()
	w = w.Add(dash.DiffExecution(dash.ExecutionSpec{Lookahead: x.Lookahead}, x)...)
	wl := exp.Workload()
	w = w.Add(dash.DiffRouting(dash.RoutingSpec{}, wl.Routing)...)
	if t := exp.Timing(); t != nil && t.GPU().ID != reference.DefaultGPU {
		w = w.Add(dash.Change{Field: "gpu", From: reference.DefaultGPU, To: t.GPU().ID})
	}
	m := exp.Model()
	if m.ID != c.Model {
		w = w.Add(dash.Change{Field: "model", From: c.Model, To: m.ID})
	} else if ref, err := reference.Model(c.Model); err == nil && !reflect.DeepEqual(ref, m) {
		w = w.Add(dash.Change{Field: "model", From: c.Model, To: c.Model + " (changed)"})
	}
	for _, f := range []struct {
		name      string
		want, got int
	}{{"workload.batch", c.Batch, wl.Batch}, {"workload.prompt", c.Prompt, wl.Prompt}, {"workload.output", c.Output, wl.Output}} {
		if f.want != f.got {
			w = w.Add(dash.Change{Field: f.name, From: fmt.Sprint(f.want), To: fmt.Sprint(f.got)})
		}
	}
	return w
}

// fig9Design lists how a Fig. 9 sweep's design differs from the paper's:
// its reading of t_R (the paper reading is the one checked), its models, and either Fig. 9(a)'s batch sizes and 1K/128 lengths or
// Fig. 9(b)'s B = 1 lengths (a sweep at B = 1 over several lengths is read
// as a Fig. 9(b)).
func fig9Design(points []summary.Point) summary.WhatIf {
	var models, lengths []string
	var batches []int
	for _, p := range points {
		if !slices.Contains(models, p.Model) {
			models = append(models, p.Model)
		}
		if !slices.Contains(batches, p.Batch) {
			batches = append(batches, p.Batch)
		}
		if l := lengthsLabel(p.Prompt, p.Output); !slices.Contains(lengths, l) {
			lengths = append(lengths, l)
		}
	}
	var w summary.WhatIf
	for _, p := range points {
		if p.Reading != dash.ReadingPaper { // the reading the paper's numbers are checked under
			w = w.Add(dash.Change{Field: "reading", From: dash.ReadingPaper.String(), To: p.Reading.String()})
		}
	}
	if !sameSet(models, reference.Fig9ModelIDs) {
		w = w.Add(dash.Change{Field: "models", From: listLabel(reference.Fig9ModelIDs), To: listLabel(models)})
	}
	if len(batches) == 1 && batches[0] == 1 && len(lengths) > 1 {
		// Fig. 9(b): the paper's lengths within the context window of each model.
		var want []string
		for _, w := range fig9bWorkloads {
			want = append(want, lengthsLabel(w.Prompt, w.Output))
		}
		if !sameSet(lengths, want) && !subsetOutsideContext(points, lengths, want) {
			w = w.Add(dash.Change{Field: "L_in/L_out", From: strings.Join(want, ", "), To: strings.Join(lengths, ", ")})
		}
		return w
	}
	var bs []string
	for _, b := range batches {
		bs = append(bs, fmt.Sprint(b))
	}
	var want []string
	for _, b := range Fig9aBatches {
		want = append(want, fmt.Sprint(b))
	}
	if !sameSet(bs, want) {
		w = w.Add(dash.Change{Field: "B", From: strings.Join(want, ", "), To: strings.Join(bs, ", ")})
	}
	if a := lengthsLabel(1024, 128); len(lengths) != 1 || lengths[0] != a {
		w = w.Add(dash.Change{Field: "L_in/L_out", From: a, To: strings.Join(lengths, ", ")})
	}
	return w
}

// subsetOutsideContext reports whether the paper's lengths missing from a
// sweep are only those no model of it can run (beyond every context window).
func subsetOutsideContext(points []summary.Point, got, want []string) bool {
	for _, g := range got {
		if !slices.Contains(want, g) {
			return false
		}
	}
	for _, w := range fig9bWorkloads {
		if slices.Contains(got, lengthsLabel(w.Prompt, w.Output)) {
			continue
		}
		for _, p := range points {
			if m, err := reference.Model(p.Model); err == nil && (m.MaxContext == 0 || w.Prompt+w.Output <= m.MaxContext) {
				return false
			}
		}
	}
	return true
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// listLabel writes a list of ids, or its length when it is long.
func listLabel(ids []string) string {
	if len(ids) <= 2 {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprint(len(ids))
}

// lengthsLabel writes L_in/L_out the paper's way (summary.LengthLabel): 1K/128,
// 20K/20K, 4K/1M.
func lengthsLabel(prompt, output int) string {
	return summary.LengthLabel(prompt) + "/" + summary.LengthLabel(output)
}

// fig11Design lists how a lookahead study's design differs from the paper's
// Fig. 11: DASH at B/L_in/L_out = 1/4K/128 under the paper reading (early
// delivery, when on, is listed by CaseChanges as an execution switch).
func fig11Design(setup summary.LookaheadSetup, system string, batch, prompt, output int) summary.WhatIf {
	var w summary.WhatIf
	if system != "dash" {
		w = w.Add(dash.Change{Field: "system", From: "dash", To: system})
	}
	if batch != 1 || prompt != 4096 || output != 128 {
		w = w.Add(dash.Change{Field: "B/L_in/L_out", From: "1/" + lengthsLabel(4096, 128), To: fmt.Sprint(batch) + "/" + lengthsLabel(prompt, output)})
	}
	if setup.Reading != dash.ReadingPaper {
		w = w.Add(dash.Change{Field: "reading", From: dash.ReadingPaper.String(), To: setup.Reading.String()})
	}
	return w
}

// Fig12Changes lists how a run differs from the paper's Fig. 12 run, Llama 4
// Maverick at B/L_in/L_out = 1/4K/1M on DASH: the case's changes
// (CaseChanges) and its model, system and workload against the study's (both
// readings of t_R are the study's).
func Fig12Changes(c summary.Case, exp dash.Experiment) summary.WhatIf {
	w := CaseChanges(c, exp)
	if c.Model != Fig12Model {
		w = w.Add(dash.Change{Field: "model", From: Fig12Model, To: c.Model})
	}
	if c.System != "dash" {
		w = w.Add(dash.Change{Field: "system", From: "dash", To: c.System})
	}
	p := fig12Workload
	if c.Batch != 1 || c.Prompt != p.Prompt || c.Output != p.Output {
		w = w.Add(dash.Change{Field: "B/L_in/L_out", From: "1/" + lengthsLabel(p.Prompt, p.Output), To: fmt.Sprint(c.Batch) + "/" + lengthsLabel(c.Prompt, c.Output)})
	}
	return w
}
