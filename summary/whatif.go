package summary

import (
	"strings"

	"github.com/dashlab/dashlab/dash"
)

// WhatIf lists how a simulated experiment differs from the paper's: the parts
// of its memory system, its execution switches and routing (each point's,
// from reproduce), and for a figure also its design (models, batch sizes,
// lengths). Empty, it is the paper's experiment, whose numbers are checked
// against the paper's; otherwise they are a what-if, which no paper number
// checks.
type WhatIf []dash.Change

// Any reports whether the experiment differs from the paper's.
func (w WhatIf) Any() bool { return len(w) > 0 }

// String is the compact form the charts print in a subtitle: "what-if: link
// 1.6 -> 0.8 TB/s, t_R 3 -> 1 µs" ("" for the paper's experiment).
func (w WhatIf) String() string {
	if len(w) == 0 {
		return ""
	}
	parts := make([]string, len(w))
	for i, c := range w {
		parts[i] = c.String()
	}
	return "what-if: " + strings.Join(parts, ", ")
}

// Add appends the changes not listed yet (by their compact form), in order.
func (w WhatIf) Add(cs ...dash.Change) WhatIf {
	for _, c := range cs {
		seen := false
		for _, x := range w {
			if x.String() == c.String() {
				seen = true
				break
			}
		}
		if !seen {
			w = append(w, c)
		}
	}
	return w
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
	// StatusWhatIf: a value of an experiment that is not the paper's (see
	// WhatIf), shown beside the paper's number and not judged by it.
	StatusWhatIf Status = "what-if"
)

// Verdict is the status of a simulated value: StatusWhatIf when the
// experiment differs from the paper's, otherwise pass or FAIL.
func (w WhatIf) Verdict(withinTolerance bool) Status {
	switch {
	case w.Any():
		return StatusWhatIf
	case withinTolerance:
		return StatusPass
	}
	return StatusFail
}
