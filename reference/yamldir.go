package reference

import (
	"embed"
	"fmt"
	"path"
	"strings"
)

// readYAMLDir decodes every file of an embedded catalogue directory, one entry a
// file named by its id (id.yaml), in file-name order: decode reads and checks one
// file's bytes (name is its path for messages), id gives an entry's id.
func readYAMLDir[T any](files embed.FS, dir string, decode func(name string, data []byte) (T, error), id func(T) string) ([]T, error) {
	entries, err := files.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []T
	for _, e := range entries {
		name := path.Join(dir, e.Name())
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		s, err := decode(name, data)
		if err != nil {
			return nil, err
		}
		if want := strings.TrimSuffix(e.Name(), ".yaml"); id(s) != want {
			return nil, fmt.Errorf("%s: id %q does not match the file name", name, id(s))
		}
		out = append(out, s)
	}
	return out, nil
}

// idsOf lists the ids of a catalogue's entries.
func idsOf[T any](specs []T, id func(T) string) []string {
	ids := make([]string, len(specs))
	for i, s := range specs {
		ids[i] = id(s)
	}
	return ids
}
