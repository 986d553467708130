package reference

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"path/filepath"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/internal/safeio"
)

//go:embed experiments/*.yaml
var experimentFiles embed.FS

// Experiment returns a builder holding the catalogue model modelID, the named
// system systemID and the paper's GPU (H100 PCIe, derived from the measured
// H200 profile), with the paper's default workload (4/1K/128). Errors are
// recorded in the builder and reported by Build.
func Experiment(modelID, systemID string) dash.ExperimentBuilder {
	b := dash.NewExperiment().SystemID(systemID)
	if m, err := Model(modelID); err == nil {
		b = b.Model(m)
	}
	if t, err := Timing(DefaultGPU); err == nil {
		b = b.Timing(t)
	}
	return b
}

// LoadExperiment reads an experiment file (see dash.ExperimentFile) and
// builds it, resolving the model, system and GPU ids against the catalogue.
func LoadExperiment(path string) (dash.Experiment, error) {
	data, err := safeio.ReadFile(path)
	if err != nil {
		return dash.Experiment{}, err
	}
	return DecodeExperiment(bytes.NewReader(data), path, filepath.Dir(path))
}

// DecodeExperiment is LoadExperiment on a reader; baseDir resolves a
// relative model_file.
func DecodeExperiment(r io.Reader, source, baseDir string) (dash.Experiment, error) {
	f, err := dash.DecodeExperimentFile(r, source)
	if err != nil {
		return dash.Experiment{}, err
	}
	var m dash.ModelSpec
	if f.ModelFile != "" {
		p := f.ModelFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(baseDir, p)
		}
		data, err := safeio.ReadFile(p)
		if err != nil {
			return dash.Experiment{}, fmt.Errorf("%s: model_file: %w", source, err)
		}
		if err := dash.DecodeStrictBytes(data, p, &m); err != nil {
			return dash.Experiment{}, err
		}
	} else if m, err = Model(f.Model); err != nil {
		return dash.Experiment{}, fmt.Errorf("%s: %w", source, err)
	}
	sys, err := f.SystemSpec(source)
	if err != nil {
		return dash.Experiment{}, err
	}
	t, err := TimingFrom(f.Profile, f.GPU)
	if err != nil {
		return dash.Experiment{}, fmt.Errorf("%s: %w", source, err)
	}
	exp, err := dash.NewExperiment().Name(f.Name).Model(m).System(sys).Timing(t).
		Workload(f.Workload).Execution(f.Execution).Build()
	if err != nil {
		return dash.Experiment{}, fmt.Errorf("%s: %w", source, err)
	}
	return exp, nil
}

// ExampleExperiments lists the shipped example experiment files.
func ExampleExperiments() []string {
	entries, _ := experimentFiles.ReadDir("experiments")
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// ExampleExperiment builds a shipped example experiment by file name.
func ExampleExperiment(name string) (dash.Experiment, error) {
	data, err := experimentFiles.ReadFile("experiments/" + name)
	if err != nil {
		return dash.Experiment{}, fmt.Errorf("example experiment %q: %w (have %v)", name, err, ExampleExperiments())
	}
	return DecodeExperiment(bytes.NewReader(data), "experiments/"+name, ".")
}
