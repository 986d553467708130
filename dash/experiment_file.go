package dash

import (
	"errors"
	"fmt"
	"io"

	"github.com/dashlab/dashlab/dash/unit"
	"gopkg.in/yaml.v3"
)

// ExperimentFile is the YAML form of an experiment. Models, systems and GPUs
// are named by catalogue id (resolved by the reference package, since the
// engine carries no data of its own); any memory-system parameter can be
// changed under overrides, whose keys are those of [SystemSpec]:
//
//	name: fig9a-qwen3-b4
//	model: qwen3-235b-a22b
//	system: dash
//	gpu: h100-pcie
//	overrides:
//	  hbf: {t_read: 3us}
//	workload: {batch: 4, prompt: 1024, output: 128}
type ExperimentFile struct {
	// Name labels the experiment.
	Name string `yaml:"name"`
	// Model is a catalogue model id; ModelFile a model YAML file (relative
	// paths are relative to the experiment file). Exactly one is set.
	Model string `yaml:"model"`
	// ModelFile is the path of a model YAML file (see Model).
	ModelFile string `yaml:"model_file"`
	// System is a named system (the catalogue's default when empty).
	System string `yaml:"system"`
	// GPU is the GPU whose timings are used (the catalogue's default when
	// empty: in package reference, the paper's GPU).
	GPU string `yaml:"gpu"`
	// Profile is the measured profile the timing model is built from: a
	// shipped profile name or a directory (the catalogue's default when empty).
	Profile string `yaml:"profile"`
	// Overrides changes fields of the named system.
	Overrides yaml.Node `yaml:"overrides"`
	// Workload is the fixed-batch job.
	Workload WorkloadSpec `yaml:"workload"`
	// Execution holds the execution-mode switches.
	Execution ExecutionSpec `yaml:"execution"`
}

// DecodeExperimentFile decodes an experiment file strictly: an unknown key
// anywhere, including under overrides, is an error naming it.
func DecodeExperimentFile(r io.Reader, source string) (ExperimentFile, error) {
	var f ExperimentFile
	if err := DecodeStrict(r, source, &f); err != nil {
		return ExperimentFile{}, err
	}
	var errs []error
	switch {
	case f.Model == "" && f.ModelFile == "":
		errs = append(errs, fmt.Errorf("%s: model: set a catalogue id (model) or a file (model_file)", source))
	case f.Model != "" && f.ModelFile != "":
		errs = append(errs, fmt.Errorf("%s: model = %q and model_file = %q: set only one", source, f.Model, f.ModelFile))
	}
	if f.Overrides.Kind != 0 && f.Overrides.Kind != yaml.MappingNode {
		errs = append(errs, fmt.Errorf("%s: overrides (line %d): must be a mapping of system fields", source, f.Overrides.Line))
	}
	return f, errors.Join(errs...)
}

// SystemSpec returns the named system, resolved by systems (a catalogue's System),
// with the overrides applied, decoded strictly (an unknown key is an error naming it).
// An hbf.page_size override sizes the SRAM regions by SystemSpec.SetPageSize's rule,
// as the builder's PageSize does, unless the overrides give region sizes themselves.
func (f ExperimentFile) SystemSpec(source string, systems func(id string) (SystemSpec, error)) (SystemSpec, error) {
	if systems == nil {
		return SystemSpec{}, fmt.Errorf("%s: system %q: no catalogue to resolve it (package reference has one: reference.System)", source, f.System)
	}
	s, err := systems(f.System)
	if err != nil {
		return SystemSpec{}, fmt.Errorf("%s: system: %w", source, err)
	}
	if f.Overrides.Kind == 0 {
		return s, nil
	}
	if page := mappingValue(mappingValue(&f.Overrides, "hbf"), "page_size"); page != nil {
		var p unit.Bytes
		if err := page.Decode(&p); err != nil {
			return SystemSpec{}, fmt.Errorf("%s: overrides: hbf.page_size (line %d): %w", source, page.Line, err)
		}
		s.SetPageSize(p)
	}
	data, err := yaml.Marshal(&f.Overrides)
	if err != nil {
		return SystemSpec{}, fmt.Errorf("%s: overrides: %w", source, err)
	}
	if err := DecodeStrictBytes(data, fmt.Sprintf("%s: overrides (from line %d)", source, f.Overrides.Line), &s); err != nil {
		return SystemSpec{}, err
	}
	return s, nil
}

// mappingValue returns the value of key in a YAML mapping node (nil if absent or n is
// not a mapping).
func mappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
