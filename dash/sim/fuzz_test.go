package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/reference"
)

// fuzzHostile are the experiment files of issue 9's table (with the paper's
// workload where the case does not set one).
var fuzzHostile = []string{
	"overrides: {hbf: {t_read: 100000s}}",
	"overrides: {link: {usable: 1e-3 B/s}}",
	"overrides: {link: {usable: 1e-9 B/s}}",
	"overrides: {hbf: {dies: 4611686018427387904}}",
	"overrides: {hbm: {relay_sram: {regions: 1, region_size: 1 B}}}",
	"overrides: {hbm: {relay_sram: {regions: 2, region_size: 5 MiB}}}",
	"overrides: {topology: {pairs: 10000}}",
	"system: dash-1000000000",
	"model_file: /dev/zero",
	"workload: {batch: 4, prompt: 1024, output: 9223372036854775807}",
	"workload: {batch: 4, prompt: 9223372036854775807, output: 1}",
	"workload: {batch: 9223372036854775807, prompt: 1024, output: 128}",
	"workload: {batch: 4.9, prompt: 1024, output: 128}",
	"workload: {batch: 1, prompt: 1, output: 1}",
}

// FuzzExperimentFile decodes, builds and runs arbitrary experiment files
// under a small budget: every input ends in a result or an error, never a
// panic or a hang, and a result is sane (positive, ordered, finite times;
// conservation per route). Seeds: every shipped experiment file and the
// hostile cases of issue 9.
func FuzzExperimentFile(f *testing.F) {
	files, _ := filepath.Glob("../../reference/experiments/*.yaml")
	files = append(files, "../../notebooks/data/my-experiment.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	for _, h := range fuzzHostile {
		body := "name: hostile\nmodel: qwen3-235b-a22b\n"
		if strings.HasPrefix(h, "model_file") {
			body = "name: hostile\n"
		}
		if !strings.HasPrefix(h, "workload") {
			h += "\nworkload: {batch: 4, prompt: 64, output: 4}"
		}
		f.Add(body + h + "\n")
	}
	f.Fuzz(func(t *testing.T, s string) {
		exp, err := reference.DecodeExperiment(strings.NewReader(s), "fuzz.yaml", "../../notebooks/data")
		if err != nil {
			return
		}
		if !exp.Valid() {
			t.Fatal("nil error with an invalid experiment")
		}
		fuzzRun(t, exp)
	})
}
