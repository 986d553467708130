package reproduce

import (
	"errors"
	"runtime"
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
	// Reading is the reading of t_R the point ran under.
	Reading dash.Reading
	// Result is valid when Err is empty. A configuration that does not fit
	// its memory system has Fits false and the planner's message in Err.
	Result sim.Result
	// Fits is false when the experiment does not fit its memory system.
	Fits bool
	// Err is the reason there is no result.
	Err string
}

// Case names one simulation of a sweep: a catalogue model on a named
// system at a fixed-batch workload, with an optional change to the builder
// (a different t_R, execution switches, ...).
type Case struct {
	// Model and System are catalogue ids.
	Model, System string
	// Batch, Prompt and Output are B, L_in and L_out.
	Batch, Prompt, Output int
	// Reading is the reading of t_R (dash.ReadingPhysical, the zero value,
	// is the stated part; dash.ReadingPaper lifts the array's rate limit).
	Reading dash.Reading
	// Modify, when set, changes the experiment before it is built.
	Modify func(dash.ExperimentBuilder) dash.ExperimentBuilder
	// Sim are the simulation options (a sampled long decode, say).
	Sim sim.Options
}

// Sweep runs the cases on workers goroutines (0: GOMAXPROCS), one
// simulation each, and returns the points in the order of the cases. A case
// that does not fit its system, or fails, has its reason in Point.Err.
func Sweep(cases []Case, workers int) []Point {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return runSweep(cases, workers)
}

// runSweep runs the specs on workers goroutines, one simulation each, and
// returns the points in the order of the specs.
func runSweep(specs []Case, workers int) []Point {
	out := make([]Point, len(specs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(workers, len(specs))) {
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

// Build builds the experiment of a case: the catalogue model on the named
// system with the paper's GPU, the case's workload and reading, and its
// Modify applied.
func Build(c Case) (dash.Experiment, error) {
	b := reference.Experiment(c.Model, c.System).Batch(c.Batch).Prompt(c.Prompt).Output(c.Output).Reading(c.Reading)
	if c.Modify != nil {
		b = c.Modify(b)
	}
	return b.Build()
}

func runPoint(s Case) Point {
	p := Point{Model: s.Model, System: s.System, Batch: s.Batch, Prompt: s.Prompt, Output: s.Output, Reading: s.Reading}
	exp, err := Build(s)
	if err != nil {
		p.Err = err.Error()
		if !strings.Contains(p.Err, "does not fit") {
			p.Fits = true // a real error, not a capacity refusal
		}
		return p
	}
	p.Fits = true
	r, err := sim.RunWith(exp, s.Sim)
	if err != nil {
		p.Err = err.Error()
		return p
	}
	p.Result = r
	return p
}

// SweepErr joins the errors of the points that fit their memory system but
// failed (points that do not fit are reported by Fits, not as errors).
func SweepErr(points []Point) error {
	var errs []error
	for _, p := range points {
		if p.Fits && p.Err != "" {
			errs = append(errs, errors.New(p.Model+"/"+p.System+": "+p.Err))
		}
	}
	return errors.Join(errs...)
}

// Find returns the point of a model, system, batch and lengths, and whether
// it has a result.
func Find(points []Point, model, system string, batch, prompt, output int) (Point, bool) {
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
