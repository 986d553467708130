package summary

import (
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// ModelRow is one catalogue model with its derived footprint (Fig. 1, Table II).
type ModelRow struct {
	// Spec is the model.
	Spec dash.ModelSpec
	// Footprint is its derived footprint.
	Footprint dash.Footprint
	// Paper marks the six models of the paper's Table II.
	Paper bool
}

// Catalogue is the model catalogue with its derived footprints and the paper's numbers
// about it (Fig. 1's ranges, Table II's weights), judged by the harness.
type Catalogue struct {
	// Models is every catalogue model with its footprint, in the catalogue's order.
	Models []ModelRow
	// Fig1 are the ids of the models Fig. 1 surveys, Table2 those of Table II and Fig9
	// those of the main sweeps (§VI-B), each in the paper's order.
	Fig1, Table2, Fig9 []string
	// Rows are the judged rows of Fig. 1's ranges (fig1.*) and Table II's weights
	// (table2.*).
	Rows []Row
	// GPUMemory is the HBM capacity of the paper's GPU, Fig. 1's capacity wall.
	GPUMemory unit.Bytes
}

// Model returns the row of a model id (false when the catalogue has none).
func (c Catalogue) Model(id string) (ModelRow, bool) {
	for _, m := range c.Models {
		if m.Spec.ID == id {
			return m, true
		}
	}
	return ModelRow{}, false
}
