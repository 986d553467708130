package gpu

import (
	"math"

	"gonum.org/v1/gonum/optimize"
)

// roof is a fitted roofline: latency = o + max(flops/p, bytes/bw), in
// seconds, bytes per second and FLOP per second.
type roof struct{ o, bw, p float64 }

func (r roof) at(w work) float64 { return r.o + math.Max(w.flops/r.p, w.bytes()/r.bw) }

// fitRoof fits (overhead, bandwidth, rate) to the samples by least squares
// on relative error, with Nelder-Mead over the logarithms of the parameters and
// a weak pull towards init so that a parameter the data do not constrain
// (the compute rate of a purely memory-bound kind) stays physical.
func fitRoof(samples []sample, init roof) roof {
	ws := make([]work, len(samples))
	inv := make([]float64, len(samples))
	for i, s := range samples {
		op := s.op
		op.WeightDType = BF16
		ws[i] = workOf(op)
		inv[i] = 1 / s.t
	}
	x0 := []float64{math.Log(init.o), math.Log(init.bw), math.Log(init.p)}
	const pull = 1e-4
	obj := func(x []float64) float64 {
		r := roof{math.Exp(x[0]), math.Exp(x[1]), math.Exp(x[2])}
		sum := 0.0
		for i, w := range ws {
			d := r.at(w)*inv[i] - 1
			sum += d * d
		}
		for i := range x {
			d := x[i] - x0[i]
			sum += pull * d * d
		}
		return sum
	}
	best, bestF := x0, obj(x0)
	// Restart the simplex from the best point: Nelder-Mead can stall on
	// the kink of the max.
	for range 3 {
		res, err := optimize.Minimize(optimize.Problem{Func: obj}, best,
			&optimize.Settings{FuncEvaluations: 4000, Converger: &optimize.FunctionConverge{Absolute: 1e-10, Iterations: 50}},
			&optimize.NelderMead{SimplexSize: 0.5})
		if err != nil && res == nil {
			break
		}
		if res.F < bestF {
			best, bestF = res.X, res.F
		} else {
			break
		}
	}
	return roof{math.Exp(best[0]), math.Exp(best[1]), math.Exp(best[2])}
}
