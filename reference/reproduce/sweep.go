package reproduce

import (
	"errors"
	"strings"
	"sync"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/reference"
)

// Point is one simulation of a sweep: an experiment and its outcome.
type Point struct {
	// Model and System are catalogue ids.
	Model, System string
	// Batch, Prompt and Output are B, L_in and L_out.
	Batch, Prompt, Output int
	// Result is valid when Err is empty. A configuration that does not fit
	// its memory system has Fits false and the planner's message in Err.
	Result sim.Result
	// Fits is false when the experiment does not fit its memory system.
	Fits bool
	// Err is the reason there is no result.
	Err string
}

// spec names one simulation of a sweep.
type spec struct {
	model, system         string
	batch, prompt, output int
	modify                func(dash.ExperimentBuilder) dash.ExperimentBuilder
}

// runSweep runs the specs on workers goroutines, one simulation each, and
// returns the points in the order of the specs.
func runSweep(specs []spec, workers int) []Point {
	out := make([]Point, len(specs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = runPoint(specs[i])
			}
		}()
	}
	for i := range specs {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}

func runPoint(s spec) Point {
	p := Point{Model: s.model, System: s.system, Batch: s.batch, Prompt: s.prompt, Output: s.output}
	b := reference.Experiment(s.model, s.system).Batch(s.batch).Prompt(s.prompt).Output(s.output)
	if s.modify != nil {
		b = s.modify(b)
	}
	exp, err := b.Build()
	if err != nil {
		p.Err = err.Error()
		if !strings.Contains(p.Err, "does not fit") {
			p.Fits = true // a real error, not a capacity refusal
		}
		return p
	}
	p.Fits = true
	r, err := sim.Run(exp)
	if err != nil {
		p.Err = err.Error()
		return p
	}
	p.Result = r
	return p
}

// sweepErr collects the errors of points that fit but failed.
func sweepErr(points []Point) error {
	var errs []error
	for _, p := range points {
		if p.Fits && p.Err != "" {
			errs = append(errs, errors.New(p.Model+"/"+p.System+": "+p.Err))
		}
	}
	return errors.Join(errs...)
}

// lookup finds the point of a model, system, batch and lengths.
func lookup(points []Point, model, system string, batch, prompt, output int) (Point, bool) {
	for _, p := range points {
		if p.Model == model && p.System == system && p.Batch == batch && p.Prompt == prompt && p.Output == output {
			return p, p.Err == ""
		}
	}
	return Point{}, false
}

// misfits describes the points whose experiment does not fit its system.
func misfits(points []Point) string {
	seen := map[string]bool{}
	var out []string
	for _, p := range points {
		if p.Fits || seen[p.Model+p.System] {
			continue
		}
		seen[p.Model+p.System] = true
		out = append(out, p.Model+" on "+p.System)
	}
	if len(out) == 0 {
		return ""
	}
	return "; does not fit (not simulated): " + strings.Join(out, ", ")
}
