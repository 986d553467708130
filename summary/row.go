package summary

import (
	"strings"

	"github.com/dashlab/dashlab/dash"
)

// Row compares one paper number with the engine.
type Row struct {
	// ID is the paper entry's id.
	ID string `json:"id"`
	// Unit is its unit.
	Unit string `json:"unit"`
	// Section is where the paper states it.
	Section string `json:"section"`
	// Paper is the published value.
	Paper float64 `json:"paper"`
	// Simulated is nil when no part of the engine simulates this id yet.
	Simulated *float64 `json:"simulated"`
	// Deviation is Simulated - Paper (nil when not simulated).
	Deviation *float64 `json:"deviation"`
	// Tolerance is the allowed absolute deviation.
	Tolerance float64 `json:"tolerance"`
	// AtMost, for a bound (paper.yaml's at_most), is the largest simulated value that
	// passes, whatever its distance from Paper (then shown for reference); nil for a
	// match within Tolerance.
	AtMost *float64 `json:"at_most,omitempty"`
	// Pass is nil when not simulated, and for values reported beside a checked one
	// without being checked (the physical reading).
	Pass *bool `json:"pass"`
	// Within, for a row reported beside a checked one (another reading of t_R, a
	// variant), says whether its value lies within the paper's tolerance, as the
	// judge would find it were it checked: what the tally of passes per reading
	// counts (ReadingTally). Nil for checked rows and what-ifs.
	Within *bool `json:"within,omitempty"`
	// Reading is the reading of the HBF read latency t_R the value was computed under,
	// for ids computed under both: "paper" (checked) or "physical" (id suffix
	// ".physical", reported, not checked).
	Reading string `json:"reading,omitempty"`
	// Variant, for a value reported beside a checked one that differs from it
	// by something other than the reading of t_R, names what ("vm_host": Fig. 10
	// on the measured host; "program_stack", "program_planes", "program_suspend":
	// Fig. 12's stalls under a NAND program model). The id carries it as its
	// last suffix (".vm_host"); Reading is then the reading it was computed under.
	Variant string `json:"variant,omitempty"`
	// Note is the paper entry's note.
	Note string `json:"note,omitempty"`
	// Detail says how the simulated value was obtained and, for a miss, the likely cause.
	Detail string `json:"detail,omitempty"`
	// WhatIf marks a value of an experiment that is not the paper's (its summary's
	// WhatIf lists changes): shown beside the paper's number, not judged by it (Pass nil).
	WhatIf bool `json:"what_if,omitempty"`
	// SimulatedOnly marks a number beyond the paper, which publishes none
	// (paper.yaml's simulated_only): Paper, Deviation and Pass are unset.
	SimulatedOnly bool `json:"simulated_only,omitempty"`
	// Metric says in words what a figure's row compares ("smallest checkpoint
	// (Grok-1)"): a label the figure sets for its table, not part of the harness's output.
	Metric string `json:"-"`
}

// Beside reports whether the row is reported beside a checked row of the same
// paper id (another reading of t_R, or a variant) rather than being that row.
func (r Row) Beside() bool {
	return r.Variant != "" || (r.Reading != "" && r.Reading != dash.ReadingPaper.String())
}

// BaseID is the paper id a row reports: its id less the variant's and a
// reported reading's suffixes.
func (r Row) BaseID() string {
	id := r.ID
	if r.Variant != "" {
		id = strings.TrimSuffix(id, "."+r.Variant)
	}
	if r.Reading != "" && r.Reading != dash.ReadingPaper.String() {
		id = strings.TrimSuffix(id, "."+r.Reading)
	}
	return id
}

// Label names what a reported row differs by: its variant, else its reading
// ("serial", "vm_host"), empty for a checked row.
func (r Row) Label() string {
	if !r.Beside() {
		return ""
	}
	if r.Variant != "" {
		return r.Variant
	}
	return r.Reading
}

