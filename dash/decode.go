package dash

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/dashlab/dashlab/internal/safeio"
	"gopkg.in/yaml.v3"
)

// DecodeStrict decodes one YAML document from r into v, refusing any key that
// v does not declare (yaml.v3 KnownFields), any integer field given a
// non-integer ("batch: 4.9"), any second document and any input over
// safeio.MaxInputBytes (1 MiB). The error names the source, the line and the offending
// field.
func DecodeStrict(r io.Reader, source string, v any) error {
	data, err := safeio.ReadAll(r, source, safeio.MaxInputBytes)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %s", source, cleanYAMLError(err))
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && !rv.IsNil() {
		if errs := checkIntegers(&doc, rv.Type().Elem(), ""); len(errs) > 0 {
			return fmt.Errorf("%s: %w", source, errors.Join(errs...))
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s: empty document", source)
		}
		return fmt.Errorf("%s: %s", source, cleanYAMLError(err))
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return fmt.Errorf("%s: more than one YAML document", source)
	}
	return nil
}

// DecodeStrictBytes is DecodeStrict on a byte slice.
func DecodeStrictBytes(data []byte, source string, v any) error {
	return DecodeStrict(bytes.NewReader(data), source, v)
}

// cleanYAMLError turns yaml.v3's "yaml: unmarshal errors:\n  line 3: field
// foo not found in type dash.HBFSpec" into "line 3: unknown field "foo" in
// dash.HBFSpec".
func cleanYAMLError(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: unmarshal errors:\n")
	msg = strings.TrimPrefix(msg, "yaml: ")
	var out []string
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if i := strings.Index(line, "field "); i >= 0 && strings.Contains(line, " not found in type ") {
			rest := line[i+len("field "):]
			j := strings.Index(rest, " not found in type ")
			line = fmt.Sprintf("%sunknown field %s in %s", line[:i], safeio.Quote(rest[:j]), rest[j+len(" not found in type "):])
		}
		out = append(out, safeio.ClipTo(line, 512))
	}
	return strings.Join(out, "; ")
}
