package sweep

import (
	"errors"
	"fmt"

	"github.com/dashlab/dashlab/dash"
	"gopkg.in/yaml.v3"
)

// Builder builds a sweep spec from Go. Every method returns a new builder
// value, so a base builder can be forked; problems are reported by Compile.
//
//	plan, err := sweep.New(sweep.Base("qwen3-235b-a22b", "dash")).
//		Axis("system", "dash", "relay-only").
//		Geometric("overrides.hbf.t_read", "1us", "32us", 2).
//		Compile()
type Builder struct {
	spec Spec
	errs []error
}

// Base is an experiment file of a catalogue model on a named system with
// the paper's GPU and default workload (B/L_in/L_out = 4/1K/128).
func Base(model, system string) dash.ExperimentFile {
	return dash.ExperimentFile{Model: model, System: system, Workload: dash.DefaultWorkload()}
}

// New starts a sweep of the base experiment.
func New(base dash.ExperimentFile) Builder {
	var b Builder
	var n yaml.Node
	overrides := base.Overrides
	if err := n.Encode(fileNoOverridesOf(base)); err != nil {
		return b.fail(fmt.Errorf("base: %w", err))
	}
	if overrides.Kind != 0 {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "overrides"}, &overrides)
	}
	b.spec.Base = n
	b.spec.Name = base.Name
	return b
}

// fileNoOverrides is an experiment file without its overrides node (a zero
// yaml.Node does not encode).
type fileNoOverrides struct {
	Name      string             `yaml:"name,omitempty"`
	Model     string             `yaml:"model,omitempty"`
	ModelFile string             `yaml:"model_file,omitempty"`
	System    string             `yaml:"system,omitempty"`
	GPU       string             `yaml:"gpu,omitempty"`
	Profile   string             `yaml:"profile,omitempty"`
	Workload  dash.WorkloadSpec  `yaml:"workload"`
	Execution dash.ExecutionSpec `yaml:"execution"`
}

func fileNoOverridesOf(f dash.ExperimentFile) fileNoOverrides {
	return fileNoOverrides{f.Name, f.Model, f.ModelFile, f.System, f.GPU, f.Profile, f.Workload, f.Execution}
}

func (b Builder) fail(err error) Builder {
	b.errs = append(append([]error(nil), b.errs...), err)
	return b
}

// clone copies the slices a method appends to.
func (b Builder) clone() Builder {
	b.spec.Axes = append([]AxisSpec(nil), b.spec.Axes...)
	b.spec.Zip = append([][]string(nil), b.spec.Zip...)
	b.spec.Where = append([]string(nil), b.spec.Where...)
	return b
}

// Name names the sweep.
func (b Builder) Name(name string) Builder { b.spec.Name = name; return b }

// Kind sets the point kind (default "fixed").
func (b Builder) Kind(kind string) Builder { b.spec.Kind = kind; return b }

// Section sets the base of the kind's own section (its key: "serving",
// "cluster") to v, a value of the kind's section type or its YAML form.
func (b Builder) Section(key string, v any) Builder {
	n, err := node(v)
	if err != nil {
		return b.fail(fmt.Errorf("section %s: %w", key, err))
	}
	params := make(map[string]yaml.Node, len(b.spec.Params)+1)
	for k, x := range b.spec.Params {
		params[k] = x
	}
	params[key] = n
	b.spec.Params = params
	return b
}

func node(v any) (yaml.Node, error) {
	var n yaml.Node
	err := n.Encode(v)
	return n, err
}

// Axis adds an axis with a list of values: strings in the field's YAML form
// ("3us", "4 KiB", "dash"), numbers, booleans or typed values (unit.Duration,
// a dash.SRAMSpec, ...).
func (b Builder) Axis(path string, values ...any) Builder {
	a := AxisSpec{Path: path}
	for _, v := range values {
		n, err := node(v)
		if err != nil {
			return b.fail(fmt.Errorf("axis %s: value %v: %w", path, v, err))
		}
		a.Values = append(a.Values, n)
	}
	b = b.clone()
	b.spec.Axes = append(b.spec.Axes, a)
	return b
}

