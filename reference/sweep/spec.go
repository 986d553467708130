package sweep

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/internal/safeio"
	"github.com/dashlab/dashlab/reference"
	"gopkg.in/yaml.v3"
)

// Spec is the YAML form of a sweep (see the package documentation).
type Spec struct {
	// Name labels the sweep (one line of at most 256 bytes).
	Name string `yaml:"name"`
	// Kind is the point kind: "fixed" (a fixed-batch run, the default) or
	// another registered kind (see [RegisterKind]).
	Kind string `yaml:"kind"`
	// Base is the base experiment, in the experiment-file form.
	Base yaml.Node `yaml:"base"`
	// BaseFile is an experiment file to use as the base instead of Base
	// (relative paths are relative to the spec file).
	BaseFile string `yaml:"base_file"`
	// Params is the base of the kind's own section (for example the serving
	// load), when the kind has one; its key is the kind's section name.
	Params map[string]yaml.Node `yaml:",inline"`
	// Axes are the swept paths, in order (the first varies slowest): 1 to
	// 64, giving at most 1,000,000 points (Bounds).
	Axes []AxisSpec `yaml:"axes"`
	// Zip groups axes (by path) that advance together.
	Zip [][]string `yaml:"zip"`
	// Where keeps only the points meeting every condition ("PATH OP VALUE";
	// at most 64); the values it drops are neither resolved nor validated.
	Where []string `yaml:"where"`

	// dir resolves relative paths (the spec file's folder).
	dir string
}

// AxisSpec is one axis: a path and either a list of values or a range.
type AxisSpec struct {
	// Path names the swept field ("overrides.hbf.t_read", "workload.batch").
	Path string `yaml:"path"`
	// Values lists the values, in the field's YAML form ("3us", 4, "dash"):
	// at most 1,000,000, each written in at most 1 KiB; an integer field
	// takes integers only.
	Values []yaml.Node `yaml:"values"`
	// Range gives the values as a range instead (at most 1,000,000 values;
	// on an integer field every value must be whole).
	Range *RangeSpec `yaml:"range"`
}

// RangeSpec is an inclusive range of a numeric field, in the field's units:
// from, to and exactly one of step (linear), factor (geometric) or count
// (that many points, evenly spaced).
type RangeSpec struct {
	// From and To bound the range (both included when reached).
	From yaml.Node `yaml:"from"`
	To   yaml.Node `yaml:"to"`
	// Step is the linear increment.
	Step yaml.Node `yaml:"step"`
	// Factor is the geometric ratio (> 1 when to > from).
	Factor float64 `yaml:"factor"`
	// Count is the number of evenly spaced points (2 to 1,000,000).
	Count int `yaml:"count"`
}

// LoadSpec reads and decodes a sweep spec file.
func LoadSpec(path string) (Spec, error) {
	data, err := safeio.ReadFile(path)
	if err != nil {
		return Spec{}, err
	}
	return DecodeSpec(bytes.NewReader(data), path, filepath.Dir(path))
}

// DecodeSpec decodes a sweep spec strictly; dir resolves a relative
// base_file or model_file.
func DecodeSpec(r io.Reader, source, dir string) (Spec, error) {
	var s Spec
	if err := dash.DecodeStrict(r, source, &s); err != nil {
		return Spec{}, err
	}
	s.dir = dir
	if s.Name == "" {
		s.Name = filepath.Base(source)
	}
	if len(s.Name) > maxName || strings.ContainsAny(s.Name, "\n\r") {
		return Spec{}, fmt.Errorf("%s: name = %s: want one line of at most %d bytes", source, safeio.Quote(s.Name), maxName)
	}
	return s, nil
}

// maxName bounds a sweep's name (it labels every error and progress line).
const maxName = 256

// Compile validates the spec and every point of it (see [Compile]).
func (s Spec) Compile() (*Plan, error) { return Compile(s) }

func (s Spec) source() string {
	if s.Name != "" {
		return "sweep " + s.Name
	}
	return "sweep"
}

// baseFile decodes the base experiment file of the spec; the overrides take
// accepts (a KnobKind's knobs; nil: none) are returned as settings.
func (s Spec) baseFile(take func(dash.Knob) bool) (dash.ExperimentFile, string, []dash.Setting, error) {
	switch {
	case s.BaseFile != "" && s.Base.Kind != 0:
		return dash.ExperimentFile{}, "", nil, fmt.Errorf("%s: set base or base_file, not both", s.source())
	case s.BaseFile != "":
		p := s.BaseFile
		if !filepath.IsAbs(p) {
			p = filepath.Join(s.dir, p)
		}
		data, err := safeio.ReadFile(p)
		if err != nil {
			return dash.ExperimentFile{}, "", nil, fmt.Errorf("%s: base_file: %w", s.source(), err)
		}
		f, taken, err := reference.DecodeExperimentFileTaking(bytes.NewReader(data), p, take)
		return f, filepath.Dir(p), taken, err
	case s.Base.Kind == 0:
		return dash.ExperimentFile{}, "", nil, fmt.Errorf("%s: base: missing (an experiment: model, system, workload, ...)", s.source())
	}
	data, err := yaml.Marshal(&s.Base)
	if err != nil {
		return dash.ExperimentFile{}, "", nil, fmt.Errorf("%s: base: %w", s.source(), err)
	}
	f, taken, err := reference.DecodeExperimentFileTaking(bytes.NewReader(data), s.source()+": base", take)
	return f, s.dir, taken, err
}
