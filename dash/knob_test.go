package dash_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/routing"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
)

// Set a knob by its path, with its unit; a what-if names itself.
func ExampleExperimentBuilder_Set() {
	exp, err := reference.Experiment("qwen3-235b-a22b", "dash").
		Set("hbf.t_read", 10*unit.Microsecond).
		Set("hbf.page_size", 16*unit.KiB). // the SRAM regions follow the page wave
		Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range reference.SystemChanges(exp.System()) {
		fmt.Println(c)
	}
	_, err = reference.Experiment("qwen3-235b-a22b", "dash").Set("hbf.t_read", 10).Build()
	fmt.Println(err)
	// Output:
	// page 4 -> 16 KiB
	// t_R 3 -> 10 µs
	// hbf.t_read = 10 (int): want a unit.Duration (3 * unit.Microsecond, or text "3us"): a number needs its unit: did you mean 10 * unit.Microsecond (10µs)?
}

// leaves lists the paths of every exported leaf field of t by YAML key.
func leaves(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || key == "-" || f.Tag.Get("knob") == "-" {
			continue
		}
		if f.Type.Kind() == reflect.Struct && f.Tag.Get("knob") == "" {
			out = append(out, leaves(f.Type, prefix+key+".")...)
			continue
		}
		out = append(out, prefix+key)
	}
	return out
}

// dashKnobs are the knobs of dash's own specs (not of registered spaces).
func dashKnobs() []dash.Knob {
	var out []dash.Knob
	for _, k := range dash.Knobs() {
		switch k.Space() {
		case "memory system", "workload", "execution switches":
			out = append(out, k)
		}
	}
	return out
}

// Every leaf field of the specs is a knob, in the specs' order, plus the views.
func TestEveryFieldIsAKnob(t *testing.T) {
	want := leaves(reflect.TypeFor[dash.SystemSpec](), "")
	want = append(want, leaves(reflect.TypeFor[dash.WorkloadSpec](), "workload.")...)
	want = append(want, leaves(reflect.TypeFor[dash.ExecutionSpec](), "execution.")...)
	var got []string
	for _, k := range dashKnobs() {
		if k.Path != "hbf.reading" {
			got = append(got, k.Path)
		}
		if k.Doc == "" || k.Unit() == "" {
			t.Errorf("%s: no doc or unit", k.Path)
		}
		if _, err := dash.LookupKnob(k.Path); err != nil {
			t.Errorf("%s: %v", k.Path, err)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("knobs\n%v\nfields\n%v", got, want)
	}
}

// The table's ranges are the limits the rest of the code uses.
func TestKnobRangesMatchLimits(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"topology.pairs", fmt.Sprintf("1 .. %d", dash.MaxPairs)},
		{"hbf.t_read", fmt.Sprintf("%v .. 10s", dash.MinTRead)},
		{"hbf.page_size", fmt.Sprintf("%v .. 1 MiB", dash.MinPageSize)},
		{"hbf.capacity", fmt.Sprintf("1 MB .. %v", dash.MaxStackCapacity)},
		{"hbm.relay_sram.region_size", fmt.Sprintf("%v .. 4 GiB", dash.MinPageSize)},
		{"hbf.pages_per_block", fmt.Sprintf("0 .. %d", dash.MaxPagesPerBlock)},
		{"workload.batch", fmt.Sprintf("1 .. %d", dash.MaxBatch)},
		{"workload.prompt", fmt.Sprintf("1 .. %d", dash.MaxTokens)},
		{"workload.routing.zipf_s", fmt.Sprintf("0 .. %d", dash.MaxZipfS)},
		{"link.gt_per_second", "above 0 .. 100000"},
		{"hbf.read_waves_in_flight", "1 .. 1024 or unbounded"},
		{"workload.routing.kind", "balanced, uniform, zipf, trace or synthetic"},
		{"workload.routing.tasks", fmt.Sprintf("0 .. %d", routing.MaxTasks)},
		{"execution.expert_cache.policy", strings.Join(routing.Policies()[:2], ", ") + " or " + routing.Policies()[2]},
	} {
		k, err := dash.LookupKnob(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := k.Range(); got != c.want {
			t.Errorf("%s: range %q, want %q", c.path, got, c.want)
		}
	}
}

// Every knob's paper value writes as text that reads back to the same value.
func TestKnobTextRoundTrips(t *testing.T) {
	paper := reference.PaperKnobs()
	for _, k := range dashKnobs() {
		text, err := k.Format(paper)
		if err != nil {
			t.Errorf("%s: %v", k.Path, err)
			continue
		}
		v, err := k.Parse(text)
		want, _ := k.Get(paper)
		if err != nil || v != want {
			t.Errorf("%s: %q reads back as %v (%v), want %v", k.Path, text, v, err, want)
		}
		if err := k.Check(want); err != nil {
			t.Errorf("%s: the paper's value %v out of range: %v", k.Path, want, err)
		}
	}
	// a value with no short exact form is written in its base unit
	third := unit.BytesPerSecond(1e12 / 3.0)
	s, err := dash.SettingOf("link.usable", third)
	if err != nil || s.Value != "333333333333.3333 B/s" {
		t.Errorf("setting %v %v", s, err)
	}
}

