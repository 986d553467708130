package dash

import (
	"errors"
	"fmt"
	"reflect"
	"slices"

	"gopkg.in/yaml.v3"
)

// KnobSpace is a spec type of another package whose fields are knobs of the
// one table, beside dash's own (package cluster registers its hardware,
// cluster.Spec: nodes, interconnect.scale_up.rate, ...; and its layout,
// cluster.Layout: parallel.expert, placement.policy, dispatch.dtype, ...).
// Its leaf fields carry the same knob tags as dash's specs, so every view of
// the table has them: LookupKnob and Knobs, the range checks (CheckKnobs),
// the what-if labels (DiffKnobs, Change.Label), ApplySettings and Setting,
// experiment-file overrides (OverrideSettings), sweeps' overrides.PATH, the
// CLI's --set, notebooks' knobs and the generated docs/knobs.md. dash never
// imports the package that registers a space; a program has the space's
// knobs when it links that package.
type KnobSpace struct {
	// Name names the spec in errors and docs ("cluster", "cluster layout").
	Name string
	// Type is the spec's struct type; every exported leaf field has a knob
	// tag (or knob:"-"), and yaml:",inline" fields add theirs at their
	// parent's path.
	Type reflect.Type
	// Prefix is put before every path ("" or "cluster."); no path may be
	// one the table has already.
	Prefix string
	// Rules are the knobs that set more than their field, by path: each is
	// called with a pointer to the spec and the value, of the knob's type.
	Rules map[string]func(part any, v any)
	// Symbols give, by path, the symbol of a knob whose field's type is
	// shared (one LinkSpec's rate tagged once, three ports' rates named
	// apart: "scale-up", "PCIe", "NIC").
	Symbols map[string]string
}

// RegisterKnobs adds a space's knobs to the table (from the registering
// package's init). A bad tag, a field without one, a path the table has
// already or a type registered twice is an error, and the table is left as
// it was.
func RegisterKnobs(s KnobSpace) error {
	if s.Type == nil || s.Type.Kind() != reflect.Struct {
		return fmt.Errorf("dash: knob space %q: type %v is not a struct", s.Name, s.Type)
	}
	if s.Name == "" {
		return fmt.Errorf("dash: knob space of %v: no name", s.Type)
	}
	tableMu.Lock()
	defer tableMu.Unlock()
	for _, o := range spaces {
		if o.Type == s.Type {
			return fmt.Errorf("dash: knob space %s: %v registered twice", s.Name, s.Type)
		}
	}
	next := append(slices.Clip(spaces), s)
	t, err := buildTable(next)
	if err != nil {
		return fmt.Errorf("dash: %w", err)
	}
	for _, paths := range []map[string]func(any, any){s.Rules, symbolPaths(s.Symbols)} {
		for path := range paths {
			if i, ok := t.byPath[path]; !ok || t.rows[i].sp == nil || t.rows[i].sp.Type != s.Type {
				return fmt.Errorf("dash: knob space %s: a rule or symbol for %s, which is not one of its knobs", s.Name, path)
			}
		}
	}
	spaces = next
	tables.Store(t)
	return nil
}

func symbolPaths(m map[string]string) map[string]func(any, any) {
	out := map[string]func(any, any){}
	for p := range m {
		out[p] = nil
	}
	return out
}

// MustRegisterKnobs is RegisterKnobs for a package's init: it panics on
// error.
func MustRegisterKnobs(s KnobSpace) {
	if err := RegisterKnobs(s); err != nil {
		panic(err)
	}
}

// KnobsOf returns the knobs of the registered space whose spec has the type
// of part (a value or a pointer), in table order.
func KnobsOf(part any) []Knob {
	typ := structType(part)
	var out []Knob
	for _, k := range knobTable().rows {
		if k.sp != nil && k.sp.Type == typ {
			out = append(out, k)
		}
	}
	return out
}

