package gpu

import (
	"math"

	"gonum.org/v1/gonum/optimize"
)

// roof is a fitted roofline: latency = o + max(flops/p, bytes/bw), in
// seconds, bytes per second and FLOP per second. With n > 0 the max is
// smoothed, (c^n + m^n)^(1/n): near the ridge a kernel neither streams at
// full bandwidth nor computes at full rate.
type roof struct{ o, bw, p, n float64 }

func (r roof) at(w work) float64 {
	c, m := w.flops/r.p, w.bytes()/r.bw
	if r.n == 0 {
		return r.o + math.Max(c, m)
	}
	hi, lo := math.Max(c, m), math.Min(c, m)
	if hi == 0 {
		return r.o
	}
	return r.o + hi*math.Pow(1+math.Pow(lo/hi, r.n), 1/r.n)
}

// fitRoof fits (overhead, bandwidth, rate) to the samples by least squares
// on relative error, with Nelder-Mead over the logarithms of the parameters and
// a weak pull towards init so that a parameter the data do not constrain
// (the compute rate of a purely memory-bound kind) stays physical. When
// init.n > 0 it fits the hard and the smooth maximum (starting the exponent
// at init.n from the hard fit) and keeps the smooth one only if it fits the
// samples better.
//
// Only the exponent is fitted for the smooth maximum (a golden-section
// search over log n, the hard fit's overhead, bandwidth and rate kept): a
// joint fit of all four parameters costs a hundred times more, which every
// process start and every refit of the error studies would pay.
func fitRoof(samples []sample, init roof) roof {
	ws := make([]work, len(samples))
	inv := make([]float64, len(samples))
	for i, s := range samples {
		op := s.op
		op.WeightDType = BF16
		ws[i] = workOf(op)
		inv[i] = 1 / s.t
	}
	misfit := func(r roof) float64 {
		sum := 0.0
		for i, w := range ws {
			d := r.at(w)*inv[i] - 1
			sum += d * d
		}
		return sum
	}
	hard := minimizeRoof(misfit, init)
	if init.n <= 0 {
		return hard
	}
	smooth := hard
	smooth.n = math.Exp(goldenMin(func(x float64) float64 {
		r := hard
		r.n = math.Exp(x)
		return misfit(r)
	}, 0, math.Log(maxRidgeExponent)))
	if misfit(smooth) < misfit(hard) {
		return smooth
	}
	return hard
}

// maxRidgeExponent bounds the smooth maximum's exponent: at 64 it is within
// ln(2)/64 (about one percent) of the hard maximum at the ridge.
const maxRidgeExponent = 64

// goldenMin returns the x in [a, b] that minimises f, a unimodal function,
// by golden-section search to a width of 1e-3.
func goldenMin(f func(float64) float64, a, b float64) float64 {
	g := (math.Sqrt(5) - 1) / 2
	c, d := b-g*(b-a), a+g*(b-a)
	fc, fd := f(c), f(d)
	for b-a > 1e-3 {
		if fc < fd {
			b, d, fd = d, c, fc
			c = b - g*(b-a)
			fc = f(c)
		} else {
			a, c, fc = c, d, fd
			d = a + g*(b-a)
			fd = f(d)
		}
	}
	return (a + b) / 2
}

// minimizeRoof minimises misfit plus the pull towards init over the
// logarithms of the hard roofline's overhead, bandwidth and rate, from init.
func minimizeRoof(misfit func(roof) float64, init roof) roof {
	toRoof := func(x []float64) roof { return roof{o: math.Exp(x[0]), bw: math.Exp(x[1]), p: math.Exp(x[2])} }
	x0 := []float64{math.Log(init.o), math.Log(init.bw), math.Log(init.p)}
	const pull = 1e-4
	obj := func(x []float64) float64 {
		sum := misfit(toRoof(x))
		for i := range x {
			d := x[i] - x0[i]
			sum += pull * d * d
		}
		return sum
	}
	best := append([]float64(nil), x0...)
	bestF := obj(best)
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
	return toRoof(best)
}
