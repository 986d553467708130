package resultdocs

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/dashlab/dashlab/summary"
)

// Stale lists the Markdown files under root whose generated regions differ from what
// rows give; with write it rewrites them.
func Stale(root string, rows []summary.Row, write bool) ([]string, error) {
	var stale []string
	mds, err := markdownFiles(root)
	if err != nil {
		return nil, err
	}
	for _, p := range mds {
		path := filepath.Join(root, p)
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		got, err := Generate(string(b), rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if got == string(b) {
			continue
		}
		stale = append(stale, p)
		if write {
			if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return stale, nil
}

// TypedNumbers lists the simulated numbers typed in the prose under root (generated
// regions left out).
func TypedNumbers(root string, rows []summary.Row) ([]Typed, error) {
	srcs, err := Sources(root)
	if err != nil {
		return nil, err
	}
	n := NewNumbers(rows)
	var out []Typed
	for _, s := range srcs {
		for _, t := range n.Find(s.Path, Strip(s.Text)) {
			t.Line = s.Line(t.Line)
			out = append(out, t)
		}
	}
	return out, nil
}
