package dash

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/dashlab/dashlab/internal/safeio"
)

// ExperimentFile is the YAML form of an experiment. Models, systems and GPUs
// are named by catalogue id (resolved by the reference package, since the
// engine carries no data of its own); any memory-system knob (see Knob) can
// be changed under overrides, by its path, nested or dotted:
//
//	name: fig9a-qwen3-b4
//	model: qwen3-235b-a22b
//	system: dash
//	gpu: h100-pcie
//	overrides:
//	  hbf: {t_read: 3us}
//	workload: {batch: 4, prompt: 1024, output: 128}
type ExperimentFile struct {
	// Name labels the experiment (one line of at most MaxExperimentName
	// bytes).
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

// MaxExperimentName bounds an experiment's name (it labels every result).
const MaxExperimentName = 256

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
		errs = append(errs, fmt.Errorf("%s: model = %s and model_file = %s: set only one", source, safeio.Quote(f.Model), safeio.Quote(f.ModelFile)))
	}
	if len(f.Name) > MaxExperimentName || strings.ContainsAny(f.Name, "\n\r") {
		errs = append(errs, fmt.Errorf("%s: name = %s: want one line of at most %d bytes", source, safeio.Quote(f.Name), MaxExperimentName))
	}
	if f.Overrides.Kind != 0 && f.Overrides.Kind != yaml.MappingNode {
		errs = append(errs, fmt.Errorf("%s: overrides (line %d): must be a mapping of system fields", source, f.Overrides.Line))
	}
	return f, errors.Join(errs...)
}

// SystemSpec returns the named system, resolved by systems (a catalogue's
// System), with the overrides applied: each key path under overrides is a
// knob of the memory system (hbf.t_read, link.usable, hbf.reading; see Knob),
// nested (hbf: {t_read: 3us}) or dotted (hbf.t_read: 3us), its value read by
// the knob's type. An unknown key is an error naming it and the knobs near
// it. Knobs with a rule follow it, as everywhere: an hbf.page_size override
// sizes the SRAM regions to the new page wave and a link.usable override
// scales the lane rate, unless the overrides give those fields themselves.
func (f ExperimentFile) SystemSpec(source string, systems func(id string) (SystemSpec, error)) (SystemSpec, error) {
	if systems == nil {
		return SystemSpec{}, fmt.Errorf("%s: system %s: no catalogue to resolve it (package reference has one: reference.System)", source, safeio.Quote(f.System))
	}
	s, err := systems(f.System)
	if err != nil {
		return SystemSpec{}, fmt.Errorf("%s: system: %w", source, err)
	}
	if f.Overrides.Kind == 0 {
		return s, nil
	}
	set, errs := overrideKnobs(&f.Overrides, "", func(k Knob) bool { return k.domain == domainSystem })
	if id := mappingValue(&f.Overrides, "id"); id != nil {
		s.ID = id.Value // not a knob: names the changed system
	}
	if len(errs) == 0 {
		if err := applyKnobs(KnobTarget{System: &s}, set); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return SystemSpec{}, fmt.Errorf("%s: overrides: %w", source, errors.Join(errs...))
	}
	return s, nil
}

// overrideKnobs reads a mapping of knobs (nested or dotted keys) into knob
// values, each decoded by its knob's type; a knob accept refuses is an error
// (SystemSpec accepts memory-system knobs only); errors name the path and
// the line.
func overrideKnobs(n *yaml.Node, prefix string, accept func(Knob) bool) ([]knobValue, []error) {
	if n.Kind != yaml.MappingNode {
		return nil, []error{fmt.Errorf("%s (line %d): must be a mapping of system knobs", strings.TrimSuffix(prefix, "."), n.Line)}
	}
	var out []knobValue
	var errs []error
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		path := prefix + key.Value
		if path == "id" && val.Kind == yaml.ScalarNode {
			continue
		}
		k, err := LookupKnob(path)
		if err != nil || !accept(k) {
			if err != nil && val.Kind == yaml.MappingNode && len(KnobsUnder(path)) > 0 {
				more, e := overrideKnobs(val, path+".", accept)
				out, errs = append(out, more...), append(errs, e...)
				continue
			}
			if err == nil {
				err = &ValueError{Path: path, Reason: "not a memory-system knob (set it in the experiment's own section)"}
				if k.sp != nil {
					err = &ValueError{Path: path, Reason: "a knob of the " + k.Space() + ", not of one GPU's memory system (set it in a cluster experiment)"}
				}
			}
			errs = append(errs, fmt.Errorf("line %d: %w", key.Line, err))
			continue
		}
		v := reflect.New(k.typ)
		if val.Kind != yaml.ScalarNode {
			errs = append(errs, fmt.Errorf("%s (line %d): want one value (%s)", path, val.Line, wantOf(k.typ)))
			continue
		}
		if k.typ.Kind() == reflect.String {
			v.Elem().SetString(val.Value)
		} else if err := decodeScalar(val, v); err != nil {
			msg := cleanYAMLError(err)
			msg = strings.TrimPrefix(msg, fmt.Sprintf("line %d: ", val.Line)) // said once, before
			errs = append(errs, fmt.Errorf("%s (line %d): %s", path, val.Line, msg))
			continue
		}
		if k.view != nil && k.view.valid != nil {
			if err := k.view.valid(v.Elem()); err != nil {
				errs = append(errs, fmt.Errorf("%s (line %d): %w", path, val.Line, err))
				continue
			}
		}
		out = append(out, knobValue{k, v.Elem()})
	}
	return out, errs
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