// Status is the row's verdict, as the harness gave it: not simulated (no value),
// what-if (not the paper's experiment), reported (a value beside a checked one, not
// checked itself), pass or FAIL.
func (r Row) Status() Status {
	switch {
	case r.Simulated == nil:
		return StatusNotSimulated
	case r.SimulatedOnly:
		return StatusSimulated
	case r.WhatIf:
		return StatusWhatIf
	case r.Pass == nil:
		return StatusReported
	case *r.Pass:
		return StatusPass
	}
	return StatusFail
}

// Tally counts rows by status.
func Tally(rows []Row) map[Status]int {
	out := map[Status]int{}
	for _, r := range rows {
		out[r.Status()]++
	}
	return out
}

// RowByID returns the row of a paper id (false when rows has none).
func RowByID(rows []Row, id string) (Row, bool) {
	for _, r := range rows {
		if r.ID == id {
			return r, true
		}
	}
	return Row{}, false
}

// Count counts simulated (checked), passing and not-yet-simulated rows; rows reported
// beside a checked one (see Reported) and what-ifs are in none of them.
func Count(rows []Row) (simulated, passed, pending int) {
	for _, row := range rows {
		switch row.Status() {
		case StatusNotSimulated:
			pending++
		case StatusPass:
			simulated++
			passed++
		case StatusFail:
			simulated++
		}
	}
	return
}

// Reported counts the rows reported beside a checked one and not checked themselves
// (the physical reading's values).
func Reported(rows []Row) int {
	n := 0
	for _, row := range rows {
		if row.Status() == StatusReported {
			n++
		}
	}
	return n
}

// Status is the verdict on one paper-vs-simulated comparison.
type Status string

const (
	// StatusPass: the paper's experiment, within tolerance of the paper.
	StatusPass Status = "pass"
	// StatusFail: the paper's experiment, outside the tolerance.
	StatusFail Status = "FAIL"
	// StatusNotSimulated: no part of the engine simulates the value yet.
	StatusNotSimulated Status = "not simulated yet"
	// StatusReported: a value shown beside a checked one without being
	// checked itself (an id's value under the physical reading of t_R).
	StatusReported Status = "reported"
	// StatusSimulated: a number beyond the paper, simulated with nothing
	// to judge it by (Row.SimulatedOnly).
	StatusSimulated Status = "simulated"
	// StatusWhatIf: a value of an experiment that is not the paper's (see
	// WhatIf), shown beside the paper's number and not judged by it.
	StatusWhatIf Status = "what-if"
)

// ReadingCount is, for one id group, how many of its ids computed under several
// readings of t_R each reading passes: the checked reading's verdicts and the other
// readings' Within, over the ids simulated under that reading.
type ReadingCount struct {
	// Group is the id group (the ids up to their first dot, "fig9a"); "all" sums them.
	Group string
	// Passed and Simulated are by reading name ("paper", "physical", "serial").
	Passed, Simulated map[string]int
}

// ReadingTally counts, per id group in the rows' order and in all, the ids each
// reading of t_R passes, over the ids computed under more than one reading (variants
// other than readings left out).
func ReadingTally(rows []Row) []ReadingCount {
	multi := map[string]bool{}
	for _, r := range rows {
		if r.Variant == "" && r.Beside() {
			multi[r.BaseID()] = true
		}
	}
	var out []ReadingCount
	index := map[string]int{}
	all := ReadingCount{Group: "all", Passed: map[string]int{}, Simulated: map[string]int{}}
	for _, r := range rows {
		if r.Variant != "" || r.Simulated == nil || !multi[r.BaseID()] || r.WhatIf {
			continue
		}
		g, _, _ := strings.Cut(r.ID, ".")
		k, ok := index[g]
		if !ok {
			k, index[g] = len(out), len(out)
			out = append(out, ReadingCount{Group: g, Passed: map[string]int{}, Simulated: map[string]int{}})
		}
		name := r.Reading
		if name == "" {
			name = dash.ReadingPaper.String()
		}
		pass := r.Pass
		if r.Beside() {
			pass = r.Within
		}
		for _, c := range []*ReadingCount{&out[k], &all} {
			c.Simulated[name]++
			if pass != nil && *pass {
				c.Passed[name]++
			}
		}
	}
	if len(out) > 0 {
		out = append(out, all)
	}
	return out
}
