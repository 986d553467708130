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

// A simulated number typed in prose drifts: the engine changes, the text does not. The
// check finds them in a text (README, a notebook's Markdown, a Go comment), two ways:
//
//   - a decimal number that equals, to the digits it is written with, a simulated value
//     of the reproduction (any row, any reading) and no number the paper publishes,
//     when it is written with three significant digits or more, or two followed by %, x
//     or × (a length "1.5 TB" is too short to tell);
//   - a ratio written as a decimal followed by x or × that is no number the paper
//     publishes: a speedup is a result, whether the reproduction has it or not.
//
// Such a number belongs in a generated region (Generate) or in a notebook cell that
// prints it computed.

// Typed is one number found in prose.
type Typed struct {
	// File and Line locate it; Text is the number as written.
	File string
	Line int
	Text string
	// IDs are the rows whose simulated value it equals (none for a ratio the
	// reproduction does not have).
	IDs []string
}

func (t Typed) String() string {
	if len(t.IDs) == 0 {
		return fmt.Sprintf("%s:%d: %s (a ratio, not the paper's)", t.File, t.Line, t.Text)
	}
	return fmt.Sprintf("%s:%d: %s (simulated %s)", t.File, t.Line, t.Text, strings.Join(t.IDs, ", "))
}

// significant counts a decimal's significant digits (2 for "0.050", 4 for "12.34").
func significant(num string) int {
	d := strings.TrimLeft(strings.ReplaceAll(strings.TrimPrefix(num, "-"), ".", ""), "0")
	return len(d)
}

// decimal finds decimal numbers with a fractional part and what follows them; a number
// inside a longer token (a version, an id such as "tr32us", a hash) is not one.
var decimal = regexp.MustCompile(`(^|[^\w.\-])(-?\d+\.\d+)( ?(?:x\b|×|%)|$|[^\w.]|[.][^\d])`)

// Numbers indexes the values a text is checked against: the reproduction's simulated
// values and the paper's published ones.
type Numbers struct {
	simulated map[string][]string // value written with n decimals -> row ids
	paper     map[string]bool
}

// NewNumbers indexes rows' simulated values and the paper's values (the rows' Paper and
// any others given).
func NewNumbers(rows []summary.Row, paper ...float64) *Numbers {
	n := &Numbers{simulated: map[string][]string{}, paper: map[string]bool{}}
	for _, r := range rows {
		paper = append(paper, r.Paper)
		if r.AtMost != nil {
			paper = append(paper, *r.AtMost)
		}
	}
	for _, p := range paper {
		for d := 1; d <= 4; d++ {
			n.paper[strconv.FormatFloat(p, 'f', d, 64)] = true
		}
	}
	for _, r := range rows {
		if r.Simulated == nil || math.IsNaN(*r.Simulated) {
			continue
		}
		from := 1
		if r.SimulatedOnly { // beyond the paper (ratios near 1): one decimal matches any prose
			from = 2
		}
		for d := from; d <= 4; d++ {
			k := strconv.FormatFloat(*r.Simulated, 'f', d, 64)
			n.simulated[k] = append(n.simulated[k], r.ID)
		}
	}
	return n
}

// Find returns the numbers of text (from file) that equal a simulated value and no
// paper value, with their lines.
func (n *Numbers) Find(file, text string) []Typed {
	var out []Typed
	for i, line := range strings.Split(text, "\n") {
		for _, m := range decimal.FindAllStringSubmatch(line, -1) {
			num, after := m[2], strings.TrimSpace(m[3])
			if n.paper[num] || n.paper[strings.TrimPrefix(num, "-")] {
				continue
			}
			ratio := after == "x" || after == "×"
			resultUnit := ratio || after == "%"
			if !resultUnit {
				after = ""
			}
			ids := n.simulated[num]
			switch {
			case len(ids) > 0 && (significant(num) >= 3 || significant(num) == 2 && resultUnit):
				out = append(out, Typed{File: file, Line: i + 1, Text: num + after, IDs: dedupe(ids)})
			case ratio:
				out = append(out, Typed{File: file, Line: i + 1, Text: num + after})
			}
		}
	}
	return out
}

func dedupe(ids []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	sort.Strings(out)
	if len(out) > 3 {
		out = append(out[:3], fmt.Sprintf("and %d more", len(out)-3))
	}
	return out
}
