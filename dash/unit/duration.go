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
// "3µs", "100µs", "2.621ms", "20.982s". Microseconds are written "µs" (the
// micro sign U+00B5, as Go's time.Duration writes them); ParseDuration and
// YAML read "µs", "μs" (Greek mu) and the ASCII "us" alike, so the text
// reads back exactly and files written with "us" still read.
func (d Duration) String() string {
	sign, m := magnitude(int64(d))
	switch {
	case m >= uint64(Second):
		return sign + trimFloat(float64(m)/1e9) + "s"
	case m >= uint64(Millisecond):
		return sign + trimFloat(float64(m)/1e6) + "ms"
	case m >= uint64(Microsecond):
		return sign + trimFloat(float64(m)/1e3) + "µs"
	default:
		return fmt.Sprintf("%s%dns", sign, m)
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
// A value beyond the representable range saturates at ±MaxDuration; NaN
// gives 0.
func FromSeconds(s float64) Duration { return durationOf(math.Round(s * 1e9)) }

// FromMicroseconds converts microseconds to a Duration, rounding to the
// nearest nanosecond.
// It saturates as FromSeconds does.
func FromMicroseconds(us float64) Duration { return durationOf(math.Round(us * 1e3)) }

// durationOf converts whole nanoseconds to a Duration, saturating at
// ±MaxDuration (a float64 beyond the int64 range has no defined
// conversion in Go) and mapping NaN to 0.
func durationOf(ns float64) Duration {
	switch {
	case ns != ns:
		return 0
	case ns >= math.MaxInt64:
		return MaxDuration
	case ns <= math.MinInt64:
		return -MaxDuration
	}
	return Duration(ns)
}
