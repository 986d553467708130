package sweep

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/dashlab/dashlab/dash"

	"github.com/dashlab/dashlab/internal/safeio"
)

// Kind is what a point runs. The fixed-batch runner ("fixed") is built in;
// other kinds (serving) register themselves with [RegisterKind] and may add a
// section of their own to the spec, swept like any other path.
type Kind interface {
	// Name is the spec's kind value.
	Name() string
	// Section is the key of the kind's own spec section and the type of its
	// value ("" and nil when it has none).
	Section() (key string, params reflect.Type)
	// Metrics are the metric columns, units in the names.
	Metrics() []string
	// Validate checks a point's kind-specific values; the experiment's specs
	// are validated already.
	Validate(p Point) error
	// Cost estimates a point's run time, in arbitrary units, to balance
	// shards.
	Cost(p Point) float64
	// Run runs one point: the metric values in Metrics order and, for
	// in-process use, the full result. An experiment that does not fit its
	// memory system returns the planner's error.
	Run(ctx context.Context, p Point) (Outcome, error)
}

// WorkloadKind is a kind that sets the experiment's workload itself (a
// serving kind sizes it for its scheduler's largest pass): the point's
// workload is replaced by what Workload returns before it is validated.
type WorkloadKind interface {
	Kind
	// Workload returns the point's workload.
	Workload(p Point) dash.WorkloadSpec
}

// KnobKind is a kind whose points take knobs beyond one GPU's memory system
// (the cluster kind of reference/clusters takes the cluster's hardware and
// layout knobs, and the GPUs' memory-system knobs, which it applies to
// every GPU of the cluster): the base's overrides and the axes'
// overrides.PATH that it takes are not applied to the point's System but
// handed to it as Point.Settings.
type KnobKind interface {
	Kind
	// TakesKnob reports whether the kind sets the knob itself.
	TakesKnob(k dash.Knob) bool
}

// Outcome is what a point's run gives.
type Outcome struct {
	// Metrics are the values, in the kind's Metrics order.
	Metrics []float64
	// Result is the kind's full result (sim.Result for fixed runs); it is
	// kept by [Collect] and not written to files.
	Result any
}

var (
	kindsMu sync.Mutex
	kinds   = map[string]Kind{}
)

// RegisterKind adds a point kind; a second kind of the same name is an
// error.
func RegisterKind(k Kind) error {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	if _, dup := kinds[k.Name()]; dup {
		return fmt.Errorf("sweep: kind %q registered twice", k.Name())
	}
	kinds[k.Name()] = k
	return nil
}

// KindNames lists the registered kinds.
func KindNames() []string {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	var out []string
	for n := range kinds {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func kindByName(name string) (Kind, error) {
	if name == "" {
		name = FixedKind
	}
	kindsMu.Lock()
	k, ok := kinds[name]
	kindsMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("kind %s: unknown (known: %s)", safeio.Quote(name), strings.Join(KindNames(), ", "))
	}
	return k, nil
}

// Point is one point of a sweep, with its axis values applied: the
// experiment file, the resolved model, system and GPU timing, and the
// kind's own parameters.
type Point struct {
	// Index is the point's position in the sweep (0-based, after filters).
	Index int
	// Key is the point's stable key.
	Key string
	// Labels are the axis values, in the plan's axis order.
	Labels []string
	// File is the experiment file with the axes applied. Its Overrides are
	// the base's; System holds the result of applying them and the axes.
	File dash.ExperimentFile
	// System is the point's memory system: the file's system with the
	// base's overrides, then the axes' knobs, applied (dash.ApplySettings).
	System dash.SystemSpec
	// Model is the point's model.
	Model dash.ModelSpec
	// Timing is the GPU timing model of the point's profile and GPU.
	Timing dash.Timing
	// Params is a pointer to the kind's section (nil when it has none).
	Params any
	// Settings are the knobs a KnobKind takes: the base's overrides, then
	// the axes' overrides.PATH, in order (nil for other kinds).
	Settings []dash.Setting

	err error // the axes' knobs could not be applied (reported by validation)
}

// Builder returns an experiment builder holding the point.
func (p Point) Builder() dash.ExperimentBuilder {
	return dash.NewExperiment().Name(p.File.Name).Model(p.Model).System(p.System).Timing(p.Timing).
		Workload(p.File.Workload).Execution(p.File.Execution)
}
