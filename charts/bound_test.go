package charts

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/summary"
)

func TestBoundRow(t *testing.T) {
	bound := 2.0
	in := judged("err", "%", 0.51, 1.8, 0, true)
	in.AtMost = &bound
	h := string(Table("", []summary.Row{in}))
	if !strings.Contains(h, "at most 2") || !strings.Contains(h, "a bound") || strings.Contains(h, "+253") {
		t.Errorf("bound row: %s", h)
	}
}
