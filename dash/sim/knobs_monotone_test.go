package sim

import (
	"reflect"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
)

// knobSteps are values of a numeric knob around the paper's, in increasing
// order: half, the paper's and twice it (a few microseconds for a duration
// that is zero), kept where they are in range; false and true for a switch.
func knobSteps(t *testing.T, k dash.Knob, paper dash.KnobTarget) []any {
	v0, err := k.Get(paper)
	if err != nil {
		t.Fatal(err)
	}
	rv := reflect.ValueOf(v0)
	var steps []any
	add := func(x reflect.Value) {
		if k.Check(x.Interface()) == nil {
			steps = append(steps, x.Interface())
		}
	}
	switch {
	case rv.Kind() == reflect.Bool: // false, then true
		add(reflect.ValueOf(false).Convert(rv.Type()))
		add(reflect.ValueOf(true).Convert(rv.Type()))
	case rv.CanInt() && rv.Int() == 0 && rv.Type() == reflect.TypeFor[unit.Duration]():
		for _, d := range []unit.Duration{0, 2 * unit.Microsecond, 8 * unit.Microsecond} {
			add(reflect.ValueOf(d))
		}
	case rv.CanInt():
		for _, x := range []int64{rv.Int() / 2, rv.Int(), 2 * rv.Int()} {
			add(reflect.ValueOf(x).Convert(rv.Type()))
		}
	case rv.CanFloat():
		for _, x := range []float64{rv.Float() / 2, rv.Float(), 2 * rv.Float()} {
			add(reflect.ValueOf(x).Convert(rv.Type()))
		}
	}
	return steps
}

// TestKnobsMonotone holds every knob of the table that says what a larger
// value does (Knob.Larger: t_R slower, a link's rate faster, ...) to it,
// under both readings, and checks the exact shortcuts against the
// chunk-by-chunk run at its largest value: a new knob with a direction in its tag
// is covered the moment it has one.
func TestKnobsMonotone(t *testing.T) {
	paper := reference.PaperKnobs()
	n := 0
	for _, k := range dash.Knobs() {
		if k.Larger == 0 {
			continue
		}
		steps := knobSteps(t, k, paper)
		if len(steps) < 2 {
			t.Errorf("%s: no two values to compare", k.Path)
			continue
		}
		n++
		t.Logf("%s (larger is %v): %v", k.Path, k.Larger, steps)
		for _, reading := range dash.Readings() {
			var prev Result
			for i, v := range steps {
				exp := build(t, "qwen3-235b-a22b", "dash", 4, 512, 9, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
					return b.Reading(reading).Set(k.Path, v)
				})
				r := run(t, exp, Options{})
				if i == len(steps)-1 { // the shortcuts at the largest value (the others: their own tests)
					if slow := run(t, exp, Options{NoJump: true}); !sameResult(r, slow) {
						t.Errorf("%s = %v, %v reading: the shortcuts change the result: E2E %v vs %v", k.Path, v, reading, r.E2E, slow.E2E)
					}
				}
				if i > 0 {
					worse := r.E2E > prev.E2E || r.TPOT > prev.TPOT
					better := r.E2E < prev.E2E || r.TPOT < prev.TPOT
					if k.Larger == dash.Slower && better || k.Larger == dash.Faster && worse {
						t.Errorf("%s, %v reading: %v gives E2E %v, TPOT %v against %v at %v: a larger value is %v",
							k.Path, reading, v, r.E2E, r.TPOT, prev.E2E, steps[i-1], k.Larger)
					}
				}
				prev = r
			}
		}
	}
	if n == 0 {
		t.Fatal("no knob says what a larger value does")
	}
}
