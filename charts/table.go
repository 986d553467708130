package charts

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/dashlab/dashlab/summary"
)

// The statuses a row can have: the harness's verdicts (summary.Row.Status), drawn.
const (
	pass         = summary.StatusPass
	fail         = summary.StatusFail
	notSimulated = summary.StatusNotSimulated
	reported     = summary.StatusReported
	whatIf       = summary.StatusWhatIf
)

// Inline styles throughout: a notebook's own CSS (and a dark notebook theme) would
// otherwise restyle the table; these keep it light and readable everywhere.
const (
	tableStyle = `border-collapse:collapse;margin:8px 0;font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;font-size:13px;color:#202124;background:#ffffff`
	thStyle    = `border:1px solid #dadce0;padding:4px 10px;background:#f1f3f4;color:#202124;text-align:left`
	tdStyle    = `border:1px solid #dadce0;padding:4px 10px;color:#202124;background:#ffffff;text-align:left`
	numStyle   = tdStyle + `;text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap`
	capStyle   = `caption-side:top;text-align:left;padding:4px 0;color:#202124;font-weight:600`
)

var statusStyle = map[summary.Status]string{
	pass:         `border:1px solid #dadce0;padding:4px 10px;background:#e6f4ea;color:#137333;font-weight:600`,
	fail:         `border:1px solid #dadce0;padding:4px 10px;background:#fce8e6;color:#a50e0e;font-weight:700`,
	notSimulated: `border:1px solid #dadce0;padding:4px 10px;background:#f1f3f4;color:#5f6368;font-style:italic;white-space:nowrap`,
	reported:     `border:1px solid #dadce0;padding:4px 10px;background:#e8f0fe;color:#1a73e8;white-space:nowrap`,
	whatIf:       `border:1px solid #dadce0;padding:4px 10px;background:#fef7e0;color:#8a5a00;font-weight:600;white-space:nowrap`,
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

// relDeviation is (Simulated - Paper)/|Paper|, or Simulated - Paper when Paper is 0; NaN
// when not simulated.
func relDeviation(r summary.Row) float64 {
	if r.Simulated == nil {
		return math.NaN()
	}
	d := *r.Simulated - r.Paper
	if r.Paper == 0 {
		return d
	}
	return d / math.Abs(r.Paper)
}

// simulatedValue is the row's simulated value, NaN when not simulated.
func simulatedValue(r summary.Row) float64 {
	if r.Simulated == nil {
		return math.NaN()
	}
	return *r.Simulated
}

// Table renders a figure's judged rows (the harness's summary.Row, with the figure's
// Metric labels) as an HTML table with columns id, metric, paper, simulated, deviation
// (relative), tolerance (relative) and status; the status is the harness's verdict, the
// cell green for pass, red for FAIL, blue for reported, amber for "what-if" and grey
// for "not simulated yet". The caption (optional) is followed by the counts.
func Table(caption string, rows []summary.Row) template.HTML {
	esc := template.HTMLEscapeString
	var b strings.Builder
	n := summary.Tally(rows)
	fmt.Fprintf(&b, `<table class="dashlab-table" style="%s">`, tableStyle)
	counts := fmt.Sprintf("%d pass, %d fail, %d not simulated yet", n[pass], n[fail], n[notSimulated])
	if n[reported] > 0 {
		counts += fmt.Sprintf(", %d reported (not checked)", n[reported])
	}
	if n[whatIf] > 0 {
		counts = fmt.Sprintf("%d what-if (not the paper's experiment: not judged against its numbers), %s", n[whatIf], counts)
	}
	if caption != "" {
		counts = caption + " — " + counts
	}
	fmt.Fprintf(&b, `<caption style="%s">%s</caption>`, capStyle, esc(counts))
	b.WriteString(`<thead><tr>`)
	for _, h := range []string{"id", "metric", "paper", "simulated", "deviation", "tolerance", "status"} {
		fmt.Fprintf(&b, `<th style="%s">%s</th>`, thStyle, h)
	}
	b.WriteString(`</tr></thead><tbody>`)
	for _, r := range rows {
		st := r.Status()
		dev, tol := "—", "—"
		// As PaperTable writes them: deviation and tolerance in the row's unit (the
		// deviation's share of the paper value beside it), so that one tolerance reads the
		// same in every table.
		u := ""
		if r.Unit != "" {
			u = " " + r.Unit
		}
		if d := relDeviation(r); !math.IsNaN(d) {
			if r.Paper == 0 {
				dev = signedG(d) + u
			} else {
				dev = signedG(*r.Simulated-r.Paper) + u + fmt.Sprintf(" (%+.1f %%)", d*100)
			}
			if r.AtMost != nil {
				dev = "— (a bound)"
			}
		}
		switch {
		case r.AtMost != nil:
			tol = "at most " + fmtNum(*r.AtMost, r.Unit)
		default:
			tol = "±" + fmtPaper(r.Tolerance) + u
		}
		fmt.Fprintf(&b, `<tr data-status="%s">`, esc(string(st)))
		fmt.Fprintf(&b, `<td style="%s"><code>%s</code></td>`, tdStyle, esc(r.ID))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, tdStyle, esc(r.Metric))
		paper := fmtNum(r.Paper, r.Unit)
		if r.SimulatedOnly {
			paper, dev, tol = "—", "—", "—"
		}
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, numStyle, esc(paper))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, numStyle, esc(fmtNum(simulatedValue(r), r.Unit)))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, numStyle, esc(strings.TrimSpace(dev)))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, numStyle, esc(strings.TrimSpace(tol)))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, statusStyle[st], esc(string(st)))
		b.WriteString(`</tr>`)
	}
	b.WriteString(`</tbody></table>`)
	return template.HTML(b.String())
}
