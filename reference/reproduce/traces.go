package reproduce

import (
	"fmt"
	"time"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/reference"
)

// The traced run of the report: Qwen3 at the paper's default workload, decode pass 1,
// layer 3, on DASH and the two single-path baselines.
const (
	traceModel  = "qwen3-235b-a22b"
	traceBatch  = 4
	tracePrompt = 1024
	traceOutput = 128
	tracePass   = 1
	traceLayer  = 3
)

var traceSystems = []string{"dash", "relay-only", "direct-only"}

// traced runs one catalogue experiment with a traced layer.
func traced(modelID, systemID string, batch, prompt, output, pass, layer int) (sim.Result, error) {
	exp, err := reference.Experiment(modelID, systemID).Batch(batch).Prompt(prompt).Output(output).Build()
	if err != nil {
		return sim.Result{}, err
	}
	r, err := sim.RunWith(exp, sim.Options{Trace: &sim.TraceSpec{Pass: pass, Layer: layer}})
	if err != nil {
		return sim.Result{}, err
	}
	if r.Timeline == nil {
		return sim.Result{}, fmt.Errorf("%s on %s: the simulation returned no timeline for pass %d layer %d", modelID, systemID, pass, layer)
	}
	return r, nil
}

// The figures' derived artifacts: the traced layers and Fig. 9's bound argument.
func init() {
	derive(func(opts Options, art *Artifacts) error {
		if !opts.Figures {
			return nil
		}
		start := time.Now()
		art.Traces = nil
		for _, s := range traceSystems {
			r, err := traced(traceModel, s, traceBatch, tracePrompt, traceOutput, tracePass, traceLayer)
			if err != nil {
				return err
			}
			art.Traces = append(art.Traces, r)
		}
		art.figureTime("traced runs", time.Since(start))
		start = time.Now()
		art.Fig9Bounds = nil
		for _, r := range dash.Readings() {
			b, err := computeFig9Bound(r)
			if err != nil {
				return err
			}
			art.Fig9Bounds = append(art.Fig9Bounds, b)
		}
		note, err := ArrayBoundNote()
		if err != nil {
			return err
		}
		art.BoundNote = note
		art.figureTime("Fig. 9 bound", time.Since(start))
		return nil
	})
}
