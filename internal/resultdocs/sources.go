package resultdocs

import (
	"encoding/json"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A Source is one text of prose: a Markdown file, a notebook's Markdown cells, or the
// comments of a Go file.
type Source struct {
	// Path is relative to the repository root.
	Path string
	// Text is the prose; Line is the line of Path where Text's line n is, Line(n).
	Text string
	Line func(n int) int
}

// markdownFiles are the repository's Markdown files (relative to root), outside
// hidden directories.
func markdownFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, _ := filepath.Rel(root, p)
			out = append(out, rel)
		}
		return nil
	})
	return out, err
}

// Sources gathers the prose under root: the Markdown files, every notebook's Markdown
// cells and the comments of every Go file (tests and generated files excepted).
func Sources(root string) ([]Source, error) {
	var out []Source
	mds, err := markdownFiles(root)
	if err != nil {
		return nil, err
	}
	for _, p := range mds {
		b, err := os.ReadFile(filepath.Join(root, p))
		if err != nil {
			return nil, err
		}
		out = append(out, Source{Path: p, Text: string(b), Line: func(n int) int { return n }})
	}
	nbs, err := filepath.Glob(filepath.Join(root, "notebooks", "*.ipynb"))
	if err != nil {
		return nil, err
	}
	for _, p := range nbs {
		s, err := notebookMarkdown(root, p)
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		s, err := goComments(root, p)
		if err != nil {
			return err
		}
		if s != nil {
			out = append(out, *s)
		}
		return nil
	})
	return out, err
}

// notebookMarkdown is a notebook's Markdown cells, one Source each (Line: the cell's line).
func notebookMarkdown(root, path string) ([]Source, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var nb struct {
		Cells []struct {
			CellType string   `json:"cell_type"`
			Source   []string `json:"source"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(b, &nb); err != nil {
		return nil, err
	}
	rel, _ := filepath.Rel(root, path)
	var out []Source
	for i, c := range nb.Cells {
		if c.CellType != "markdown" {
			continue
		}
		cell := i + 1
		out = append(out, Source{Path: rel + " cell " + itoa(cell), Text: strings.Join(c.Source, ""), Line: func(n int) int { return n }})
	}
	return out, nil
}

// goComments is a Go file's comments (nil for a generated file), each comment line at
// its line in the file.
func goComments(root, path string) (*Source, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "// Code generated") && strings.HasSuffix(c.Text, "DO NOT EDIT.") {
				return nil, nil
			}
		}
	}
	var lines []string
	var at []int
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			line := fset.Position(c.Pos()).Line
			for i, l := range strings.Split(c.Text, "\n") {
				lines, at = append(lines, l), append(at, line+i)
			}
		}
	}
	rel, _ := filepath.Rel(root, path)
	return &Source{Path: rel, Text: strings.Join(lines, "\n"), Line: func(n int) int {
		if n >= 1 && n <= len(at) {
			return at[n-1]
		}
		return n
	}}, nil
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
