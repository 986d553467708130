package nb

import (
	"errors"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
)

func build(k Knobs) error {
	_, err := Build(summary.Case{Model: "qwen3-235b-a22b", System: "dash", Batch: 4, Prompt: 1024, Output: 128, Modify: k.Apply()})
	return err
}

// A value written without its unit is refused with a message naming the field, the
// value and the unit meant.
func TestKnobsRefuseValuesWithoutUnits(t *testing.T) {
	for _, c := range []struct {
		k    Knobs
		want []string
	}{
		{Knobs{TRead: 3}, []string{"hbf.t_read = 3ns", "10ns .. 10s", "did you mean 3µs"}},
		{Knobs{PageSize: 4}, []string{"hbf.page_size = 4 B", "in bytes"}},
		{Knobs{LinkBandwidth: 1.6}, []string{"link.usable", "in B/s"}},
		{Knobs{LinkBandwidth: 0.5 * unit.GBps}, []string{"link.usable", "1 GB/s"}},
		{Knobs{TRead: -3 * unit.Microsecond}, []string{"hbf.t_read = -3µs"}},
	} {
		err := build(c.k)
		if err == nil {
			t.Errorf("%+v: built, want refused", c.k)
			continue
		}
		var re *dash.RangeError
		if !errors.As(err, &re) {
			t.Errorf("%+v: %v is not a *dash.RangeError", c.k, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%+v: error %q does not say %q", c.k, err, w)
			}
		}
	}
}

func TestKnobsWithUnitsBuild(t *testing.T) {
	k := Knobs{TRead: 3 * unit.Microsecond, TProg: 100 * unit.Microsecond, PageSize: 4 * unit.KiB, LinkBandwidth: 1.6 * unit.TBps}
	if err := build(k); err != nil {
		t.Fatal(err)
	}
	if err := build(Knobs{TRead: 10 * unit.Nanosecond}); err != nil {
		t.Fatalf("t_R = 10 ns, the lower limit: %v", err)
	}
}

// The paper's values written out are the paper's experiment; a changed one is a what-if
// that names itself.
func TestKnobsWhatIf(t *testing.T) {
	paper := Knobs{TRead: 3 * unit.Microsecond, TProg: 100 * unit.Microsecond, PageSize: 4 * unit.KiB, LinkBandwidth: 1.6 * unit.TBps}
	changed := paper
	changed.LinkBandwidth = 0.8 * unit.TBps
	for _, c := range []struct {
		k    Knobs
		want string
	}{{paper, ""}, {changed, "what-if: link 1.6 -> 0.8 TB/s"}} {
		points := Sweep([]summary.Case{{Model: "qwen3-235b-a22b", System: "relay-only", Batch: 1, Prompt: 64, Output: 2, Modify: c.k.Apply()}})
		if got := points[0].WhatIf.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.k, got, c.want)
		}
	}
}

// A traced run off the paper's parts names its change in the route figure.
func TestTraceWhatIf(t *testing.T) {
	r, err := Trace(summary.Case{Model: "qwen3-235b-a22b", System: "dash", Batch: 1, Prompt: 64, Output: 2,
		Modify: TRead(8 * unit.Microsecond)}, 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.WhatIf.String(); got != "what-if: t_R 3 -> 8 µs" {
		t.Errorf("what-if %q", got)
	}
	fig, err := charts.RouteFigure("t", []charts.NamedResult{r})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fig.Caption, "t_R 3 -> 8 µs") {
		t.Errorf("caption %q", fig.Caption)
	}
}
