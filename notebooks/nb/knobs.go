package nb

import (
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// Knob changes one thing of an experiment before it is built (a memory-system
// parameter, an execution switch); With composes knobs into a Case.Modify function.
type Knob func(dash.ExperimentBuilder) dash.ExperimentBuilder

// With composes knobs, applied in order, into a Case.Modify function (nil for none):
//
//	summary.Case{..., Modify: nb.With(nb.TRead(10*unit.Microsecond), nb.PageSize(16*unit.KiB))}
func With(knobs ...Knob) func(dash.ExperimentBuilder) dash.ExperimentBuilder {
	var ks []Knob
	for _, k := range knobs {
		if k != nil {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return nil
	}
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		for _, k := range ks {
			b = k(b)
		}
		return b
	}
}

// The knobs take values with their units (nb.TRead(3*unit.Microsecond)); the builder
// refuses an implausible value (dash's limits: t_R under 10 ns, a page under 512 B, a
// link under 1 GB/s, ...) with an error naming the field and the value, so a number
// written without its unit (nb.TRead(3): 3 ns) fails the cell instead of running.

// TRead sets the HBF page read latency t_R.
func TRead(d unit.Duration) Knob {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.TRead(d) }
}

// TProg sets the HBF page program latency t_PROG.
func TProg(d unit.Duration) Knob {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.TProg(d) }
}

// PageSize sets the HBF page size, the SRAM regions following.
func PageSize(p unit.Bytes) Knob {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.PageSize(p) }
}

// LinkBandwidth sets every link's usable bandwidth.
func LinkBandwidth(bw unit.BytesPerSecond) Knob {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.LinkBandwidth(bw) }
}

// Execution replaces the execution switches.
func Execution(e dash.ExecutionSpec) Knob {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.Execution(e) }
}

// LaunchOnlyOverhead turns the launch-floor-only operator overhead on or off.
func LaunchOnlyOverhead(on bool) Knob {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.LaunchOnlyOverhead(on) }
}
