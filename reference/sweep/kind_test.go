package sweep

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// loadKind is a stand-in for a serving kind: its own section (swept as
// fake.load), its own metrics and cost.
type loadKind struct{}

type loadParams struct {
	Load     float64 `yaml:"load"`
	Requests int     `yaml:"requests"`
}

func (loadKind) Name() string                    { return "fake-serving" }
func (loadKind) Section() (string, reflect.Type) { return "fake", reflect.TypeFor[loadParams]() }
func (loadKind) Metrics() []string               { return []string{"offered_req_per_s", "batch_x_load"} }
func (loadKind) Cost(p Point) float64            { return float64(p.Params.(*loadParams).Requests) }
func (loadKind) Validate(p Point) error {
	if p.Params.(*loadParams).Load <= 0 {
		return errors.New("fake.load: must be positive")
	}
	return nil
}
func (loadKind) Run(ctx context.Context, p Point) (Outcome, error) {
	l := p.Params.(*loadParams).Load
	if l == 99 { // a long point: runs until interrupted
		<-ctx.Done()
		return Outcome{}, ctx.Err()
	}
	return Outcome{Metrics: []float64{l, l * float64(p.File.Workload.Batch)}}, nil
}

func init() {
	if err := RegisterKind(loadKind{}); err != nil {
		panic(err)
	}
}

func TestPluggedKind(t *testing.T) {
	p := compileYAML(t, `
kind: fake-serving
base: {model: qwen3-235b-a22b, system: dash, workload: {batch: 4, prompt: 1024, output: 128}}
fake: {requests: 100}
axes:
  - {path: fake.load, values: [0.5, 2]}
  - {path: workload.batch, values: [1, 8]}
`)
	tb, err := Collect(context.Background(), p, 2)
	if err != nil {
		t.Fatal(err)
	}
	r, err := tb.Find("fake.load", "2", "workload.batch", "8")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := tb.Metric(r, "batch_x_load"); v != 16 || r.Status != StatusOK {
		t.Errorf("row %+v", r)
	}
	if got := strings.Join(tb.Header.Columns(), ","); !strings.Contains(got, "fake.load,workload.batch,offered_req_per_s,batch_x_load,status") {
		t.Errorf("columns %s", got)
	}
	for _, bad := range []struct{ spec, want string }{
		{"kind: fake-serving\naxes: [{path: fake.lode, values: [1]}]", `unknown field "lode" in fake`},
		{"kind: fake-serving\naxes: [{path: fake.load, values: [1, 0]}]", `fake.load value "0": fake.load: must be positive`},
		{"axes: [{path: fake.load, values: [1]}]", `unknown field "fake"`},
		{"fake: {load: 1}\naxes: [{path: workload.batch, values: [1]}]", `unknown field "fake"`},
		{"axes: [{path: run.decode_sample, values: [0, -2]}]", "run.decode_sample = -2"},
	} {
		s, err := DecodeSpec(strings.NewReader("base: {model: qwen3-235b-a22b, system: dash, workload: {batch: 4, prompt: 1024, output: 128}}\n"+bad.spec), "k.yaml", ".")
		if err == nil {
			_, err = s.Compile()
		}
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: error %v, want %q", bad.spec, err, bad.want)
		}
	}
}

// A point interrupted by Ctrl-C gives no row: it runs again on resume.
func TestInterruptedPointNotWritten(t *testing.T) {
	p := compileYAML(t, `
kind: fake-serving
base: {model: qwen3-235b-a22b, system: dash, workload: {batch: 4, prompt: 1024, output: 128}}
axes: [{path: fake.load, values: [1, 99, 2]}]
`)
	ctx, cancel := context.WithCancel(context.Background())
	var rows []Row
	err := p.Run(ctx, RunOptions{Workers: 1, Progress: func(done, _ int) {
		if done == 1 {
			cancel()
		}
	}}, func(r Row) error { rows = append(rows, r); return nil })
	if !errors.Is(err, context.Canceled) || len(rows) != 1 || rows[0].Values[0] != "1" {
		t.Fatalf("err %v, rows %+v", err, rows)
	}
}
