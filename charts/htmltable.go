package charts

import (
	"fmt"
	"html/template"
	"regexp"
	"strings"
	"sync"

	"github.com/dashlab/dashlab/summary"
)

var numericCell = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[-+−±~]?[0-9][0-9,.]*(e[-+]?[0-9]+)?(\s*(%|×|x|[A-Za-zµ/]+(/[A-Za-z]+)?))?$`)
})

// HTMLTable renders a plain table of text cells with the package's light inline style:
// numbers are right-aligned, and a cell whose text is a Status ("pass", "FAIL", "not
// simulated yet") gets that status' color. The caption is optional. Rows shorter than
// the header are padded.
func HTMLTable(caption string, header []string, rows [][]string) template.HTML {
	esc := template.HTMLEscapeString
	var b strings.Builder
	fmt.Fprintf(&b, `<table class="dashlab-table" style="%s">`, tableStyle)
	if caption != "" {
		fmt.Fprintf(&b, `<caption style="%s">%s</caption>`, capStyle, esc(caption))
	}
	if len(header) > 0 {
		b.WriteString(`<thead><tr>`)
		for _, h := range header {
			fmt.Fprintf(&b, `<th style="%s">%s</th>`, thStyle, esc(h))
		}
		b.WriteString(`</tr></thead>`)
	}
	b.WriteString(`<tbody>`)
	for _, r := range rows {
		b.WriteString(`<tr>`)
		for i := 0; i < max(len(r), len(header)); i++ {
			cell := ""
			if i < len(r) {
				cell = r[i]
			}
			style := tdStyle
			if st, ok := statusStyle[summary.Status(cell)]; ok {
				style = st
			} else if numericCell().MatchString(strings.TrimSpace(cell)) {
				style = numStyle
			}
			fmt.Fprintf(&b, `<td style="%s">%s</td>`, style, esc(cell))
		}
		b.WriteString(`</tr>`)
	}
	b.WriteString(`</tbody></table>`)
	return template.HTML(b.String())
}

// fmtG formats a number with up to 4 significant digits.
func fmtG(v float64) string { return fmt.Sprintf("%.4g", v) }

// ReadingTallyTable tabulates summary.ReadingTally: per id group, "passed of
// simulated" under each reading named.
func ReadingTallyTable(caption string, readings []string, tally []summary.ReadingCount) template.HTML {
	head := append([]string{"ids"}, readings...)
	var rows [][]string
	for _, c := range tally {
		row := []string{c.Group + ".*"}
		if c.Group == "all" {
			row[0] = "all"
		}
		for _, rd := range readings {
			row = append(row, fmt.Sprintf("%d of %d", c.Passed[rd], c.Simulated[rd]))
		}
		rows = append(rows, row)
	}
	return HTMLTable(caption, head, rows)
}

// AssumptionTable tabulates summary.AssumptionTable: each id's checked value and its
// value with each assumed parameter at each factor of its assumed value, with the
// verdict a value would get (an asterisk marks a verdict that differs from the
// checked one's), the ids that move most first.
func AssumptionTable(caption string, t *summary.AssumptionTable) template.HTML {
	head := []string{"id", "paper", "checked"}
	for _, p := range t.Params {
		for _, f := range t.Factors {
			head = append(head, fmt.Sprintf("%s x %g", p.Label, f))
		}
	}
	head = append(head, "largest change")
	verdict := func(pass bool) string { return map[bool]string{true: "pass", false: "FAIL"}[pass] }
	var rows [][]string
	for _, r := range t.Movers(0) {
		row := []string{r.ID, fmtNum(r.Paper, r.Unit), fmtNum(r.Base, r.Unit) + " (" + verdict(r.PassBase) + ")"}
		for p := range r.Values {
			for f, v := range r.Values[p] {
				mark := ""
				if r.Pass[p][f] != r.PassBase {
					mark = "*"
				}
				row = append(row, fmtNum(v, r.Unit)+" ("+verdict(r.Pass[p][f])+mark+")")
			}
		}
		row = append(row, fmt.Sprintf("%.1f%%", 100*r.RelSpread()))
		rows = append(rows, row)
	}
	return HTMLTable(caption, head, rows)
}
