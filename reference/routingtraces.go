package reference

import (
	"bytes"
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/routing"
	"github.com/dashlab/dashlab/internal/safeio"
)

//go:embed routing/*.parquet
var routingFiles embed.FS

// RoutingTraces lists the shipped routing traces (reference/routing; their
// provenance is reference/routing/README.md).
func RoutingTraces() []string {
	entries, _ := routingFiles.ReadDir("routing")
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func init() {
	routing.RegisterShipped(func(name string) (*routing.Trace, bool, error) {
		if !slices.Contains(RoutingTraces(), name) {
			return nil, false, nil
		}
		t, err := RoutingTrace(name)
		return t, true, err
	})
}

// RoutingTrace reads a shipped routing trace by file name.
func RoutingTrace(name string) (*routing.Trace, error) {
	data, err := routingFiles.ReadFile("routing/" + name)
	if err != nil {
		return nil, fmt.Errorf("routing trace %s: not shipped (have %v)", safeio.Quote(name), RoutingTraces())
	}
	return routing.DecodeParquet(bytes.NewReader(data), int64(len(data)), name)
}

// withRoutingTrace resolves an experiment file's workload.routing.file: a
// path relative to the experiment file's directory, or, when no such file
// exists, the name of a shipped trace (RoutingTrace), which the builder
// then holds.
func withRoutingTrace(b dash.ExperimentBuilder, w dash.WorkloadSpec, baseDir string) (dash.ExperimentBuilder, error) {
	r := w.Routing
	if r.EffectiveKind() != dash.RoutingTrace || r.File == "" {
		return b, nil
	}
	p := r.File
	if !filepath.IsAbs(p) {
		p = filepath.Join(baseDir, p)
	}
	if _, err := os.Stat(p); err != nil && filepath.Base(r.File) == r.File {
		if t, terr := RoutingTrace(r.File); terr == nil {
			return b.RoutingTrace(t, r.Wrap), nil
		}
	}
	w.Routing.File = p
	return b.Workload(w), nil
}
