package charts

import (
	"math"

	"github.com/dashlab/dashlab/summary"
)

// judged is a row as the harness gives it: the paper's value, the simulated one (NaN:
// not simulated), the absolute tolerance and the harness's verdict.
func judged(id, unit string, paper, simulated, tol float64, pass bool) summary.Row {
	r := summary.Row{ID: id, Unit: unit, Paper: paper, Tolerance: tol}
	if !math.IsNaN(simulated) {
		dev := simulated - paper
		r.Simulated, r.Deviation, r.Pass = &simulated, &dev, &pass
	}
	return r
}
