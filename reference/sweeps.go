package reference

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"

	"github.com/dashlab/dashlab/internal/safeio"
)

//go:embed sweeps/*.yaml
var sweepFiles embed.FS

// ExampleSweeps lists the shipped sweep specs (reference/sweeps/*.yaml):
// the paper's grids as sweeps, and examples beyond it.
func ExampleSweeps() []string {
	names, _ := fs.Glob(sweepFiles, "sweeps/*.yaml")
	for i, n := range names {
		names[i] = n[len("sweeps/"):]
	}
	return names
}

// ExampleSweep returns the text of a shipped sweep spec by file name; decode
// it with the sweep package.
func ExampleSweep(name string) (*bytes.Reader, error) {
	data, err := sweepFiles.ReadFile("sweeps/" + name)
	if err != nil {
		return nil, fmt.Errorf("example sweep %s: %w (have %v)", safeio.Quote(name), err, ExampleSweeps())
	}
	return bytes.NewReader(data), nil
}
