package charts

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/dashlab/dashlab/summary"
)

// Row is one "paper vs simulated" comparison: a value the paper publishes and the
// simulator's value for the same quantity.
type Row struct {
	ID        string  // stable id, e.g. "fig9a/qwen3/B64/throughput"
	Metric    string  // what is compared, in words (optional)
	Unit      string  // e.g. "×", "µs", "tokens/s" (optional)
	Paper     float64 // the published value
	Simulated float64 // the simulator's value; NaN (math.NaN()) when not simulated yet
	// Tolerance is the largest allowed |Deviation|, a fraction (0.1 for ±10 %); when
	// Paper is 0 it is an absolute difference in Unit.
	Tolerance float64
	// WhatIf says that the simulated experiment is not the paper's (the summary's
	// WhatIf is not empty): the value is shown beside the paper's, status "what-if",
	// and not judged by it.
	WhatIf bool
	// AtMost, when positive, makes the row a bound: it passes when Simulated is at most
	// AtMost (in Unit), whatever its Deviation from Paper, which is then shown for
	// reference (reference.PaperEntry.AtMost).
	AtMost float64
}

// Status is the verdict on one Row: the harness's typed status (summary.Status).
type Status = summary.Status

// The statuses a row can have.
const (
	Pass         = summary.StatusPass
	Fail         = summary.StatusFail
	NotSimulated = summary.StatusNotSimulated
	// Reported is a simulated value shown beside a checked one without
	// being checked itself (an id's value under the physical reading of t_R).
	Reported = summary.StatusReported
	// WhatIf is a value of an experiment that is not the paper's.
	WhatIf = summary.StatusWhatIf
)

// Deviation is (Simulated − Paper)/|Paper|, or Simulated − Paper when Paper is 0; NaN
// when not simulated yet.
func (r Row) Deviation() float64 {
	if math.IsNaN(r.Simulated) {
		return math.NaN()
	}
	if r.Paper == 0 {
		return r.Simulated - r.Paper
	}
	return (r.Simulated - r.Paper) / math.Abs(r.Paper)
}

// Status says whether the simulated value is within tolerance of the paper's, or that
// it is a what-if (Row.WhatIf) and not judged.
func (r Row) Status() Status {
	d := r.Deviation()
	switch {
	case math.IsNaN(d):
		return NotSimulated
	case r.WhatIf:
		return WhatIf
	case r.AtMost > 0:
		if r.Simulated <= r.AtMost+1e-12 {
			return Pass
		}
		return Fail
	case math.Abs(d) <= r.Tolerance+1e-12: // as reference.PaperEntry.Passes: rounding is not a miss
		return Pass
	default:
		return Fail
	}
}

// Counts tallies the rows by status (what-if rows in none).
func Counts(rows []Row) (pass, fail, notSimulated int) {
	for _, r := range rows {
		switch r.Status() {
		case Pass:
			pass++
		case Fail:
			fail++
		case NotSimulated:
			notSimulated++
		}
	}
	return
}

// whatIfs counts the what-if rows.
func whatIfs(rows []Row) int {
	n := 0
	for _, r := range rows {
		if r.Status() == WhatIf {
			n++
		}
	}
	return n
}

// Inline styles throughout: a notebook's own CSS (and a dark notebook theme) would
// otherwise restyle the table; these keep it light and readable everywhere.
const (
	tableStyle = `border-collapse:collapse;margin:8px 0;font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;font-size:13px;color:#202124;background:#ffffff`
	thStyle    = `border:1px solid #dadce0;padding:4px 10px;background:#f1f3f4;color:#202124;text-align:left`
	tdStyle    = `border:1px solid #dadce0;padding:4px 10px;color:#202124;background:#ffffff;text-align:left`
	numStyle   = tdStyle + `;text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap`
	capStyle   = `caption-side:top;text-align:left;padding:4px 0;color:#202124;font-weight:600`
)

var statusStyle = map[Status]string{
	Pass:         `border:1px solid #dadce0;padding:4px 10px;background:#e6f4ea;color:#137333;font-weight:600`,
	Fail:         `border:1px solid #dadce0;padding:4px 10px;background:#fce8e6;color:#a50e0e;font-weight:700`,
	NotSimulated: `border:1px solid #dadce0;padding:4px 10px;background:#f1f3f4;color:#5f6368;font-style:italic;white-space:nowrap`,
	Reported:     `border:1px solid #dadce0;padding:4px 10px;background:#e8f0fe;color:#1a73e8;white-space:nowrap`,
	WhatIf:       `border:1px solid #dadce0;padding:4px 10px;background:#fef7e0;color:#8a5a00;font-weight:600;white-space:nowrap`,
}

func fmtNum(v float64, unit string) string {
	if math.IsNaN(v) {
		return "—"
	}
	s := fmt.Sprintf("%.4g", v)
	if unit != "" {
		s += " " + unit
	}
	return s
}

// Table renders rows as an HTML table with columns id, metric, paper, simulated,
// deviation, tolerance and status; the status cell is green for pass, red for FAIL,
// amber for "what-if" and grey for "not simulated yet". The caption (optional) is followed by the counts.
func Table(caption string, rows []Row) template.HTML {
	esc := template.HTMLEscapeString
	var b strings.Builder
	pass, fail, pending := Counts(rows)
	fmt.Fprintf(&b, `<table class="dashlab-table" style="%s">`, tableStyle)
	summary := fmt.Sprintf("%d pass, %d fail, %d not simulated yet", pass, fail, pending)
	if n := whatIfs(rows); n > 0 {
		summary = fmt.Sprintf("%d what-if (not the paper's experiment: not judged against its numbers), %s", n, summary)
	}
	if caption != "" {
		summary = caption + " — " + summary
	}
	fmt.Fprintf(&b, `<caption style="%s">%s</caption>`, capStyle, esc(summary))
	b.WriteString(`<thead><tr>`)
	for _, h := range []string{"id", "metric", "paper", "simulated", "deviation", "tolerance", "status"} {
		fmt.Fprintf(&b, `<th style="%s">%s</th>`, thStyle, h)
	}
	b.WriteString(`</tr></thead><tbody>`)
	for _, r := range rows {
		st := r.Status()
		dev, tol := "—", "—"
		if d := r.Deviation(); !math.IsNaN(d) {
			if r.Paper == 0 {
				dev = fmt.Sprintf("%+.3g %s", d, r.Unit)
			} else {
				dev = fmt.Sprintf("%+.1f%%", d*100)
			}
			if r.AtMost > 0 {
				dev = "— (a bound)"
			}
		}
		if r.AtMost > 0 {
			tol = "at most " + fmtNum(r.AtMost, r.Unit)
		} else if r.Paper == 0 {
			tol = fmt.Sprintf("±%.3g %s", r.Tolerance, r.Unit)
		} else {
			tol = fmt.Sprintf("±%.3g%%", r.Tolerance*100)
		}
		fmt.Fprintf(&b, `<tr data-status="%s">`, esc(string(st)))
		fmt.Fprintf(&b, `<td style="%s"><code>%s</code></td>`, tdStyle, esc(r.ID))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, tdStyle, esc(r.Metric))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, numStyle, esc(fmtNum(r.Paper, r.Unit)))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, numStyle, esc(fmtNum(r.Simulated, r.Unit)))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, numStyle, esc(strings.TrimSpace(dev)))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, numStyle, esc(strings.TrimSpace(tol)))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, statusStyle[st], esc(string(st)))
		b.WriteString(`</tr>`)
	}
	b.WriteString(`</tbody></table>`)
	return template.HTML(b.String())
}
