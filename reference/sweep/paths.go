package sweep

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	"github.com/dashlab/dashlab/dash"
)

// target says which value of a point a path addresses.
type target int

const (
	// inFile is a field of the experiment file (model, workload.batch, ...).
	inFile target = iota
	// inSystem is a memory-system knob under overrides (see [dash.Knob]).
	inSystem
	// inParams is a field of the kind's own section.
	inParams
	// inKnob is a knob under overrides that the kind takes (KnobKind).
	inKnob
)

// field is a resolved path: where it points and the type of its value.
type field struct {
	target target
	index  []int
	typ    reflect.Type
	knob   dash.Knob // inSystem, inKnob: the knob
}

// resolvePath finds the field a path of the plan's axes names: a knob the
// plan's kind takes (KnobKind) under overrides, or as resolvePath finds it.
func (p *Plan) resolvePath(path string) (field, error) {
	if kk, ok := p.kind.(KnobKind); ok {
		if rest, ok := strings.CutPrefix(path, "overrides."); ok {
			if k, err := dash.LookupKnob(rest); err == nil && kk.TakesKnob(k) {
				return field{target: inKnob, typ: k.Type(), knob: k}, nil
			}
		}
	}
	return resolvePath(path, p.section, p.ptype)
}

var fileType = reflect.TypeFor[dash.ExperimentFile]()

// resolvePath finds the field a path names. section and params are the
// kind's own section key and type (empty and nil when it has none).
func resolvePath(path, section string, params reflect.Type) (field, error) {
	parts := strings.Split(path, ".")
	for _, p := range parts {
		if p == "" {
			return field{}, fmt.Errorf("path %q: empty element", path)
		}
	}
	switch {
	case parts[0] == "overrides":
		if len(parts) == 1 {
			return field{}, fmt.Errorf("path %q: name a memory-system knob (overrides.hbf.t_read, overrides.link.usable, ...; dashlab knobs lists them)", path)
		}
		k, err := systemKnob(strings.Join(parts[1:], "."))
		if err != nil {
			return field{}, err
		}
		return field{target: inSystem, typ: k.Type(), knob: k}, nil
	case parts[0] == "knobs":
		return field{}, fmt.Errorf("path %q: the knobs section is gone: every knob is an override path (%s)", path, renamedKnob(parts[1:]))
	case section != "" && parts[0] == section:
		if len(parts) == 1 {
			return field{}, fmt.Errorf("path %q: name a field of %s", path, section)
		}
		idx, typ, err := walk(params, parts[1:], section)
		return field{target: inParams, index: idx, typ: typ}, err
	}
	idx, typ, err := walk(fileType, parts, "")
	if err != nil && section != "" {
		err = fmt.Errorf("%w (or %s.*)", err, section)
	}
	return field{target: inFile, index: idx, typ: typ}, err
}

// walk follows YAML keys through struct types.
func walk(t reflect.Type, keys []string, prefix string) ([]int, reflect.Type, error) {
	var index []int
	for i, k := range keys {
		if t.Kind() != reflect.Struct {
			return nil, nil, fmt.Errorf("%s is a value, not a section: it has no field %q", join(prefix, keys[:i]), k)
		}
		f, ok := fieldByKey(t, k)
		if !ok || (t == fileType && k == "overrides") {
			where := "the experiment"
			if p := join(prefix, keys[:i]); p != "" {
				where = p
			}
			return nil, nil, fmt.Errorf("unknown field %q in %s (known: %s)", k, where, strings.Join(keysOf(t), ", "))
		}
		index = append(index, f.Index...)
		t = f.Type
	}
	return index, t, nil
}

func join(prefix string, keys []string) string {
	all := keys
	if prefix != "" {
		all = append([]string{prefix}, keys...)
	}
	return strings.Join(all, ".")
}

// yamlKey is a struct field's YAML key ("" when it has none).
func yamlKey(f reflect.StructField) string {
	if !f.IsExported() {
		return ""
	}
	tag := f.Tag.Get("yaml")
	name, _, _ := strings.Cut(tag, ",")
	if name == "-" {
		return ""
	}
	if name == "" {
		return strings.ToLower(f.Name)
	}
	return name
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if yamlKey(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func keysOf(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if k := yamlKey(t.Field(i)); k != "" && !(t == fileType && k == "overrides") {
			out = append(out, k)
		}
	}
	if t == fileType {
		out = append(out, "overrides.*")
	}
	sort.Strings(out)
	return out
}

// lockPath is the lock file of an output (see lockOutput).
func lockPath(path string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, "."+base+".lock")
}

// systemKnob is the memory-system knob of a path under overrides.
func systemKnob(path string) (dash.Knob, error) {
	k, err := dash.LookupKnob(path)
	if err != nil {
		if under := dash.KnobsUnder(path); len(under) > 0 {
			names := make([]string, 0, len(under))
			for _, u := range under {
				names = append(names, "overrides."+u.Path)
			}
			return dash.Knob{}, fmt.Errorf("path %q: a section; name one of its knobs (%s)", "overrides."+path, strings.Join(names, ", "))
		}
		var ve *dash.ValueError
		if errors.As(err, &ve) {
			return dash.Knob{}, fmt.Errorf("path %q: %s", "overrides."+path, strings.Replace(ve.Reason, "did you mean ", "did you mean overrides.", 1))
		}
		return dash.Knob{}, err
	}
	if !isSystemKnob(k) {
		if s := k.Space(); s != "workload" && s != "execution switches" {
			return dash.Knob{}, fmt.Errorf("path %q: %s is a knob of the %s, which this kind does not set (sweep it with kind: cluster)", "overrides."+path, path, s)
		}
		return dash.Knob{}, fmt.Errorf("path %q: %s is not a memory-system knob (write it as %s)", "overrides."+path, path, path)
	}
	return k, nil
}

// renamedKnob says what a knobs.* path of earlier specs is now.
func renamedKnob(keys []string) string {
	switch strings.Join(keys, ".") {
	case "page_size":
		return "overrides.hbf.page_size, the SRAM regions following the page wave"
	case "link_bandwidth":
		return "overrides.link.usable, the lane rate following"
	case "reading":
		return "overrides.hbf.reading: paper or physical"
	}
	return "overrides.hbf.page_size, overrides.link.usable, overrides.hbf.reading, ..."
}
