package unit

import "math"

// FLOPs is an amount of floating-point (or integer tensor) work.
type FLOPs float64

// FLOPsPerSecond is a compute rate.
type FLOPsPerSecond float64

// Compute-rate multiples.
const (
	GFLOPs FLOPsPerSecond = 1e9
	TFLOPs FLOPsPerSecond = 1e12
)

// TFLOPs returns r in TFLOP/s.
func (r FLOPsPerSecond) TFLOPs() float64 { return float64(r) / 1e12 }

// String prints r as "756 TFLOP/s".
func (r FLOPsPerSecond) String() string {
	if math.Abs(float64(r)) >= 1e12 {
		return trimFloat(float64(r)/1e12) + " TFLOP/s"
	}
	return trimFloat(float64(r)/1e9) + " GFLOP/s"
}

// String prints f as "180.4 TFLOP", "2.1 GFLOP".
func (f FLOPs) String() string {
	switch a := math.Abs(float64(f)); {
	case a >= 1e12:
		return trimFloat(float64(f)/1e12) + " TFLOP"
	case a >= 1e9:
		return trimFloat(float64(f)/1e9) + " GFLOP"
	case a >= 1e6:
		return trimFloat(float64(f)/1e6) + " MFLOP"
	default:
		return trimFloat(float64(f)) + " FLOP"
	}
}

// ComputeTime is the time to do f at rate r, rounded up to the next
// nanosecond. A non-positive rate or amount gives 0.
func ComputeTime(f FLOPs, r FLOPsPerSecond) Duration {
	if f <= 0 || r <= 0 {
		return 0
	}
	return ceilNanos(float64(f) / float64(r) * 1e9)
}

// Hertz is a frequency.
type Hertz float64

// Frequency multiples.
const (
	MHz Hertz = 1e6
	GHz Hertz = 1e9
)

// String prints h as "1755 MHz".
func (h Hertz) String() string { return trimFloat(float64(h)/1e6) + " MHz" }

// Watts is a power.
type Watts float64

// String prints w as "6.4 W".
func (w Watts) String() string { return trimFloat(float64(w)) + " W" }

// JoulesPerBit is an energy efficiency of a data link.
type JoulesPerBit float64

// PicojoulePerBit is 1e-12 J/bit.
const PicojoulePerBit JoulesPerBit = 1e-12

// String prints e as "0.5 pJ/bit".
func (e JoulesPerBit) String() string { return trimFloat(float64(e)/1e-12) + " pJ/bit" }

// Power is the power drawn by moving data at rate r with energy e per bit.
func Power(r BytesPerSecond, e JoulesPerBit) Watts {
	return Watts(float64(r) * 8 * float64(e))
}
