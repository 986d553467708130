package nb

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference/clusters"
)

// Knobs are the knobs a notebook's parameter cell sets, by path, with their units; the
// notebooks write the paper's values out:
//
//	knobs := nb.Knobs{"hbf.t_read": 3 * unit.Microsecond, "hbf.page_size": 4 * unit.KiB, "link.usable": 1.6 * unit.TBps}
//
// Any knob of the table may be given (a new spec field is one the moment it has its
// knob tag). A knob left out keeps the system's value. Every value is checked: a
// number without its unit ("hbf.t_read": 3) or a misspelled path fails the cell with
// the path, the value and what was meant, and an implausible value (3 ns) with its
// range. Settings returns them as data for a case (summary.Case.Knobs) or a builder
// (dash.ExperimentBuilder.With); Help shows each with its unit,
// the paper's value, its range and its source.
type Knobs map[string]any

// paths are the knobs' paths in the table's order (unknown ones last, by name).
func (k Knobs) paths() []string {
	order := map[string]int{}
	for i, kn := range dash.Knobs() {
		order[kn.Path] = i
	}
	var ps []string
	for p := range k {
		ps = append(ps, p)
	}
	slices.SortFunc(ps, func(a, b string) int {
		ia, oka := order[a]
		ib, okb := order[b]
		switch {
		case oka && okb:
			return cmp.Compare(ia, ib)
		case oka != okb:
			if oka {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return ps
}

// With returns the knobs with one more set (or changed): knobs.With("hbf.t_read",
// 10*unit.Microsecond); k itself is left as it is.
func (k Knobs) With(path string, v any) Knobs {
	out := make(Knobs, len(k)+1)
	for p, x := range k {
		out[p] = x
	}
	out[path] = v
	return out
}

// Settings are the knobs as data (dash.Setting: path and exact text), for a case's
// Knobs, or the first problem with them (nb.Must(knobs.Settings()) fails the cell with
// the path and the value).
func (k Knobs) Settings() ([]dash.Setting, error) {
	var out []dash.Setting
	for _, p := range k.paths() {
		s, err := dash.SettingOf(p, k[p])
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Help shows the knobs' table in the cell: each knob's path and symbol, the value set,
// the paper's value, the unit, the plausible range, the source and what it is.
func (k Knobs) Help() { MD(k.HelpMarkdown()) }

// HelpMarkdown is Help's table as Markdown.
func (k Knobs) HelpMarkdown() string {
	set := map[string]any{}
	for p, v := range k {
		set[p] = v
	}
	return helpTable(k.paths(), set)
}

// Help shows the table rows of the knobs named (every knob when none is), as Knobs.Help
// does, without a value set.
func Help(paths ...string) {
	if len(paths) == 0 {
		for _, kn := range dash.Knobs() {
			paths = append(paths, kn.Path)
		}
	}
	MD(helpTable(paths, nil))
}

func helpTable(paths []string, set map[string]any) string {
	paper := clusters.PaperKnobs() // the paper's values, and the cluster's (reference/clusters)
	var b strings.Builder
	cols := "| knob | | paper | unit | range | source | what |\n|---|---|---|---|---|---|---|\n"
	if set != nil {
		cols = "| knob | | value | paper | unit | range | source | what |\n|---|---|---|---|---|---|---|---|\n"
	}
	b.WriteString(cols)
	for _, p := range paths {
		kn, err := dash.LookupKnob(p)
		if err != nil {
			fmt.Fprintf(&b, "| `%s` | | %s |\n", p, err)
			continue
		}
		def, _ := kn.Format(paper)
		fmt.Fprintf(&b, "| `%s` | %s |", kn.Path, kn.Symbol)
		if set != nil {
			fmt.Fprintf(&b, " %s |", valueText(kn, set[p]))
		}
		fmt.Fprintf(&b, " %s | %s | %s | %s | %s |\n", def, kn.Unit(), kn.Range(), kn.Cite, kn.Doc)
	}
	return b.String()
}

// valueText writes a knob's value as the table writes it, or why it is refused.
func valueText(kn dash.Knob, v any) string {
	s, err := dash.SettingOf(kn.Path, v)
	if err != nil {
		return "refused: " + err.Error()
	}
	if err := kn.Check(v); err != nil {
		return "refused: " + err.Error()
	}
	return s.Value
}
