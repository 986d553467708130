package reproduce

import (
	"fmt"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/reference"
)

// TraceModel, TraceBatch, TracePrompt, TraceOutput, TracePass and TraceLayer are the
// traced run of the report: Qwen3 at the paper's default workload, decode pass 1, layer 3.
const (
	TraceModel  = "qwen3-235b-a22b"
	TraceBatch  = 4
	TracePrompt = 1024
	TraceOutput = 128
	TracePass   = 1
	TraceLayer  = 3
)

// TraceSystems are the systems DefaultTraces runs: DASH and the two single-path baselines.
var TraceSystems = []string{"dash", "relay-only", "direct-only"}

// Traced runs one catalogue experiment with a traced layer.
func Traced(modelID, systemID string, batch, prompt, output, pass, layer int) (charts.NamedResult, error) {
	exp, err := reference.Experiment(modelID, systemID).Batch(batch).Prompt(prompt).Output(output).Build()
	if err != nil {
		return charts.NamedResult{}, err
	}
	r, err := sim.RunWith(exp, sim.Options{Trace: &sim.TraceSpec{Pass: pass, Layer: layer}})
	if err != nil {
		return charts.NamedResult{}, err
	}
	if r.Timeline == nil {
		return charts.NamedResult{}, fmt.Errorf("%s on %s: the simulation returned no timeline for pass %d layer %d", modelID, systemID, pass, layer)
	}
	return charts.NamedResult{Name: charts.SystemName(systemID), Result: r}, nil
}

// DefaultTraces runs the report's traced layer (TraceModel ... TraceLayer) on each of
// TraceSystems.
func DefaultTraces() ([]charts.NamedResult, error) {
	var out []charts.NamedResult
	for _, s := range TraceSystems {
		r, err := Traced(TraceModel, s, TraceBatch, TracePrompt, TraceOutput, TracePass, TraceLayer)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
