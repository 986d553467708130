package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileExperiment is an experiment file body around one hostile part.
func hostileExperiment(part string) string {
	return "name: hostile\nmodel: qwen3-235b-a22b\nsystem: dash\n" + part + "\n"
}

const paperWorkload = "workload: {batch: 4, prompt: 1024, output: 128}"

// hostileFiles are the experiment files of issue 9's table: each must end
// in a clear error, naming the field and the value, from both validate and
// run (they agree).
var hostileFiles = []struct {
	name, yaml string
	want       []string
}{
	{"t_read 100000s", hostileExperiment("overrides: {hbf: {t_read: 100000s}}\n" + paperWorkload),
		[]string{"hbf.t_read = 100000s", "10ns .. 10s"}},
	{"link 1e-3 B/s", hostileExperiment("overrides: {link: {usable: 1e-3 B/s}}\n" + paperWorkload),
		[]string{"link.usable = 0.001 B/s", "1 GB/s .. 1000 TB/s"}},
	{"link 1e-9 B/s", hostileExperiment("overrides: {link: {usable: 1e-9 B/s}}\n" + paperWorkload),
		[]string{"link.usable = 0 B/s"}},
	{"dies 2^62", hostileExperiment("overrides: {hbf: {dies: 4611686018427387904}}\n" + paperWorkload),
		[]string{"hbf.dies = 4611686018427387904", "1 .. 1024"}},
	{"output MaxInt64", hostileExperiment("workload: {batch: 4, prompt: 1024, output: 9223372036854775807}"),
		[]string{"workload.output = 9223372036854775807"}},
	{"prompt MaxInt64", hostileExperiment("workload: {batch: 4, prompt: 9223372036854775807, output: 1}"),
		[]string{"workload.prompt = 9223372036854775807"}},
	{"relay region 1 B", hostileExperiment("overrides: {hbm: {relay_sram: {regions: 1, region_size: 1 B}}}\n" + paperWorkload),
		[]string{"hbm.relay_sram.region_size = 1 B"}},
	{"batch 4.9", hostileExperiment("workload: {batch: 4.9, prompt: 1024, output: 128}"),
		[]string{"workload.batch = 4.9: must be an integer"}},
	{"pairs 10000", hostileExperiment("overrides: {topology: {pairs: 10000}}\n" + paperWorkload),
		[]string{"topology.pairs = 10000", "1 .. 64"}},
	{"model_file /dev/zero", "name: z\nmodel_file: /dev/zero\n" + paperWorkload,
		[]string{"/dev/zero", "input limit"}},
	{"million layers", "name: l\nmodel_file: layers.yaml\n" + paperWorkload,
		[]string{"num_layers = 1000000", "1 .. 100000"}},
}

func writeHostile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, strings.NewReplacer(" ", "_", "/", "_").Replace(name)+".yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHostileExperimentFiles(t *testing.T) {
	dir := t.TempDir()
	model, err := os.ReadFile("../../../notebooks/data/my-moe.yaml")
	if err != nil {
		t.Fatal(err)
	}
	layers := strings.NewReplacer("num_layers: 40", "num_layers: 1000000", `"0-39"`, `"0-999999"`).Replace(string(model))
	writeHostile(t, dir, "layers", layers)
	for _, tc := range hostileFiles {
		p := writeHostile(t, dir, tc.name, tc.yaml)
		for _, cmd := range []string{"validate", "run"} {
			args := []string{cmd, p}
			if cmd == "run" {
				args = []string{cmd, "--file", p}
			}
			code, out, errs := dashlab(args...)
			if code != 1 {
				t.Errorf("%s %s: exit %d, want 1 (stdout %q)", cmd, tc.name, code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("%s %s: error %q lacks %q", cmd, tc.name, errs, w)
				}
			}
		}
	}
	code, _, errs := dashlab("run", "--file", "/dev/zero")
	if code != 1 || !strings.Contains(errs, "input limit") {
		t.Errorf("run --file /dev/zero: exit %d, %q", code, errs)
	}
}

func TestHostileFlags(t *testing.T) {
	file := "../../../reference/experiments/fig9a-qwen3-b4.yaml"
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "--model", "qwen3-235b-a22b", "--batch", "9223372036854775807"}, 1, "workload.batch = 9223372036854775807"},
		{[]string{"run", "--model", "qwen3-235b-a22b", "--system", "dash-10000"}, 1, "pair count = 10000"},
		{[]string{"run", "--model", "qwen3-235b-a22b", "--system", "dash-1000000000"}, 1, "pair count = 1000000000"},
		{[]string{"run", "--file", file, "--model", "grok-1", "--batch", "64", "--set", "hbf.t_read=30us"}, 2, "--batch, --model cannot be combined"},
		{[]string{"run", "--model", "qwen3-235b-a22b", "--set", "hbf.t_read=30"}, 2, `hbf.t_read = "30": "30": a duration needs a unit`},
		{[]string{"run", "--model", "qwen3-235b-a22b", "--set", "hbf.t_raed=30us"}, 2, "hbf.t_raed: no such knob (did you mean hbf.t_read?)"},
		{[]string{"run", "--model", "qwen3-235b-a22b", "--set", "hbf.t_read=3ns"}, 1, "hbf.t_read = 3ns: outside the plausible range 10ns .. 10s"},
		{[]string{"run", "--model", "qwen3-235b-a22b", "--set", "t_read"}, 2, "want PATH=VALUE"},
		{[]string{"run", "--model", "qwen3-235b-a22b", "stray", "--batch", "8"}, 2, `unexpected argument "stray"`},
		{[]string{"run", "--model", "qwen3-235b-a22b", "--max-events", "0"}, 2, "--max-events = 0"},
		{[]string{"run", "--model", "qwen3-235b-a22b", "--max-events", "100"}, 1, "events budget of 100 events exceeded"},
		{[]string{"reproduce", "--workers", "-5"}, 2, "--workers = -5"},
		{[]string{"reproduce", "--workers", "1000000"}, 2, "--workers = 1000000"},
		{[]string{"sweep", "--spec", "x.yaml", "--workers", "1000000"}, 2, "--workers = 1000000"},
		{[]string{"reproduce", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"models", "extra"}, 2, `unexpected argument "extra"`},
	} {
		code, _, errs := dashlab(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("dashlab %s: exit %d, %q; want exit %d with %q", strings.Join(tc.args, " "), code, errs, tc.code, tc.want)
		}
	}
}

// TestRunJSONIsDeterministic runs the same experiment twice: the JSON
// results are identical, byte for byte.
func TestRunJSONIsDeterministic(t *testing.T) {
	args := []string{"run", "--model", "qwen3-235b-a22b", "--output", "8", "--format", "json"}
	c1, a, e1 := dashlab(args...)
	c2, b, e2 := dashlab(args...)
	if c1 != 0 || c2 != 0 {
		t.Fatalf("exit %d/%d: %s %s", c1, c2, e1, e2)
	}
	if a != b {
		t.Error("two runs of the same experiment printed different JSON")
	}
}
