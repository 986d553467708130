package charts

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/summary"
)

// A what-if line under the subtitle moves the plot down one line, clear of the y axis's
// name; the paper's experiment keeps the 85 px margin.
func TestWhatIfMargin(t *testing.T) {
	w := summary.WhatIf{{Field: "link", From: "1.6", To: "0.8 TB/s"}}
	for _, c := range []struct {
		w    summary.WhatIf
		want string
	}{{nil, `"top":"85"`}, {w, `"top":"101"`}} {
		h, err := Render(GroupedBar(BarSpec{Common: Common{ID: "m", Title: "t", Subtitle: WhatIfSubtitle("B = 4", c.w)},
			YName: "y", Categories: []string{"a"}, Series: []Series{{Name: "s", Values: []float64{1}}},
			RefLines: []RefLine{{Name: "r", Y: 1}}}))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(h), c.want) {
			t.Errorf("%v: no %s in the chart's options", c.w, c.want)
		}
	}
	if got := WhatIfTitle("t", w); got != "t (what-if: link 1.6 -> 0.8 TB/s)" {
		t.Errorf("WhatIfTitle: %q", got)
	}
}
