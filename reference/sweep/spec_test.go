package sweep

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

func TestSpecErrors(t *testing.T) {
	base := "name: bad\nbase: {model: qwen3-235b-a22b, system: dash, workload: {batch: 4, prompt: 1024, output: 128}}\n"
	cases := []struct {
		name, spec string
		want       []string
	}{
		{"unknown path", "axes: [{path: overrides.hbf.t_reed, values: [3us]}]",
			[]string{"axis 1 (overrides.hbf.t_reed)", `path "overrides.hbf.t_reed": no such knob (did you mean overrides.hbf.t_read?)`}},
		{"unknown top path", "axes: [{path: workload.batchsize, values: [1]}]",
			[]string{"axis 1 (workload.batchsize)", `unknown field "batchsize" in workload`}},
		{"wrong unit", "axes: [{path: overrides.hbf.t_read, values: [3us, 4 GB]}]",
			[]string{"axis 1 (overrides.hbf.t_read)", `value "4 GB"`, "unit"}},
		{"missing unit", "axes: [{path: overrides.link.usable, values: [1.6]}]",
			[]string{"axis 1 (overrides.link.usable)", `value "1.6"`, "needs a unit"}},
		{"empty axis", "axes: [{path: workload.batch, values: []}]",
			[]string{"axis 1 (workload.batch)", "empty"}},
		{"no axes", "axes: []", []string{"axes: none given"}},
		{"not an integer", "axes: [{path: workload.batch, values: [four]}]",
			[]string{"axis 1 (workload.batch)", `value "four"`, "integer"}},
		{"invalid value", "axes: [{path: overrides.hbf.t_read, values: [3us, 0us]}]",
			[]string{`axis overrides.hbf.t_read value "0ns"`, "hbf.t_read", "outside the plausible range 10ns .. 10s"}},
		{"unknown model", "axes: [{path: model, values: [qwen3-235b-a22b, gpt-5]}]",
			[]string{`axis model: value "gpt-5"`, `unknown model "gpt-5"`}},
		{"unknown system", "axes: [{path: system, values: [dash, dash-x]}]",
			[]string{`axis system: value "dash-x"`, "unknown system"}},
		{"duplicate value", "axes: [{path: overrides.hbf.t_read, values: [3us, 3000ns]}]",
			[]string{`value "3µs" appears twice`}},
		{"range without unit", "axes: [{path: overrides.hbf.t_read, range: {from: 1, to: 8us, factor: 2}}]",
			[]string{"range: from", "needs a unit"}},
		{"range two steps", "axes: [{path: workload.batch, range: {from: 1, to: 8, factor: 2, count: 3}}]",
			[]string{"exactly one of step, factor or count"}},
		{"range on a string", "axes: [{path: system, range: {from: 1, to: 8, step: 1}}]",
			[]string{"range: the field holds a string"}},
		{"zip lengths", "axes: [{path: workload.batch, values: [1, 2]}, {path: workload.output, values: [16]}]\nzip: [[workload.batch, workload.output]]",
			[]string{"zip group 1", "workload.output", "has 1 values"}},
		{"zip unknown", "axes: [{path: workload.batch, values: [1, 2]}]\nzip: [[workload.batch, workload.prompt]]",
			[]string{`"workload.prompt" is not an axis`}},
		{"where not an axis", "axes: [{path: workload.batch, values: [1, 2]}]\nwhere: [workload.prompt < 4]",
			[]string{"where 1", "workload.prompt is not an axis"}},
		{"where bad op", "axes: [{path: system, values: [dash]}]\nwhere: [system < dash]",
			[]string{"only == and != compare it"}},
		{"where drops all", "axes: [{path: workload.batch, values: [1, 2]}]\nwhere: [workload.batch > 4]",
			[]string{"no point meets every condition"}},
		{"unknown key", "axes: [{path: workload.batch, values: [1]}]\nfilters: [x]",
			[]string{`unknown field "filters"`}},
		{"unknown axis key", "axes: [{path: workload.batch, value: [1]}]",
			[]string{`unknown field "value"`}},
		{"bad point", "axes: [{path: workload.prompt, values: [1024, 32768]}, {path: workload.output, values: [128, 16384]}]",
			[]string{"point {workload.prompt=32768, workload.output=16384}", "max_context"}},
		{"unknown kind", "kind: magic\naxes: [{path: workload.batch, values: [1]}]", []string{`kind "magic": unknown`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := DecodeSpec(strings.NewReader(base+c.spec), "bad.yaml", ".")
			if err == nil {
				_, err = s.Compile()
			}
			if err == nil {
				t.Fatalf("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestSpecPoints(t *testing.T) {
	p := compileYAML(t, `
base: {model: qwen3-235b-a22b, system: dash, workload: {batch: 4, prompt: 1024, output: 128}}
axes:
  - {path: overrides.hbf.page_size, values: [4 KiB, 8 KiB, 16 KiB]}
  - {path: overrides.hbf.sram.region_size, values: [8 MiB, 16 MiB, 32 MiB]}
  - {path: overrides.hbf.t_read, range: {from: 1us, to: 4us, step: 1us}}
  - {path: workload.batch, range: {from: 1, to: 64, factor: 4}}
zip: [[overrides.hbf.page_size, overrides.hbf.sram.region_size]]
where: ["workload.batch <= 16", "overrides.hbf.t_read != 2us"]
`)
	if got, want := p.Len(), 3*3*3; got != want {
		t.Fatalf("points = %d, want %d", got, want)
	}
	pt, err := p.Point(4)
	if err != nil {
		t.Fatal(err)
	}
	// first axis slowest: point 4 = page 4 KiB, t_R 3us (2us dropped), B = 4
	if got := strings.Join(pt.Labels, " "); got != "4 KiB 8 MiB 3µs 4" {
		t.Errorf("point 4 labels = %q", got)
	}
	if pt.System.HBF.PageSize.String() != "4 KiB" || pt.File.Workload.Batch != 4 || pt.System.HBF.TRead.String() != "3µs" {
		t.Errorf("point 4 not applied: %+v", pt.System.HBF)
	}
	last, _ := p.Point(p.Len() - 1)
	if last.System.HBF.SRAM.RegionSize.String() != "32 MiB" || last.System.HBF.PageSize.String() != "16 KiB" {
		t.Errorf("zip not applied: %+v", last.System.HBF)
	}
	// keys are stable and distinct
	seen := map[string]bool{}
	for i := range p.Len() {
		pt, _ := p.Point(i)
		if seen[pt.Key] {
			t.Fatalf("key %s twice", pt.Key)
		}
		seen[pt.Key] = true
	}
	q := compileYAML(t, `
base: {model: qwen3-235b-a22b, system: dash, workload: {batch: 4, prompt: 1024, output: 128}}
axes:
  - {path: overrides.hbf.page_size, values: [4 KiB, 8 KiB, 16 KiB]}
  - {path: overrides.hbf.sram.region_size, values: [8 MiB, 16 MiB, 32 MiB]}
  - {path: overrides.hbf.t_read, values: [3 us, 1us]}
  - {path: workload.batch, values: [4]}
zip: [[overrides.hbf.page_size, overrides.hbf.sram.region_size]]
`)
	qp, _ := q.Point(0)
	if qp.Key != pt.Key {
		t.Errorf("the same point in another sweep has key %s, want %s", qp.Key, pt.Key)
	}
}

func TestBuilderMatchesYAML(t *testing.T) {
	p, err := New(Base("qwen3-235b-a22b", "dash")).
		Axis("model", "qwen3-235b-a22b", "llama4-maverick").
		Axis("system", "dash", "compact-dash").
		Geometric("overrides.hbf.t_read", "3us", "12us", 2).
		Compile()
	if err != nil {
		t.Fatal(err)
	}
	y := compileYAML(t, smallSpec)
	if p.Len() != y.Len() {
		t.Fatalf("builder %d points, YAML %d", p.Len(), y.Len())
	}
	for i := range p.Len() {
		a, _ := p.Point(i)
		b, _ := y.Point(i)
		if a.Key != b.Key {
			t.Errorf("point %d: builder key %s, YAML key %s", i, a.Key, b.Key)
		}
	}
	if _, err := New(Base("qwen3-235b-a22b", "dash")).Axis("overrides.hbf.t_read", "3us", "3 lightyears").Compile(); err == nil ||
		!strings.Contains(err.Error(), "overrides.hbf.t_read") {
		t.Errorf("bad builder value: %v", err)
	}
}

// The knobs with a rule follow it in a sweep as in the builder: the page
// size sizes the SRAM regions, the link rate scales the lane rate, the
// reading sets the read pipeline; a field set beside them keeps its value.
func TestKnobRules(t *testing.T) {
	p := compileYAML(t, `
base: {model: qwen3-235b-a22b, system: dash, workload: {batch: 4, prompt: 1024, output: 128}, overrides: {hbf: {reading: paper}}}
axes:
  - {path: overrides.hbf.page_size, values: [4 KiB, 16 KiB]}
  - {path: overrides.link.usable, values: [1.6 TB/s, 3.2 TB/s]}
`)
	pt, _ := p.Point(3)
	h, l := pt.System.HBF, pt.System.Link
	if h.PageSize.String() != "16 KiB" || h.SRAM.RegionSize != h.PageWave() || pt.System.HBM.RelaySRAM.RegionSize != h.PageWave()/2 {
		t.Errorf("page-size knob: %+v", h)
	}
	if l.Usable.String() != "3.2 TB/s" || l.GTPerSecond != 128 {
		t.Errorf("link knob: %+v", l)
	}
	if h.ReadWavesInFlight != dash.ReadWavesUnbounded {
		t.Errorf("reading knob: read_waves_in_flight = %v", h.ReadWavesInFlight)
	}
	p = compileYAML(t, `
base: {model: qwen3-235b-a22b, system: dash, workload: {batch: 4, prompt: 1024, output: 128}}
axes:
  - {path: overrides.hbf.sram.region_size, values: [64 MiB]}
  - {path: overrides.hbf.page_size, values: [16 KiB]}
`)
	if pt, _ := p.Point(0); pt.System.HBF.SRAM.RegionSize != 64*unit.MiB || pt.System.HBM.RelaySRAM.RegionSize != pt.System.HBF.PageWave()/2 {
		t.Errorf("page size beside an explicit region: %+v", pt.System)
	}
	for _, bad := range []struct{ spec, want string }{
		{"axes: [{path: overrides.hbf.reading, values: [paper, sideways]}]", `reading "sideways": want paper, physical or serial`},
		{"axes: [{path: overrides.hbf.page_size, values: [4 KiB, -4 KiB]}]", "hbf.page_size = -4 KiB"},
		{"axes: [{path: knobs.page_size, values: [4 KiB]}]", "the knobs section is gone: every knob is an override path (overrides.hbf.page_size"},
		{"knobs: {reading: paper}\naxes: [{path: workload.batch, values: [1]}]", "the knobs section is gone"},
		{"axes: [{path: overrides.hbf.sram, values: [1]}]", `path "overrides.hbf.sram": a section; name one of its knobs (overrides.hbf.sram.regions`},
		{"axes: [{path: overrides.workload.batch, values: [1]}]", "workload.batch is not a memory-system knob"},
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

// Builder.Set writes a knob into the base's overrides, for every point.
func TestBuilderSet(t *testing.T) {
	p, err := New(Base("qwen3-235b-a22b", "dash")).Set("link.usable", 0.8*unit.TBps).Set("hbf.reading", dash.ReadingPaper).
		Axis("overrides.hbf.page_size", "4 KiB", "8 KiB").Compile()
	if err != nil {
		t.Fatal(err)
	}
	pt, _ := p.Point(1)
	if s := pt.System; s.Link.Usable != 0.8*unit.TBps || s.Link.GTPerSecond != 32 || s.HBF.Reading() != dash.ReadingPaper || s.HBF.SRAM.RegionSize != 16*unit.MiB {
		t.Errorf("point %+v", s)
	}
	for _, c := range []struct {
		path string
		v    any
		want string
	}{{"link.usable", 0.8, "want a unit.BytesPerSecond"}, {"workload.batch", 4, "not a memory-system knob"}, {"hbf.t_raed", "3us", "did you mean hbf.t_read?"}} {
		if _, err := New(Base("qwen3-235b-a22b", "dash")).Set(c.path, c.v).Axis("workload.batch", 1).Compile(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Set(%s, %v): %v, want %q", c.path, c.v, err, c.want)
		}
	}
}
