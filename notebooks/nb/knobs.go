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
//	nb.Case{..., Modify: nb.With(nb.TRead(10*unit.Microsecond), nb.PageSize(16*unit.KiB))}
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

// TRead sets the HBF page read latency t_R (0 keeps the system's).
func TRead(d unit.Duration) Knob {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		if d > 0 {
			b = b.TRead(d)
		}
		return b
	}
}

// TProg sets the HBF page program latency t_PROG (0 keeps the system's).
func TProg(d unit.Duration) Knob {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		if d > 0 {
			b = b.TProg(d)
		}
		return b
	}
}

// PageSize sets the HBF page size, the SRAM regions following (0 keeps the system's).
func PageSize(p unit.Bytes) Knob {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		if p > 0 {
			b = b.PageSize(p)
		}
		return b
	}
}

// LinkBandwidth sets every link's usable bandwidth (0 keeps the system's).
func LinkBandwidth(bw unit.BytesPerSecond) Knob {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		if bw > 0 {
			b = b.LinkBandwidth(bw)
		}
		return b
	}
}

// Execution replaces the execution switches.
func Execution(e dash.ExecutionSpec) Knob {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.Execution(e) }
}

// LaunchOnlyOverhead turns the launch-floor-only operator overhead on or off.
func LaunchOnlyOverhead(on bool) Knob {
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder { return b.LaunchOnlyOverhead(on) }
}
