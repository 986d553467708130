package reference

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/internal/safeio"
)

//go:embed experiments/*.yaml
var experimentFiles embed.FS

// Experiment returns a builder on Catalogue holding the catalogue model modelID, the
// named system systemID and the paper's GPU (H100 PCIe, derived from the measured H200
// profile), with the paper's default workload (4/1K/128). The ids are resolved by
// Build, which reports an unknown one by name.
func Experiment(modelID, systemID string) dash.ExperimentBuilder {
	return dash.NewExperiment().Catalogue(Catalogue).ModelID(modelID).SystemID(systemID).GPU(DefaultGPU)
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
// relative model_file and workload.routing.file.
func DecodeExperiment(r io.Reader, source, baseDir string) (dash.Experiment, error) {
	f, err := DecodeExperimentFile(r, source)
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
	sys, err := f.SystemSpec(source, System)
	if err != nil {
		return dash.Experiment{}, err
	}
	t, err := TimingFrom(f.Profile, f.GPU)
	if err != nil {
		return dash.Experiment{}, fmt.Errorf("%s: %w", source, err)
	}
	b, err := withRoutingTrace(dash.NewExperiment().Name(f.Name).Model(m).System(sys).Timing(t).
		Workload(f.Workload).Execution(f.Execution), f.Workload, baseDir)
	if err != nil {
		return dash.Experiment{}, fmt.Errorf("%s: %w", source, err)
	}
	exp, err := b.Build()
	if err != nil {
		return dash.Experiment{}, fmt.Errorf("%s: %w", source, err)
	}
	return exp, nil
}

// DecodeExperimentFile decodes an experiment file strictly (dash.DecodeExperimentFile),
// fills in the catalogue's defaults (DefaultSystem, DefaultGPU, DefaultProfile) and
// checks its system id and overrides against the catalogue, so that every problem of
// the file is reported at once, each naming its field.
func DecodeExperimentFile(r io.Reader, source string) (dash.ExperimentFile, error) {
	f, _, err := DecodeExperimentFileTaking(r, source, nil)
	return f, err
}

// DecodeExperimentFileTaking is DecodeExperimentFile for a file whose
// overrides may hold knobs of another spec (a cluster's): those take
// accepts are taken out of the file's overrides (dash.ExperimentFile's
// SplitOverrides) and returned as settings, and the rest is checked as
// DecodeExperimentFile checks it. A nil take takes none.
func DecodeExperimentFileTaking(r io.Reader, source string, take func(dash.Knob) bool) (dash.ExperimentFile, []dash.Setting, error) {
	f, err := dash.DecodeExperimentFile(r, source)
	var taken []dash.Setting
	if take != nil && err == nil {
		var serr error
		if f, taken, serr = f.SplitOverrides(take); serr != nil {
			return f, nil, fmt.Errorf("%s: %w", source, serr)
		}
	}
	if f.System == "" {
		f.System = DefaultSystem
	}
	if f.GPU == "" {
		f.GPU = DefaultGPU
	}
	if f.Profile == "" {
		f.Profile = DefaultProfile
	}
	if _, serr := f.SystemSpec(source, System); serr != nil {
		err = errors.Join(err, serr)
	}
	return f, taken, err
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
		return dash.Experiment{}, fmt.Errorf("example experiment %s: %w (have %v)", safeio.Quote(name), err, ExampleExperiments())
	}
	return DecodeExperiment(bytes.NewReader(data), "experiments/"+name, ".")
}
