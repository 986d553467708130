package reproduce

import (
	"math"
	"sort"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// Every verdict of dashlab is made here: a simulated value against the paper's number
// of its id in reference/paper.yaml, by reference.PaperEntry.Passes. The rows of Run,
// and the rows every summary carries for its figure (SummariseFig9, LookaheadStudy,
// Fig12Study, ...), are made by entryRow and judge; the charts, the CLI and the
// notebooks show the verdicts and never make one.

// entryRow is the row of a paper entry with no simulated value yet.
func entryRow(e reference.PaperEntry) summary.Row {
	r := summary.Row{ID: e.ID, Unit: e.Unit, Section: e.Section, Paper: e.Value, Tolerance: e.AbsTolerance(), Note: e.Note,
		SimulatedOnly: e.SimulatedOnly}
	if e.AtMost > 0 {
		bound := e.AtMost
		r.AtMost = &bound
	}
	return r
}

// setSimulated records a simulated value in a row of entry e and judges it.
func setSimulated(r *summary.Row, e reference.PaperEntry, x float64) {
	if e.SimulatedOnly { // nothing to judge it by
		sim := x
		r.Simulated = &sim
		return
	}
	sim, dev, pass := x, x-e.Value, e.Passes(x)
	r.Simulated, r.Deviation, r.Pass = &sim, &dev, &pass
}

// judge is the row of a paper id under a reading of t_R with a simulated value (NaN:
// not simulated): under the paper reading it is checked against the paper's number;
// under another reading it is reported beside it (id suffix ReadingSuffix, not
// checked); when w lists changes it is a what-if, shown and not judged. It fails only
// for an id paper.yaml lacks.
func judge(id string, r dash.Reading, simulated float64, w summary.WhatIf) (summary.Row, error) {
	e, err := reference.PaperValue(id)
	if err != nil {
		return summary.Row{}, err
	}
	row := entryRow(e)
	if math.IsNaN(simulated) {
		return row, nil
	}
	setSimulated(&row, e, simulated)
	if r != dash.ReadingPaper {
		row.ID, row.Reading, row.Within, row.Pass = id+ReadingSuffix(r), r.String(), row.Pass, nil
	}
	if w.Any() {
		row.WhatIf, row.Pass, row.Within = true, nil, nil
	}
	return row, nil
}

// Variants are the id suffixes (after a reading's) of values reported beside a
// checked one that differ from it by something other than the reading of t_R:
// Fig. 10 on the measured host, Fig. 12's write stalls under each NAND program model.
var Variants = []string{VariantMeasuredHost, "program_stack", "program_planes", "program_suspend"}

// VariantMeasuredHost is Fig. 10 on the host the offload primitives were measured on
// (the checked values use the paper's Xeon, derived from it).
const VariantMeasuredHost = "vm_host"

// judgeVariant is judge's row for a variant of id (reported beside the checked row).
func judgeVariant(id string, r dash.Reading, variant string, simulated float64, w summary.WhatIf) (summary.Row, error) {
	row, err := judge(id, r, simulated, w)
	if err != nil || variant == "" {
		return row, err
	}
	if row.Pass != nil {
		row.Within = row.Pass
	}
	row.ID, row.Reading, row.Variant, row.Pass = row.ID+"."+variant, r.String(), variant, nil
	return row, nil
}

// splitVariant splits a group's id into the paper id, the reading its suffix names
// and the variant (Variants) its last suffix names, "" for none.
func splitVariant(id string) (string, dash.Reading, string) {
	for _, v := range Variants {
		if sfx := "." + v; strings.HasSuffix(id, sfx) && len(id) > len(sfx) {
			base, r := splitReading(strings.TrimSuffix(id, sfx))
			return base, r, v
		}
	}
	base, r := splitReading(id)
	return base, r, ""
}

// judgeAll judges values (ids with a reading's suffix, as a group computes them), in id
// order; ids paper.yaml lacks are left out.
func judgeAll(v values, w summary.WhatIf) []summary.Row {
	ids := make([]string, 0, len(v.v))
	for id := range v.v {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []summary.Row
	for _, id := range ids {
		base, r, variant := splitVariant(id)
		row, err := judgeVariant(base, r, variant, v.v[id], w)
		if err != nil {
			continue
		}
		row.Detail = v.detail[id]
		out = append(out, row)
	}
	return out
}

// splitReading splits a group's id into the paper id and the reading its suffix names.
func splitReading(id string) (string, dash.Reading) {
	for _, r := range dash.Readings() {
		if sfx := ReadingSuffix(r); sfx != "" && len(id) > len(sfx) && id[len(id)-len(sfx):] == sfx {
			return id[:len(id)-len(sfx)], r
		}
	}
	return id, dash.ReadingPaper
}
