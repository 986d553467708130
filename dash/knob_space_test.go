package dash_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
)

// testRack is a spec of another package, as package cluster's are.
type testRack struct {
	Name  string `yaml:"name" knob:"-"`
	Racks int    `yaml:"racks" knob:"| racks of the test | 1..64 | a test"`
	Port  struct {
		Rate    unit.BytesPerSecond `yaml:"rate" knob:"port | a port's rate | 1 MB/s..1000 TB/s | a test | faster"`
		Latency unit.Duration       `yaml:"latency" knob:"| a port's latency | 0ns..1s | a test | slower"`
	} `yaml:"port"`
	Inline testInline `yaml:",inline"`
}

type testInline struct {
	Kind string `yaml:"test_kind" knob:"| the kind | ring, tree | a test"`
}

func init() {
	dash.MustRegisterKnobs(dash.KnobSpace{Name: "test rack", Type: reflect.TypeFor[testRack](), Prefix: "rack.",
		Rules: map[string]func(any, any){"rack.racks": func(p any, v any) {
			r := p.(*testRack)
			r.Racks = v.(int)
			r.Name = "resized"
		}}})
}

// A registered space's knobs are rows of the one table: looked up, set as
// settings beside dash's own, range-checked, diffed, read from overrides.
func TestKnobSpaces(t *testing.T) {
	for _, p := range []string{"rack.racks", "rack.port.rate", "rack.port.latency", "rack.test_kind"} {
		k, err := dash.LookupKnob(p)
		if err != nil || k.Space() != "test rack" {
			t.Fatalf("%s: %v %v", p, k.Space(), err)
		}
	}
	if k, _ := dash.LookupKnob("rack.port.rate"); k.Label() != "port" || k.Larger != dash.Faster || k.Unit() != "B/s" {
		t.Errorf("rate knob: %q %v %q", k.Label(), k.Larger, k.Unit())
	}
	if n := len(dash.KnobsOf(testRack{})); n != 4 {
		t.Errorf("KnobsOf: %d knobs", n)
	}
	var r testRack
	sys := reference.MustSystem("dash")
	err := dash.ApplySettings(dash.KnobTarget{System: &sys, Parts: []any{&r}},
		dash.Setting{Path: "rack.racks", Value: "4"}, dash.Setting{Path: "rack.port.rate", Value: "450 GB/s"},
		dash.Setting{Path: "hbf.t_read", Value: "5us"}, dash.Setting{Path: "rack.test_kind", Value: "ring"})
	if err != nil || r.Racks != 4 || r.Name != "resized" || r.Port.Rate != 450*unit.GBps || r.Inline.Kind != "ring" || sys.HBF.TRead != 5*unit.Microsecond {
		t.Errorf("applied: %+v, t_R %v, %v", r, sys.HBF.TRead, err)
	}
	if err := dash.ApplySettings(dash.KnobTarget{System: &sys}, dash.Setting{Path: "rack.racks", Value: "4"}); err == nil || !strings.Contains(err.Error(), "no test rack to set it in") {
		t.Errorf("no part: %v", err)
	}
	if _, err := reference.Experiment("qwen3-235b-a22b", "dash").Set("rack.racks", 2).Build(); err == nil || !strings.Contains(err.Error(), "not of a single-GPU experiment") {
		t.Errorf("a space knob on a single-GPU builder: %v", err)
	}
	bad := r
	bad.Racks, bad.Inline.Kind = 0, "star"
	err = dash.CheckKnobs(&bad)
	var re *dash.RangeError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "rack.racks = 0: outside the plausible range 1 .. 64") || !strings.Contains(err.Error(), `rack.test_kind = "star": must be ring or tree`) {
		t.Errorf("range checks: %v", err)
	}
	if err := dash.CheckKnobs(r); err != nil {
		t.Errorf("in range: %v", err)
	}
	faster := r
	faster.Port.Rate = 900 * unit.GBps
	ch := dash.DiffKnobs(r, faster)
	if len(ch) != 1 || ch[0].String() != "port 450 -> 900 GB/s" {
		t.Errorf("diff: %v", ch)
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("{rack: {port: {rate: 1 TB/s}}, hbf.t_read: 2us, rack.racks: 3}"), &n); err != nil {
		t.Fatal(err)
	}
	set, err := dash.OverrideSettings(n.Content[0])
	if err != nil || len(set) != 3 || set[0].String() != "rack.port.rate=1 TB/s" || set[1].String() != "hbf.t_read=2µs" {
		t.Errorf("overrides: %v %v", set, err)
	}
	f := dash.ExperimentFile{Model: "qwen3-235b-a22b", System: "dash", Overrides: *n.Content[0]}
	if _, err := f.SystemSpec("test", reference.System); err == nil || !strings.Contains(err.Error(), "rack.port.rate: a knob of the test rack") {
		t.Errorf("a space knob in a single-GPU file: %v", err)
	}
	rest, taken, err := f.SplitOverrides(func(k dash.Knob) bool { return k.Space() == "test rack" })
	if err != nil || len(taken) != 2 {
		t.Fatalf("split: %v %v", taken, err)
	}
	s, err := rest.SystemSpec("test", reference.System)
	if err != nil || s.HBF.TRead != 2*unit.Microsecond {
		t.Errorf("the memory-system part: %v %v", s.HBF.TRead, err)
	}
	for _, c := range []struct {
		s    dash.KnobSpace
		want string
	}{
		{dash.KnobSpace{Name: "twice", Type: reflect.TypeFor[testRack]()}, "registered twice"},
		{dash.KnobSpace{Name: "clash", Type: reflect.TypeFor[struct {
			T unit.Duration `yaml:"t_read" knob:"| clash | 0ns..1s | a test"`
		}](), Prefix: "hbf."}, "hbf.t_read (T) is already in the table"},
		{dash.KnobSpace{Name: "untagged", Type: reflect.TypeFor[struct {
			N int `yaml:"n"`
		}]()}, "has no knob tag"},
		{dash.KnobSpace{Name: "rule", Type: reflect.TypeFor[struct {
			N int `yaml:"n2" knob:"| n | 0..1 | a test"`
		}](), Rules: map[string]func(any, any){"n3": nil}}, "a rule or symbol for n3"},
	} {
		if err := dash.RegisterKnobs(c.s); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.s.Name, err, c.want)
		}
	}
	if _, err := dash.LookupKnob("n2"); err == nil {
		t.Errorf("a refused space left a knob")
	}
}
