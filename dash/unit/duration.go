package unit

import (
	"fmt"
	"math"
)

// Duration is a span of simulated time in integer nanoseconds. Instants of
// simulated time are Durations since the start of a simulation.
type Duration int64

// Common durations.
const (
	Nanosecond  Duration = 1
	Microsecond Duration = 1000 * Nanosecond
	Millisecond Duration = 1000 * Microsecond
	Second      Duration = 1000 * Millisecond
)

// Seconds returns d in seconds.
func (d Duration) Seconds() float64 { return float64(d) / 1e9 }

// Milliseconds returns d in milliseconds.
func (d Duration) Milliseconds() float64 { return float64(d) / 1e6 }

// Microseconds returns d in microseconds.
func (d Duration) Microseconds() float64 { return float64(d) / 1e3 }

// String prints d with the largest unit that keeps the mantissa at least 1:
// "3us", "100us", "2.621ms", "20.982s".
func (d Duration) String() string {
	if d < 0 {
		return "-" + (-d).String()
	}
	switch {
	case d >= Second:
		return trimFloat(d.Seconds()) + "s"
	case d >= Millisecond:
		return trimFloat(d.Milliseconds()) + "ms"
	case d >= Microsecond:
		return trimFloat(d.Microseconds()) + "us"
	default:
		return fmt.Sprintf("%dns", int64(d))
	}
}

// Max returns the larger of a and b.
func Max(a, b Duration) Duration {
	if a > b {
		return a
	}
	return b
}

// Min returns the smaller of a and b.
func Min(a, b Duration) Duration {
	if a < b {
		return a
	}
	return b
}

// FromSeconds converts seconds to a Duration, rounding to the nearest
// nanosecond.
func FromSeconds(s float64) Duration { return Duration(math.Round(s * 1e9)) }

// FromMicroseconds converts microseconds to a Duration, rounding to the
// nearest nanosecond.
func FromMicroseconds(us float64) Duration { return Duration(math.Round(us * 1e3)) }
