package reference

import "github.com/dashlab/dashlab/dash"

// Catalogue resolves the ids of the shipped models (reference/models), memory systems
// (reference/systems) and GPUs (reference/gpus, with timing models fitted on
// DefaultProfile) for dash.ExperimentBuilder: the one catalogue the builder, the
// experiment files and the CLI use. Files are read and decoded on first use.
var Catalogue dash.Catalogue = shipped{}

// DefaultSystem is the system an experiment file without one runs on.
const DefaultSystem = "dash"

type shipped struct{}

func (shipped) Model(id string) (dash.ModelSpec, error)   { return Model(id) }
func (shipped) System(id string) (dash.SystemSpec, error) { return System(id) }
func (shipped) Timing(gpu string) (dash.Timing, error) {
	m, err := Timing(gpu)
	if err != nil {
		return nil, err
	}
	return m, nil
}