// The rules of hbf.page_size and link.usable hold wherever the knob is set,
// and a field set beside them keeps its value whatever the order.
func TestKnobRules(t *testing.T) {
	paper := reference.MustSystem("dash")
	for _, order := range [][]dash.Setting{
		{{Path: "hbf.page_size", Value: "16 KiB"}, {Path: "hbf.sram.region_size", Value: "64 MiB"}, {Path: "link.usable", Value: "3.2 TB/s"}, {Path: "link.gt_per_second", Value: "100"}},
		{{Path: "link.gt_per_second", Value: "100"}, {Path: "hbf.sram.region_size", Value: "64 MiB"}, {Path: "link.usable", Value: "3.2 TB/s"}, {Path: "hbf.page_size", Value: "16 KiB"}},
	} {
		s := paper
		if err := dash.ApplySettings(dash.KnobTarget{System: &s}, order...); err != nil {
			t.Fatal(err)
		}
		if s.HBF.PageSize != 16*unit.KiB || s.HBF.SRAM.RegionSize != 64*unit.MiB || s.HBM.RelaySRAM.RegionSize != s.HBF.PageWave()/2 ||
			s.Link.Usable != 3.2*unit.TBps || s.Link.GTPerSecond != 100 {
			t.Errorf("%v: %+v", order, s)
		}
		b, err := dash.NewExperiment().System(paper).With(order...).ResolvedSystem()
		if err != nil || !reflect.DeepEqual(b, s) {
			t.Errorf("builder With: %+v %v, want %+v", b, err, s)
		}
	}
	s := paper
	if err := dash.ApplySettings(dash.KnobTarget{System: &s}, dash.Setting{Path: "link.usable", Value: "0.8 TB/s"}); err != nil || s.Link.GTPerSecond != 32 {
		t.Errorf("link.usable alone: lane rate %v (%v)", s.Link.GTPerSecond, err)
	}
	// A rate <= 0 is link.usable's error alone: the lane rate does not
	// follow it below zero into an error of its own.
	s = paper
	err := dash.ApplySettings(dash.KnobTarget{System: &s}, dash.Setting{Path: "link.usable", Value: "-1 TB/s"})
	if err == nil {
		err = s.Validate()
	}
	if err == nil || !strings.Contains(err.Error(), "link.usable = -1 TB/s: outside") || strings.Contains(err.Error(), "gt_per_second") {
		t.Errorf("link.usable -1 TB/s: %v", err)
	}
}

// Bad settings are refused with the path and the value.
func TestKnobErrors(t *testing.T) {
	for _, c := range []struct {
		text, want string
	}{
		{"hbf.t_read=3", `hbf.t_read = "3": "3": a duration needs a unit`},
		{"hbf.t_read=3 GB", `unknown duration unit "GB"`},
		{"hbf.reading=sideways", `reading "sideways": want paper, physical or serial`},
		{"hbf.reading=custom", `want paper, physical or serial`},
		{"hbf.read_waves_in_flight=some", "want a number of page waves or unbounded"},
		{"topology.pairs=2.5", "topology.pairs"},
		{"hbf.dies=", "want PATH=VALUE"},
		{"workload.batchsize=4", "workload.batchsize: no such knob (did you mean workload.batch?)"},
		{"hbf=4", "hbf: no such knob"},
	} {
		_, err := dash.ParseSetting(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.text, err, c.want)
		}
	}
	_, err := reference.Experiment("qwen3-235b-a22b", "dash").Set("hbf.reading", dash.ReadingCustom).Build()
	var ve *dash.ValueError
	if !errors.As(err, &ve) || ve.Path != "hbf.reading" {
		t.Errorf("custom reading: %v", err)
	}
	_, err = reference.Experiment("qwen3-235b-a22b", "dash").Set("hbf.t_read", 3*unit.Nanosecond).Set("workload.batch", 0).Build()
	var re *dash.RangeError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "hbf.t_read = 3ns: outside the plausible range 10ns .. 10s") ||
		!strings.Contains(err.Error(), "workload.batch = 0: outside the plausible range 1 .. 65536") {
		t.Errorf("ranges: %v", err)
	}
	if err := dash.ApplySettings(dash.KnobTarget{}, dash.Setting{Path: "hbf.t_read", Value: "3us"}); err == nil || !strings.Contains(err.Error(), "no memory system") {
		t.Errorf("no system: %v", err)
	}
}

// Zero is never the paper's value: a read pipeline of depth 0 is refused, and
// the zero Reading keeps the system's own depth.
func TestZeroIsNotThePaper(t *testing.T) {
	s := reference.MustSystem("dash")
	s.HBF.ReadWavesInFlight = 0
	if err := s.Validate(); err == nil || !strings.Contains(err.Error(), "hbf.read_waves_in_flight = 0: outside the plausible range 1 .. 1024 or unbounded") {
		t.Errorf("depth 0: %v", err)
	}
	for _, d := range []dash.WaveDepth{1, 4, dash.ReadWavesUnbounded} {
		sys, err := reference.Experiment("qwen3-235b-a22b", "dash").ReadWaves(d).Reading(dash.ReadingSystem).ResolvedSystem()
		if err != nil || sys.HBF.ReadWavesInFlight != d {
			t.Errorf("depth %v, then ReadingSystem: %v %v", d, sys.HBF.ReadWavesInFlight, err)
		}
	}
	var zero dash.Reading
	if zero != dash.ReadingSystem || zero.String() != "system" {
		t.Errorf("zero reading %v", zero)
	}
}

// A batch sizes the SRAM regions to the page wave of the organisation given
// with the page size.
func TestKnobRuleSeesTheBatch(t *testing.T) {
	s := reference.MustSystem("dash")
	if err := dash.ApplySettings(dash.KnobTarget{System: &s}, dash.Setting{Path: "hbf.page_size", Value: "8 KiB"}, dash.Setting{Path: "hbf.dies", Value: "32"}); err != nil {
		t.Fatal(err)
	}
	if s.HBF.SRAM.RegionSize != 32*unit.MiB || s.HBF.PageWave() != 32*unit.MiB {
		t.Errorf("regions %v, wave %v", s.HBF.SRAM.RegionSize, s.HBF.PageWave())
	}
}
