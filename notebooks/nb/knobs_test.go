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

// build builds a case with the knobs as its data; a knob that is no setting fails first.
func build(k Knobs) error {
	ss, err := k.Settings()
	if err != nil {
		return err
	}
	_, err = Build(summary.Case{Model: "qwen3-235b-a22b", System: "dash", Batch: 4, Prompt: 1024, Output: 128, Knobs: ss})
	return err
}

func settings(t *testing.T, k Knobs) []dash.Setting {
	t.Helper()
	ss, err := k.Settings()
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

// A value written without its unit, or a misspelled path, is refused with a message
// naming the path, the value and what was meant.
func TestKnobsRefuseValuesWithoutUnits(t *testing.T) {
	for _, c := range []struct {
		k     Knobs
		want  []string
		typed bool // a *dash.RangeError (else a *dash.ValueError)
	}{
		{Knobs{"hbf.t_read": 3}, []string{"hbf.t_read = 3 (int)", "did you mean 3 * unit.Microsecond (3µs)?"}, false},
		{Knobs{"hbf.t_read": unit.Duration(3)}, []string{"hbf.t_read = 3ns", "10ns .. 10s", "did you mean 3µs"}, true},
		{Knobs{"hbf.page_size": unit.Bytes(4)}, []string{"hbf.page_size = 4 B", "in bytes"}, true},
		{Knobs{"link.usable": 1.6}, []string{"link.usable = 1.6 (float64)", "1.6 * unit.TBps"}, false},
		{Knobs{"link.usable": 0.5 * unit.GBps}, []string{"link.usable", "1 GB/s"}, true},
		{Knobs{"hbf.t_read": -3 * unit.Microsecond}, []string{"hbf.t_read = -3µs"}, true},
		{Knobs{"hbf.t_raed": 3 * unit.Microsecond}, []string{"hbf.t_raed: no such knob (did you mean hbf.t_read?)"}, false},
	} {
		err := build(c.k)
		if err == nil {
			t.Errorf("%v: built, want refused", c.k)
			continue
		}
		var re *dash.RangeError
		var ve *dash.ValueError
		if c.typed && !errors.As(err, &re) || !c.typed && !errors.As(err, &ve) {
			t.Errorf("%v: %v (%T) is not the error type wanted", c.k, err, err)
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not say %q", c.k, err, w)
			}
		}
	}
}

func TestKnobsWithUnitsBuild(t *testing.T) {
	k := Knobs{"hbf.t_read": 3 * unit.Microsecond, "hbf.t_prog": 100 * unit.Microsecond, "hbf.page_size": 4 * unit.KiB, "link.usable": 1.6 * unit.TBps}
	if err := build(k); err != nil {
		t.Fatal(err)
	}
	if err := build(Knobs{"hbf.t_read": 10 * unit.Nanosecond}); err != nil {
		t.Fatalf("t_R = 10 ns, the lower limit: %v", err)
	}
	// any knob of the table, text with its unit too
	exp, err := Build(summary.Case{Model: "qwen3-235b-a22b", System: "dash", Batch: 4, Prompt: 1024, Output: 128,
		Knobs: settings(t, Knobs{"hbf.reading": dash.ReadingPaper, "execution.launch_only_overhead": true, "hbf.tsv_bandwidth": "6.4 TB/s"})})
	if err != nil {
		t.Fatal(err)
	}
	if exp.System().HBF.Reading() != dash.ReadingPaper || !exp.Execution().LaunchOnlyOverhead || exp.System().HBF.TSVBandwidth != 6.4*unit.TBps {
		t.Errorf("knobs not applied: %+v %+v", exp.System().HBF, exp.Execution())
	}
}

// The paper's values written out are the paper's experiment; a changed one is a what-if
// that names itself.
func TestKnobsWhatIf(t *testing.T) {
	paper := Knobs{"hbf.t_read": 3 * unit.Microsecond, "hbf.t_prog": 100 * unit.Microsecond, "hbf.page_size": 4 * unit.KiB, "link.usable": 1.6 * unit.TBps}
	changed := Knobs{}
	for p, v := range paper {
		changed[p] = v
	}
	changed["link.usable"] = 0.8 * unit.TBps
	for _, c := range []struct {
		k    Knobs
		want string
	}{{paper, ""}, {changed, "what-if: link 1.6 -> 0.8 TB/s"}} {
		points := Sweep([]summary.Case{{Model: "qwen3-235b-a22b", System: "relay-only", Batch: 1, Prompt: 64, Output: 2, Knobs: settings(t, c.k)}})
		if got := points[0].WhatIf.String(); got != c.want {
			t.Errorf("%v: %q, want %q", c.k, got, c.want)
		}
	}
}

// The parameter help is the knob table's rows: the value set, the paper's value, the
// unit, the range and the source.
func TestKnobsHelp(t *testing.T) {
	md := Knobs{"hbf.t_read": 8 * unit.Microsecond, "link.usable": 1.6}.HelpMarkdown()
	for _, want := range []string{
		"| `hbf.t_read` | t_R | 8µs | 3µs | duration | 10ns .. 10s | §VI-A",
		"| `link.usable` | link | refused: link.usable = 1.6 (float64)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("help has no %q:\n%s", want, md)
		}
	}
}

// A traced run off the paper's parts names its change in the route figure.
func TestTraceWhatIf(t *testing.T) {
	r, err := Trace(summary.Case{Model: "qwen3-235b-a22b", System: "dash", Batch: 1, Prompt: 64, Output: 2,
		Knobs: settings(t, Knobs{}.With("hbf.t_read", 8*unit.Microsecond))}, 1, 3)
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
