package sim

import (
	"reflect"
	"sync"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// Sampled decodes that differ only in their NAND program parameters and
// share their base steps (Options.Samples) give each the result it gives
// alone, run one after another or at once, and take base steps from each
// other; an experiment that differs elsewhere is refused.
func TestDecodeSamplesShared(t *testing.T) {
	progs := []func(dash.ExperimentBuilder) dash.ExperimentBuilder{
		func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b },
		func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.TProg(5 * unit.Millisecond) },
		func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.TProg(1) },
		func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
			return b.Modify(func(s *dash.SystemSpec) {
				s.HBF.ProgramSuspend, s.HBF.TSuspend, s.HBF.TResume = true, 5*unit.Microsecond, 5*unit.Microsecond
			})
		},
	}
	var exps []dash.Experiment
	var alone []Result
	for _, p := range progs {
		small := func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
			return p(b.Modify(func(s *dash.SystemSpec) { s.HBM.Capacity = 2500 * unit.MB }))
		}
		exp := build(t, "qwen3-30b-a3b", "dash", 16, 256, 4096, small)
		exps = append(exps, exp)
		alone = append(alone, run(t, exp, Options{DecodeSample: 4}))
	}
	if alone[0].KV.WritebackWaves == 0 || alone[1].E2E == alone[0].E2E {
		t.Fatalf("the decode must write back and t_PROG move it: %d waves, E2E %v and %v", alone[0].KV.WritebackWaves, alone[0].E2E, alone[1].E2E)
	}
	check := func(how string, got []Result, m *DecodeSamples) {
		t.Helper()
		for i := range got {
			if !sameResult(got[i], alone[i]) {
				t.Errorf("%s, run %d: E2E %v, alone %v (%v differ)", how, i, got[i].E2E, alone[i].E2E, differingFields(got[i], alone[i]))
			}
		}
		if m.Shared() == 0 {
			t.Errorf("%s: no base step shared", how)
		}
	}
	m := NewDecodeSamples(len(exps))
	var serial []Result
	for _, exp := range exps {
		serial = append(serial, run(t, exp, Options{DecodeSample: 4, Samples: m}))
	}
	check("one after another", serial, m)
	if len(m.steps) != 0 {
		t.Errorf("%d base steps kept after every run looked them up", len(m.steps))
	}
	m = NewDecodeSamples(len(exps))
	par := make([]Result, len(exps))
	var wg sync.WaitGroup
	for i, exp := range exps {
		wg.Go(func() { par[i] = run(t, exp, Options{DecodeSample: 4, Samples: m}) })
	}
	wg.Wait()
	check("at once", par, m)

	other := build(t, "qwen3-30b-a3b", "dash", 16, 256, 4096, func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		return b.Modify(func(s *dash.SystemSpec) { s.HBM.Capacity = 2500 * unit.MB }).TRead(4 * unit.Microsecond)
	})
	if _, err := RunWith(other, Options{DecodeSample: 4, Samples: m}); err == nil {
		t.Error("a run with another t_R shared the base steps")
	}
	if _, err := RunWith(exps[0], Options{DecodeSample: 8, Samples: m}); err == nil {
		t.Error("a run sampling every 8th block shared the base steps of one sampling every 4th")
	}
}

// differingFields names the fields of two results that differ (Perf aside).
func differingFields(a, b Result) []string {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	var out []string
	for i := range va.NumField() {
		if f := va.Type().Field(i).Name; f != "Perf" && !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			out = append(out, f)
		}
	}
	return out
}