func structType(part any) reflect.Type {
	t := reflect.TypeOf(part)
	if t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// CheckKnobs range-checks every field of part (a value or a pointer of a
// registered space's type) against its knob's range: nil, or every
// *RangeError joined, in table order. A type of no registered space is an
// error.
func CheckKnobs(part any) error {
	typ := structType(part)
	v := reflect.ValueOf(part)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	var errs []error
	found := false
	for _, k := range knobTable().rows {
		if k.sp == nil || k.sp.Type != typ {
			continue
		}
		found = true
		if err := k.rng.check(k.Path, v.FieldByIndex(k.index)); err != nil {
			errs = append(errs, err)
		}
	}
	if !found {
		return fmt.Errorf("dash: %v is not a registered knob space", typ)
	}
	return errors.Join(errs...)
}

// DiffKnobs lists the knobs in which x differs from ref (two values of a
// registered space's type), in table order, each with both values printed
// with their units: the what-if labels of a changed cluster ("NVLink 450 ->
// 900 GB/s"; Change.String).
func DiffKnobs(ref, x any) []Change {
	typ := structType(ref)
	a, b := reflect.ValueOf(ref), reflect.ValueOf(x)
	if a.Kind() == reflect.Pointer {
		a = a.Elem()
	}
	if b.Kind() == reflect.Pointer {
		b = b.Elem()
	}
	if b.Type() != typ {
		return nil
	}
	var out []Change
	for _, k := range knobTable().rows {
		if k.sp == nil || k.sp.Type != typ {
			continue
		}
		fa, fb := a.FieldByIndex(k.index), b.FieldByIndex(k.index)
		if !fa.Equal(fb) {
			out = append(out, Change{Field: k.Path, From: fmt.Sprint(fa.Interface()), To: fmt.Sprint(fb.Interface())})
		}
	}
	return out
}

// OverrideSettings reads a YAML mapping of knobs (an experiment file's
// overrides: nested, hbf: {t_read: 3us}, or dotted, hbf.t_read: 3us) into
// settings, in the file's order, each value read by its knob's type and
// written back exactly. Any knob of the table is read, whatever its spec
// (a cluster file's overrides hold the GPUs' memory-system knobs and the
// cluster's); a key "id" is skipped (it names a changed system). An unknown
// key or a value that does not read is an error naming the path and line.
func OverrideSettings(n *yaml.Node) ([]Setting, error) {
	if n == nil || n.Kind == 0 {
		return nil, nil
	}
	set, errs := overrideKnobs(n, "", func(Knob) bool { return true })
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	out := make([]Setting, 0, len(set))
	for _, kv := range set {
		text, err := formatValue(kv.v)
		if err != nil {
			return nil, &ValueError{Path: kv.k.Path, Value: fmt.Sprint(kv.v.Interface()), Reason: err.Error()}
		}
		out = append(out, Setting{Path: kv.k.Path, Value: text})
	}
	return out, nil
}

// SplitOverrides returns the file with only the overrides that keep does
// not take (the memory-system knobs its SystemSpec applies) and, as
// settings, those it takes, in the file's order: a sweep kind that sets
// knobs of its own spec (a cluster's) takes them from the base this way.
func (f ExperimentFile) SplitOverrides(take func(Knob) bool) (ExperimentFile, []Setting, error) {
	if f.Overrides.Kind == 0 {
		return f, nil, nil
	}
	set, errs := overrideKnobs(&f.Overrides, "", func(Knob) bool { return true })
	if len(errs) > 0 {
		return ExperimentFile{}, nil, fmt.Errorf("overrides: %w", errors.Join(errs...))
	}
	rest := yaml.Node{Kind: yaml.MappingNode, Line: f.Overrides.Line, Column: f.Overrides.Column}
	if id := mappingValue(&f.Overrides, "id"); id != nil {
		rest.Content = append(rest.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "id"}, id)
	}
	var taken []Setting
	for _, kv := range set {
		text, err := formatValue(kv.v)
		if err != nil {
			return ExperimentFile{}, nil, &ValueError{Path: kv.k.Path, Value: fmt.Sprint(kv.v.Interface()), Reason: err.Error()}
		}
		if take(kv.k) {
			taken = append(taken, Setting{Path: kv.k.Path, Value: text})
			continue
		}
		rest.Content = append(rest.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: kv.k.Path},
			&yaml.Node{Kind: yaml.ScalarNode, Value: text, Style: scalarStyle(kv.k)})
	}
	f.Overrides = rest
	if len(rest.Content) == 0 {
		f.Overrides = yaml.Node{}
	}
	return f, taken, nil
}

// scalarStyle quotes a name value (so that "true" stays a name).
func scalarStyle(k Knob) yaml.Style {
	if k.typ.Kind() == reflect.String {
		return yaml.DoubleQuotedStyle
	}
	return 0
}