func (b Builder) addRange(path string, from, to any, set func(*RangeSpec) error) Builder {
	r := &RangeSpec{}
	var err error
	if r.From, err = node(from); err == nil {
		if r.To, err = node(to); err == nil {
			err = set(r)
		}
	}
	if err != nil {
		return b.fail(fmt.Errorf("axis %s: range: %w", path, err))
	}
	b = b.clone()
	b.spec.Axes = append(b.spec.Axes, AxisSpec{Path: path, Range: r})
	return b
}

// Linear adds an axis from, from+step, ... up to to (inclusive).
func (b Builder) Linear(path string, from, to, step any) Builder {
	return b.addRange(path, from, to, func(r *RangeSpec) (err error) { r.Step, err = node(step); return })
}

// Geometric adds an axis from, from*factor, ... up to to (inclusive).
func (b Builder) Geometric(path string, from, to any, factor float64) Builder {
	return b.addRange(path, from, to, func(r *RangeSpec) error { r.Factor = factor; return nil })
}

// Count adds an axis of n evenly spaced values from from to to.
func (b Builder) Count(path string, from, to any, n int) Builder {
	return b.addRange(path, from, to, func(r *RangeSpec) error { r.Count = n; return nil })
}

// Set sets a memory-system knob for every point (an override of the base,
// written as overrides.PATH: VALUE with its unit): Set("link.usable",
// 0.8*unit.TBps), Set("hbf.reading", dash.ReadingPaper), or a knob the
// sweep's kind takes (KnobKind: Set("parallel.expert", 8) for kind
// cluster; set the kind first). Axes are applied after it.
func (b Builder) Set(path string, v any) Builder {
	st, err := dash.SettingOf(path, v)
	if err == nil {
		k, _ := dash.LookupKnob(path)
		kindsMu.Lock()
		kk, _ := kinds[b.spec.Kind].(KnobKind)
		kindsMu.Unlock()
		if !isSystemKnob(k) && (kk == nil || !kk.TakesKnob(k)) {
			err = fmt.Errorf("%s is not a memory-system knob (set it in the base, or sweep it)", path)
		}
	}
	if err != nil {
		return b.fail(fmt.Errorf("set: %w", err))
	}
	base := b.spec.Base
	base.Content = append([]*yaml.Node(nil), base.Content...)
	var over *yaml.Node
	for i := 0; i+1 < len(base.Content); i += 2 {
		if base.Content[i].Value == "overrides" {
			o := *base.Content[i+1]
			o.Content = append([]*yaml.Node(nil), o.Content...)
			over, base.Content[i+1] = &o, &o
		}
	}
	if over == nil {
		over = &yaml.Node{Kind: yaml.MappingNode}
		base.Content = append(base.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "overrides"}, over)
	}
	over.Content = append(over.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: st.Path}, &yaml.Node{Kind: yaml.ScalarNode, Value: st.Value})
	b.spec.Base = base
	return b
}

func isSystemKnob(k dash.Knob) bool {
	_, err := k.Get(dash.KnobTarget{System: &dash.SystemSpec{}})
	return k.Path != "" && err == nil
}

// Zip makes the axes of paths advance together.
func (b Builder) Zip(paths ...string) Builder {
	b = b.clone()
	b.spec.Zip = append(b.spec.Zip, append([]string(nil), paths...))
	return b
}

// Where keeps only the points meeting the condition ("PATH OP VALUE").
func (b Builder) Where(condition string) Builder {
	b = b.clone()
	b.spec.Where = append(b.spec.Where, condition)
	return b
}

// Spec returns the spec built so far.
func (b Builder) Spec() Spec { return b.clone().spec }

// Compile validates the sweep and every point (see [Compile]).
func (b Builder) Compile() (*Plan, error) {
	if len(b.errs) > 0 {
		return nil, fmt.Errorf("sweep %s: %w", b.spec.Name, errors.Join(b.errs...))
	}
	return Compile(b.spec)
}

// MustCompile is Compile for notebooks: it panics on error.
func (b Builder) MustCompile() *Plan {
	p, err := b.Compile()
	if err != nil {
		panic(err)
	}
	return p
}

// Values turns a typed slice into Axis arguments:
// Axis("overrides.hbf.t_read", sweep.Values(tReads)...).
func Values[T any](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}
