package resultdocs

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/summary"
)

// Generated text lives between markers, so that the text around it stays prose:
//
//   - a block, a whole table:
//     <!-- BEGIN GENERATED NAME (go generate ./internal/resultdocs) --> ... <!-- END GENERATED NAME -->
//     where NAME is one of Blocks' keys;
//   - an inline value inside a sentence: <!--v ID FORMAT-->text<!--/v-->, where ID is a
//     row's id (with a reading's suffix for another reading: ".physical") and FORMAT a
//     fmt verb with its text ("%.2fx", "%.1f%%"); "pass" as FORMAT writes the row's
//     verdict.
//
// Generate rewrites what is between the markers from the reproduction's rows;
// everything else is left as it is.

var (
	blockRE  = regexp.MustCompile(`(?s)(<!-- BEGIN GENERATED ([a-z-]+)[^>]*-->\n)(.*?)(<!-- END GENERATED ([a-z-]+) -->)`)
	inlineRE = regexp.MustCompile(`(<!--v (\S+) ([^>]+?)-->)(.*?)(<!--/v-->)`)
)

// Blocks are the generated tables by name.
var Blocks = map[string]func(rows []summary.Row) string{
	"summary":  summaryTable,
	"rows":     rowsTable,
	"readings": readingsTable,
}

