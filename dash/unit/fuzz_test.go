package unit

import (
	"math"
	"testing"
)

// FuzzParse feeds every unit parser arbitrary text: each returns a value or
// an error, never panics; a parsed value prints to a non-empty string that
// parses back (to within the printed precision) as the same kind of unit.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"24 GB", "4 KiB", "1e3 B", "-1 MB", "1.6 TB/s", "1e-9 B/s", "1e-3 B/s", "3us", "100000s",
		"9223372036854775807 B", "-9223372036854775808ns", "4.9", "756 TFLOP/s", "1755 MHz",
		"0.5 pJ/bit", "6.4 W", "1e308 TB", "NaN s", "Inf GB", "µs", "", " ", "1e", "e5 B", "--1 B",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b, err := ParseBytes(s); err == nil {
			back, err := ParseBytes(b.String())
			if err != nil || !near(float64(back), float64(b)) {
				t.Fatalf("bytes %q -> %d -> %q -> %d, %v", s, b, b.String(), back, err)
			}
		}
		if d, err := ParseDuration(s); err == nil {
			back, err := ParseDuration(d.String())
			if err != nil || !near(float64(back), float64(d)) {
				t.Fatalf("duration %q -> %d -> %q -> %d, %v", s, d, d.String(), back, err)
			}
		}
		if r, err := ParseBytesPerSecond(s); err == nil {
			if math.IsNaN(float64(r)) || math.IsInf(float64(r), 0) || r.String() == "" {
				t.Fatalf("rate %q -> %v (%q)", s, float64(r), r.String())
			}
		}
		for _, parse := range []func(string) (string, error){
			func(s string) (string, error) { v, err := ParseFLOPsPerSecond(s); return v.String(), err },
			func(s string) (string, error) { v, err := ParseHertz(s); return v.String(), err },
			func(s string) (string, error) { v, err := ParseJoulesPerBit(s); return v.String(), err },
			func(s string) (string, error) { v, err := ParseWatts(s); return v.String(), err },
		} {
			if out, err := parse(s); err == nil && out == "" {
				t.Fatalf("%q printed as an empty string", s)
			}
		}
	})
}

// near reports whether a printed-and-reparsed value is within the printed
// precision (4 decimals of the chosen unit, relative 1e-3 at worst) of the
// original.
func near(a, b float64) bool {
	d := math.Abs(a - b)
	return d <= 1 || d <= 1e-3*math.Max(math.Abs(a), math.Abs(b))
}
