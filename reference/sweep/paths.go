package sweep

import (
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
	// inSystem is a memory-system field under overrides.
	inSystem
	// inParams is a field of the kind's own section.
	inParams
	// inKnobs is a derived knob (see [Knobs]).
	inKnobs
)

// field is a resolved path: where it points and the type of its value.
type field struct {
	target target
	index  []int
	typ    reflect.Type
}

var (
	fileType   = reflect.TypeFor[dash.ExperimentFile]()
	systemType = reflect.TypeFor[dash.SystemSpec]()
	knobsType  = reflect.TypeFor[Knobs]()
)

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
			return field{}, fmt.Errorf("path %q: name a system field (overrides.hbf.t_read, overrides.link.usable, ...)", path)
		}
		idx, typ, err := walk(systemType, parts[1:], "overrides")
		return field{inSystem, idx, typ}, err
	case parts[0] == knobsSection:
		if len(parts) == 1 {
			return field{}, fmt.Errorf("path %q: name a knob (knobs.page_size, knobs.link_bandwidth, knobs.reading)", path)
		}
		idx, typ, err := walk(knobsType, parts[1:], knobsSection)
		return field{inKnobs, idx, typ}, err
	case section != "" && parts[0] == section:
		if len(parts) == 1 {
			return field{}, fmt.Errorf("path %q: name a field of %s", path, section)
		}
		idx, typ, err := walk(params, parts[1:], section)
		return field{inParams, idx, typ}, err
	}
	idx, typ, err := walk(fileType, parts, "")
	if err != nil && section != "" {
		err = fmt.Errorf("%w (or %s.*)", err, section)
	}
	return field{inFile, idx, typ}, err
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
		out = append(out, "overrides.*", "knobs.*")
	}
	sort.Strings(out)
	return out
}

// lockPath is the lock file of an output (see lockOutput).
func lockPath(path string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, "."+base+".lock")
}