// Generate returns text with every generated region rewritten from rows.
func Generate(text string, rows []summary.Row) (string, error) {
	var errs []string
	byID := map[string]summary.Row{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	out := blockRE.ReplaceAllStringFunc(text, func(m string) string {
		g := blockRE.FindStringSubmatch(m)
		name, end := g[2], g[5]
		gen, ok := Blocks[name]
		if !ok || end != name {
			errs = append(errs, fmt.Sprintf("block %q (ended by %q): not a generated table (%s)", name, end, blockNames()))
			return m
		}
		return g[1] + gen(rows) + g[4]
	})
	out = inlineRE.ReplaceAllStringFunc(out, func(m string) string {
		g := inlineRE.FindStringSubmatch(m)
		id, format := g[2], g[3]
		r, ok := byID[id]
		if !ok {
			errs = append(errs, fmt.Sprintf("inline value %q: no such row", id))
			return m
		}
		return g[1] + inline(r, format) + g[5]
	})
	if len(errs) > 0 {
		return text, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return out, nil
}

// Strip removes the generated regions from text (for the typed-number check), keeping
// its lines.
func Strip(text string) string {
	keepLines := func(s string) string { return strings.Repeat("\n", strings.Count(s, "\n")) }
	text = blockRE.ReplaceAllStringFunc(text, keepLines)
	return inlineRE.ReplaceAllString(text, "")
}

func blockNames() string {
	var names []string
	for n := range Blocks {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func inline(r summary.Row, format string) string {
	if format == "pass" {
		return string(r.Status())
	}
	if r.Simulated == nil {
		return "not simulated"
	}
	return fmt.Sprintf(format, *r.Simulated)
}

// groupNames say what an id group (the ids up to their first dot) holds; a group
// without one is named by its first row's section.
var groupNames = map[string]string{
	"table2": "Table II weights", "fig1": "Fig. 1 capacity ranges", "ucie": "UCIe link (§IV-A)",
	"hbf": "HBF page wave and SRAM (§IV-B, §VI-A)", "hbm": "HBM relay SRAM (§IV-B)", "gpu": "GPU timing model (§VI-A)",
	"fig9a": "Fig. 9(a) geomeans", "intro": "§I B = 4 comparison", "fig9b": "Fig. 9(b) geomeans and 4K/1M",
	"fig10": "Fig. 10 CPU-GPU offloading", "fig11": "Fig. 11 lookahead", "table3": "Table III serving latency",
	"serving": "serving peak gains (§VI-E)", "fig12": "Fig. 12 KV split and write stalls", "cost": "capacity per cost (§VI-G)",
	"cluster": "DASH at cluster scale (beyond Table I)",
	"routing": "skewed routing and the HBM expert cache (beyond §VI-E)",
}

// summaryTable counts the verdicts per id group, in the rows' order.
func summaryTable(rows []summary.Row) string {
	var b strings.Builder
	b.WriteString("| ids | what | pass | FAIL | not simulated yet | reported beside them (other readings of t_R, variants) | simulated only (beyond the paper) |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	total := map[summary.Status]int{}
	var order []string
	counts := map[string]map[summary.Status]int{}
	what := map[string]string{}
	for _, r := range rows {
		g, _, _ := strings.Cut(r.ID, ".")
		if counts[g] == nil {
			counts[g] = map[summary.Status]int{}
			order = append(order, g)
			what[g] = groupNames[g]
			if what[g] == "" {
				what[g] = r.Section
			}
		}
		counts[g][r.Status()]++
		total[r.Status()]++
	}
	for _, g := range order {
		n := counts[g]
		fmt.Fprintf(&b, "| `%s.*` | %s | %d | %d | %d | %d | %d |\n", g, what[g], n[summary.StatusPass], n[summary.StatusFail],
			n[summary.StatusNotSimulated], n[summary.StatusReported], n[summary.StatusSimulated])
	}
	fmt.Fprintf(&b, "| all | | **%d** | **%d** | %d | %d | %d |\n", total[summary.StatusPass], total[summary.StatusFail],
		total[summary.StatusNotSimulated], total[summary.StatusReported], total[summary.StatusSimulated])
	return b.String()
}

// readingsTable counts, per id group computed under several readings of t_R, the ids
// each reading passes (summary.ReadingTally): the checked reading's verdicts, the
// others' values against the same tolerances.
func readingsTable(rows []summary.Row) string {
	tally := summary.ReadingTally(rows)
	readings := []string{"paper", "physical", "serial"}
	var b strings.Builder
	b.WriteString("| ids | what |")
	for _, rd := range readings {
		fmt.Fprintf(&b, " %s |", rd)
	}
	b.WriteString("\n| --- | --- |" + strings.Repeat(" --- |", len(readings)) + "\n")
	for _, c := range tally {
		what, ids := groupNames[c.Group], "`"+c.Group+".*`"
		if c.Group == "all" {
			what, ids = "", "all"
		}
		fmt.Fprintf(&b, "| %s | %s |", ids, what)
		for _, rd := range readings {
			cell := fmt.Sprintf("%d of %d", c.Passed[rd], c.Simulated[rd])
			if c.Group == "all" {
				cell = "**" + cell + "**"
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// rowsTable lists every paper id: the paper's value, the simulated one under the paper
// reading (checked) and the other readings' (reported), the tolerance and the verdict.
func rowsTable(rows []summary.Row) string {
	var b strings.Builder
	b.WriteString("| id | paper | simulated | other readings | tolerance | verdict |\n| --- | --- | --- | --- | --- | --- |\n")
	others := map[string][]summary.Row{}
	for _, r := range rows {
		if r.Reading != "" && r.Reading != "paper" {
			base := strings.TrimSuffix(r.ID, "."+r.Reading)
			others[base] = append(others[base], r)
		}
	}
	for _, r := range rows {
		if r.Reading != "" && r.Reading != "paper" {
			continue
		}
		var o []string
		for _, x := range others[r.ID] {
			o = append(o, x.Reading+": "+value(x.Simulated, r.Unit))
		}
		tol := "±" + num(r.Tolerance) + unitSuffix(r.Unit)
		if r.AtMost != nil {
			tol = "at most " + exact(*r.AtMost) + unitSuffix(r.Unit)
		}
		paper := exact(r.Paper) + unitSuffix(r.Unit)
		if r.SimulatedOnly { // beyond the paper: nothing to judge by
			paper, tol = "—", "—"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", r.ID, paper, value(r.Simulated, r.Unit),
			strings.Join(o, ", "), tol, r.Status())
	}
	return b.String()
}

func value(x *float64, unit string) string {
	if x == nil {
		return "—"
	}
	return num(*x) + unitSuffix(unit)
}

// num writes a value with four significant digits (six for one of 1,000 or more).
func num(x float64) string {
	if math.Abs(x) >= 1000 {
		return fmt.Sprintf("%.6g", x)
	}
	return fmt.Sprintf("%.4g", x)
}

// exact writes a published value as the paper gives it.
func exact(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

func unitSuffix(u string) string {
	switch u {
	case "":
		return ""
	case "%", "x":
		return u
	}
	return " " + u
}
