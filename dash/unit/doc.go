// Package unit defines the typed physical quantities used throughout dashlab:
// byte counts, bandwidths, simulated durations, floating-point work and rates,
// frequencies, power and energy per bit.
//
// Each quantity is its own type, in the style of gonum.org/v1/gonum/unit, so
// that adding bytes to nanoseconds is a compile-time error. Decimal and binary
// prefixes are always explicit: GB is 1e9 bytes and GiB is 2^30 bytes; there
// is no unqualified "gigabyte".
//
// Simulated time is an integer count of nanoseconds ([Duration]). Conversions
// from a continuous quantity to time ([TransferTime], [ComputeTime]) round up
// to the next nanosecond, so a resource modelled with them never runs faster
// than its rate.
//
// Every type parses from and prints to a human string with its unit
// ("24 GB", "4 KiB", "1.6 TB/s", "3µs", "756 TFLOP/s"); YAML specs use those
// strings, and a bare number where a unit is needed is an error that names
// the missing unit. Microseconds print as "µs" (the micro sign, as Go's
// time.Duration prints them) and parse from "µs", "μs" or the ASCII "us", so
// specs may be typed either way and files written before still read.
package unit
