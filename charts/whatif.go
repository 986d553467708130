package charts

import (
	"fmt"
	"strings"

	"github.com/dashlab/dashlab/summary"
)

// What-if labelling. A figure drawn from an experiment that is not the paper's (a
// summary whose WhatIf lists changes: a faster link, other batch sizes, ...) says so in
// every chart's subtitle and in its caption, and its paper-vs-simulated rows have the
// status "what-if" instead of pass or FAIL (Row.WhatIf). The changes come from the
// harness (reproduce.CaseChanges, reproduce.SummariseFig9); the charts only print them.

// WhatIfSubtitle returns a chart subtitle with the what-if on a line of its own
// ("what-if: link 1.6 -> 0.8 TB/s"); sub unchanged for the paper's experiment.
func WhatIfSubtitle(sub string, w summary.WhatIf) string {
	if !w.Any() {
		return sub
	}
	if sub == "" {
		return w.String()
	}
	return sub + "\n" + w.String()
}

// gridTop is the plot's top margin in pixels: 85 under a title and a one-line
// subtitle, 16 more (a subtitle line) for each further line, such as the what-if
// line of WhatIfSubtitle, so that the subtitle clears the y axis's name.
func gridTop(subtitle string) string {
	return fmt.Sprint(85 + 16*strings.Count(subtitle, "\n"))
}

// WhatIfTitle returns a table title with the what-if in parentheses after it
// ("... (what-if: link 1.6 -> 0.8 TB/s)"); title unchanged for the paper's
// experiment.
func WhatIfTitle(title string, w summary.WhatIf) string {
	if !w.Any() {
		return title
	}
	return strings.TrimSpace(title + " (" + w.String() + ")")
}

// WhatIfCaption returns a figure caption that opens with the what-if; caption
// unchanged for the paper's experiment.
func WhatIfCaption(caption string, w summary.WhatIf) string {
	if !w.Any() {
		return caption
	}
	return "Not the paper's experiment (" + w.String() + "): the rows show the paper's numbers beside these, as what-if, not judged by them. " + caption
}

// namedWhatIf is the union of the runs' what-ifs.
func namedWhatIf(runs []NamedResult) summary.WhatIf {
	var w summary.WhatIf
	for _, r := range runs {
		w = w.Add(r.WhatIf...)
	}
	return w
}
