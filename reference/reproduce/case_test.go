package reproduce

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// A case is data: it encodes to JSON and back to the same experiment, as a sweep point
// does, so that cases can be stored, resumed or sharded.
func TestCasesAreData(t *testing.T) {
	cases := []summary.Case{
		Fig9Case("qwen3-235b-a22b", "dash", 4, 1024, 128, dash.ReadingPaper),
		Fig9Case("mixtral-8x22b", "relay-only", 1, 512, 16, dash.ReadingPhysical),
		{Model: "llama4-maverick", System: "dash", Batch: 1, Prompt: 4096, Output: 64, Reading: dash.ReadingPaper,
			Knobs: []dash.Setting{knob("execution.lookahead", true), knob("hbf.page_size", 16*unit.KiB), knob("link.usable", 0.8*unit.TBps),
				knob("hbf.t_prog", unit.Duration(1))},
			Sim: sim.Options{DecodeSample: 16}},
		{Model: "deepseek-v2", System: "dash", Batch: 1, Prompt: 4096, Output: 128,
			Knobs: []dash.Setting{knob("hbf.t_read", 32*unit.Microsecond), knob("execution.early_delivery", true)},
			Sim:   sim.Options{Trace: &sim.TraceSpec{Pass: 1, Layer: 3}}},
	}
	b, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	var back []summary.Case
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, cases) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", back, cases)
	}
	for i, c := range cases {
		want, err := Build(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Build(back[i])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.System(), want.System()) || got.Execution() != want.Execution() || !reflect.DeepEqual(got.Workload(), want.Workload()) {
			t.Errorf("%s: another experiment after the round trip", c)
		}
	}
	// the knobs are applied: the builder's typed methods give the same experiment
	c := cases[2]
	typed, err := reference.Experiment(c.Model, c.System).Batch(c.Batch).Prompt(c.Prompt).Output(c.Output).Reading(c.Reading).
		Lookahead(true).PageSize(16 * unit.KiB).LinkBandwidth(0.8 * unit.TBps).TProg(1).Build()
	if err != nil {
		t.Fatal(err)
	}
	data, err := Build(c)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(typed.System(), data.System()) || typed.Execution() != data.Execution() {
		t.Errorf("knobs as data differ from the typed builder:\n%+v\n%+v", data.System(), typed.System())
	}
}
