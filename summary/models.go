package summary

import "github.com/dashlab/dashlab/dash"

// ModelRow is one catalogue model with its derived footprint (Fig. 1, Table II).
type ModelRow struct {
	// Spec is the model.
	Spec dash.ModelSpec
	// Footprint is its derived footprint.
	Footprint dash.Footprint
	// Paper marks the six models of the paper's Table II.
	Paper bool
}
