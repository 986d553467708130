package dash

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// checkIntegers walks a decoded YAML document alongside the Go type it
// decodes into and reports every integer field given a value that is not a
// YAML integer. yaml.v3 would truncate "batch: 4.9" to 4 without a word; a
// spec must say exactly what it means.
//
// Aliases are followed, so every node the decoder will read is checked; a
// document whose aliases expand beyond maxIntegerVisits nodes is left to
// the decoder, which refuses excessive aliasing itself.
func checkIntegers(n *yaml.Node, t reflect.Type, path string) []error {
	visits := 0
	return intWalker{visits: &visits}.walk(n, t, path)
}

const maxIntegerVisits = 1 << 20

type intWalker struct{ visits *int }

func (w intWalker) walk(n *yaml.Node, t reflect.Type, path string) []error {
	if *w.visits++; *w.visits > maxIntegerVisits {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n == nil {
		return nil
	}
	if n.Kind == yaml.DocumentNode {
		var errs []error
		for _, c := range n.Content {
			errs = append(errs, w.walk(c, t, path)...)
		}
		return errs
	}
	if n.Kind == yaml.AliasNode {
		return w.walk(n.Alias, t, path)
	}
	if t == reflect.TypeOf(yaml.Node{}) || reflect.PointerTo(t).Implements(reflect.TypeOf((*yaml.Unmarshaler)(nil)).Elem()) {
		return nil // decoded (and checked) by its own code
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!int" && n.ShortTag() != "!!null" {
			return []error{fmt.Errorf("line %d: %s = %s: must be an integer", n.Line, strings.TrimPrefix(path, "."), n.Value)}
		}
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		fields := yamlFields(t)
		var errs []error
		for i := 0; i+1 < len(n.Content); i += 2 {
			if f, ok := fields[n.Content[i].Value]; ok {
				errs = append(errs, w.walk(n.Content[i+1], f.Type, path+"."+n.Content[i].Value)...)
			}
		}
		return errs
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		var errs []error
		for i, c := range n.Content {
			errs = append(errs, w.walk(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return errs
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		var errs []error
		for i := 0; i+1 < len(n.Content); i += 2 {
			errs = append(errs, w.walk(n.Content[i+1], t.Elem(), path+"."+n.Content[i].Value)...)
		}
		return errs
	}
	return nil
}

// yamlFields maps the YAML keys of struct type t to its fields (inline
// structs flattened), as yaml.v3 names them.
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range yamlFields(ft) {
					out[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f
	}
	return out
}
