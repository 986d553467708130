package reference

import "github.com/dashlab/dashlab/dash"

// PaperKnobs is where the defaults of the knob table (dash.Knobs) are
// written out: the paper's DASH system (systems/dash.yaml, each value with
// its source), the paper's fixed-batch workload (dash.DefaultWorkload) and
// the default execution switches. Its values are the default column of
// `dashlab knobs`, docs/knobs.md and the notebooks' parameter help.
func PaperKnobs() dash.KnobTarget {
	s := MustSystem("dash")
	w := dash.DefaultWorkload()
	return dash.KnobTarget{System: &s, Workload: &w, Execution: &dash.ExecutionSpec{}}
}
