package charts

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/summary"
)

func fmtPaper(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// PaperTable renders the full "paper vs simulated" table of a reproduction
// (the harness's []summary.Row): every number the paper publishes, in reference/paper.yaml's
// order, with the simulated value, the deviation (simulated - paper, in the unit), the
// tolerance and the harness's verdict (summary.Row.Status): pass (green), FAIL (red),
// reported (blue: the physical reading's values) or not simulated yet (grey; those ids
// are listed, never dropped). The last column says how the value was obtained (and the
// paper entry's note). The caption gives the counts. The verdicts are the harness's own,
// so the table agrees with `dashlab reproduce`.
func PaperTable(caption string, rows []summary.Row) template.HTML {
	esc := template.HTMLEscapeString
	n := summary.Tally(rows)
	reported := n[summary.StatusReported]
	var b strings.Builder
	b.WriteString(`<div style="overflow-x:auto;max-width:100%">`)
	fmt.Fprintf(&b, `<table class="dashlab-table dashlab-paper-table" style="%s">`, tableStyle)
	counts := fmt.Sprintf("%d ids: %d pass, %d fail, %d not simulated yet", len(rows)-reported, n[summary.StatusPass], n[summary.StatusFail], n[summary.StatusNotSimulated])
	if reported > 0 {
		counts += fmt.Sprintf("; %d reported beside them under the physical reading of t_R (id suffix .physical, not checked)", reported)
	}
	if caption != "" {
		counts = caption + " — " + counts
	}
	fmt.Fprintf(&b, `<caption style="%s">%s</caption>`, capStyle, esc(counts))
	b.WriteString(`<thead><tr>`)
	for _, h := range []string{"id", "§", "paper", "simulated", "deviation", "tolerance", "verdict", "how"} {
		fmt.Fprintf(&b, `<th style="%s">%s</th>`, thStyle, h)
	}
	b.WriteString(`</tr></thead><tbody>`)
	small := tdStyle + `;font-size:12px;color:#5f6368;min-width:200px`
	idStyle := tdStyle + `;font-size:12px`
	for _, r := range rows {
		st := r.Status()
		unit := ""
		if r.Unit != "" {
			unit = " " + r.Unit
		}
		sim, dev := "not simulated yet", "—"
		if r.Simulated != nil {
			sim = strconv.FormatFloat(*r.Simulated, 'g', 5, 64) + unit
		}
		if r.Deviation != nil {
			d := *r.Deviation
			if math.Abs(d) < 1e-9*math.Max(1, math.Abs(r.Paper)) {
				d = 0 // floating-point noise
			}
			dev = signedG(d) + unit
			if r.Paper != 0 {
				dev += fmt.Sprintf("\n(%+.1f %%)", 100*d/math.Abs(r.Paper)) // two lines: the table fits 1280 px
			}
			if r.AtMost != nil {
				dev = "— (a bound)"
			}
		}
		paper, tol := fmtPaper(r.Paper)+unit, "±"+fmtPaper(r.Tolerance)+unit
		if r.SimulatedOnly {
			paper, tol = "— (beyond the paper)", "—"
		}
		how := r.Detail
		if r.Note != "" {
			if how != "" {
				how += ". "
			}
			how += "Paper: " + r.Note
		}
		fmt.Fprintf(&b, `<tr data-status="%s">`, esc(string(st)))
		fmt.Fprintf(&b, `<td style="%s"><code>%s</code></td>`, idStyle, strings.ReplaceAll(esc(r.ID), ".", ".<wbr>"))
		fmt.Fprintf(&b, `<td style="%s;white-space:nowrap">%s</td>`, tdStyle, esc(r.Section))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, numStyle, esc(paper))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, numStyle, esc(sim))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, numStyle, strings.ReplaceAll(esc(dev), "\n", "<br>"))
		if r.AtMost != nil {
			tol = "at most " + fmtPaper(*r.AtMost) + unit
		}
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, numStyle, esc(tol))
		fmt.Fprintf(&b, `<td style="%s;white-space:nowrap">%s</td>`, statusStyle[st], esc(string(st)))
		fmt.Fprintf(&b, `<td style="%s">%s</td>`, small, esc(how))
		b.WriteString(`</tr>`)
	}
	b.WriteString(`</tbody></table></div>`)
	return template.HTML(b.String())
}

func signedG(x float64) string {
	s := strconv.FormatFloat(x, 'g', 4, 64)
	if x >= 0 {
		s = "+" + s
	}
	return s
}
