package charts

import (
	"strings"
	"testing"
)

func TestBoundRow(t *testing.T) {
	in := Row{ID: "err", Unit: "%", Paper: 0.51, Simulated: 1.8, Tolerance: 3, AtMost: 2}
	out := in
	out.Simulated = 2.2
	if in.Status() != Pass || out.Status() != Fail {
		t.Errorf("statuses %v, %v: want pass, FAIL", in.Status(), out.Status())
	}
	h := string(Table("", []Row{in}))
	if !strings.Contains(h, "at most 2") || !strings.Contains(h, "a bound") || strings.Contains(h, "+253") {
		t.Errorf("bound row: %s", h)
	}
}
