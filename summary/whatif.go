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
