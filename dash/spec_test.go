package dash_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
)

func TestStrictYAML(t *testing.T) {
	for _, c := range []struct {
		name, yaml string
		want       []string // substrings of the error
	}{
		{"unknown field", "model: qwen3-235b-a22b\nworkload: {batch: 4, prompt: 16, output: 4, batchsize: 3}\n",
			[]string{"line 2", `unknown field "batchsize"`}},
		{"unknown override", "model: qwen3-235b-a22b\noverrides:\n  hbf: {t_raed: 3us}\nworkload: {batch: 1, prompt: 16, output: 4}\n",
			[]string{"overrides: line 3: hbf.t_raed: no such knob (did you mean hbf.t_read?)"}},
		{"wrong type", "model: qwen3-235b-a22b\nworkload: {batch: four, prompt: 16, output: 4}\n",
			[]string{"line 2", "four"}},
		{"missing unit", "model: qwen3-235b-a22b\noverrides:\n  hbf: {t_read: 3}\nworkload: {batch: 1, prompt: 16, output: 4}\n",
			[]string{"needs a unit"}},
		{"negative bandwidth", "model: qwen3-235b-a22b\noverrides:\n  link: {usable: -1.6 TB/s}\nworkload: {batch: 1, prompt: 16, output: 4}\n",
			[]string{"link.usable = -1.6 TB/s: outside the plausible range 1 GB/s .. 1000 TB/s"}},
		{"zero stacks", "model: qwen3-235b-a22b\noverrides:\n  topology: {pairs: 0}\nworkload: {batch: 1, prompt: 16, output: 4}\n",
			[]string{"topology.pairs = 0: outside the plausible range 1 .. 64"}},
		{"no model", "system: dash\nworkload: {batch: 1, prompt: 16, output: 4}\n",
			[]string{"model: set a catalogue id"}},
		{"unknown system", "model: qwen3-235b-a22b\nsystem: dosh\n", []string{`unknown system "dosh"`}},
		{"unknown model", "model: qwen4\nworkload: {batch: 1, prompt: 16, output: 4}\n", []string{`unknown model "qwen4"`}},
		{"bad batch", "model: qwen3-235b-a22b\nworkload: {batch: 0, prompt: 16, output: 4}\n",
			[]string{"workload.batch = 0: outside the plausible range 1 .. 65536"}},
		{"beyond context", "model: grok-1\nworkload: {batch: 1, prompt: 8000, output: 500}\n",
			[]string{"exceeds model grok-1 max_context 8192"}},
		{"two documents", "model: qwen3-235b-a22b\n---\nmodel: grok-1\n", []string{"more than one YAML document"}},
		{"empty", "", []string{"empty document"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := reference.DecodeExperiment(strings.NewReader(c.yaml), "test.yaml", ".")
			if err == nil {
				t.Fatalf("accepted:\n%s", c.yaml)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestValidationNamesFieldAndValue(t *testing.T) {
	s, _ := reference.System("dash")
	s.HBF.TRead = -3 * unit.Microsecond
	s.HBM.Capacity = 0
	s.Link.Modules = 0
	err := s.Validate()
	for _, want := range []string{"hbf.t_read = -3µs: outside the plausible range 10ns .. 10s", "hbm.capacity = 0 B: outside the plausible range 1 MB .. 1000 TB", "link.modules = 0"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not contain %q", err, want)
		}
	}
	m := reference.MustModel("deepseek-v3")
	m.FFN.TopK = 300
	m.Attention.Kind = "mha"
	err = m.Validate()
	for _, want := range []string{"ffn.top_k = 300: exceeds ffn.routed_experts (256)", `attention.kind = "mha"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not contain %q", err, want)
		}
	}
}

func TestCapacityError(t *testing.T) {
	for _, c := range []struct {
		model, system string
		want          []string
	}{
		{"llama4-maverick", "compact-dash", []string{"model llama4-maverick does not fit system compact-dash", "801.4", "512 GB available"}},
		{"deepseek-v3", "compact-dash", []string{"deepseek-v3 does not fit", "688.5"}},
		{"glm-5", "dash", []string{"glm-5 does not fit system dash", "1.024 TB available"}},
	} {
		_, err := reference.Experiment(c.model, c.system).Build()
		if err == nil {
			t.Errorf("%s on %s: built", c.model, c.system)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s on %s: error %q does not contain %q", c.model, c.system, err, w)
			}
		}
	}
	// It fits with four pairs.
	if _, err := reference.Experiment("glm-5", "dash-4").Build(); err != nil {
		t.Errorf("glm-5 on dash-4: %v", err)
	}
}

func TestBuilderImmutability(t *testing.T) {
	base := reference.Experiment("qwen3-235b-a22b", "dash").Batch(4)
	a, err := base.Build()
	if err != nil {
		t.Fatal(err)
	}
	// Forking the builder does not change the base or what it built.
	b, err := base.Batch(16).TRead(10 * unit.Microsecond).Build()
	if err != nil {
		t.Fatal(err)
	}
	if a.Workload().Batch != 4 || a.System().HBF.TRead != 3*unit.Microsecond {
		t.Errorf("built experiment changed: %+v %v", a.Workload(), a.System().HBF.TRead)
	}
	if b.Workload().Batch != 16 || b.System().HBF.TRead != 10*unit.Microsecond {
		t.Errorf("fork lost its settings")
	}
	// Accessors return copies.
	m := a.Model()
	m.Sources[0] = "changed"
	m.FFN.TopK = 1
	s := a.System()
	s.HBF.Dies = 1
	inv := a.Inventory()
	inv.Tensors[0].Shape[0] = 1
	if a.Model().Sources[0] == "changed" || a.Model().FFN.TopK != 8 || a.System().HBF.Dies != 16 || a.Inventory().Tensors[0].Shape[0] == 1 {
		t.Error("mutating an accessor's result changed the experiment")
	}
	// A derived variant leaves the original alone.
	c, err := a.Builder().Pairs(4).Build()
	if err != nil || c.System().Topology.Pairs != 4 || a.System().Topology.Pairs != 2 {
		t.Errorf("Builder variant: %v", err)
	}
	// Errors are recorded, not panicked, and all reported at once.
	_, err = dash.NewExperiment().Modify(nil).Batch(-1).Build()
	for _, want := range []string{"Modify: nil function", "model: not set", "system: not set", "timing: no GPU timing model", "workload.batch = -1"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not contain %q", err, want)
		}
	}
}

func TestShippedExamplesValidate(t *testing.T) {
	files, _ := filepath.Glob("../reference/experiments/*.yaml")
	if len(files) == 0 {
		t.Fatal("no shipped experiments")
	}
	for _, f := range files {
		if _, err := reference.LoadExperiment(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// Overrides are knobs by path, nested or dotted; each bad one is named with
// its line.
func TestOverridesAreKnobs(t *testing.T) {
	exp, err := reference.DecodeExperiment(strings.NewReader("model: qwen3-235b-a22b\nworkload: {batch: 1, prompt: 64, output: 2}\noverrides:\n  hbf.t_read: 4us\n  hbf: {page_size: 8 KiB, reading: paper}\n  link: {usable: 0.8 TB/s}\n"), "ok.yaml", ".")
	if err != nil {
		t.Fatal(err)
	}
	s := exp.System()
	if s.HBF.TRead != 4*unit.Microsecond || s.HBF.SRAM.RegionSize != 16*unit.MiB || s.HBF.Reading() != dash.ReadingPaper || s.Link.GTPerSecond != 32 {
		t.Errorf("overrides not applied: %+v", s)
	}
	_, err = reference.DecodeExperiment(strings.NewReader("model: qwen3-235b-a22b\nworkload: {batch: 1, prompt: 64, output: 2}\noverrides:\n  hbf.t_read: 4\n  link: {modules: 2.5}\n  hbf: {sram: {regionz: 2}}\n"), "bad.yaml", ".")
	for _, want := range []string{
		`hbf.t_read (line 4): "4": a duration needs a unit`,
		`link.modules (line 5): "2.5" is not an integer`,
		"line 6: hbf.sram.regionz: no such knob (did you mean hbf.sram.regions?)",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
}
