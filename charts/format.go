package charts

import (
	"strconv"

	"github.com/dashlab/dashlab/dash/unit"
)

// Dur writes a duration for a reader: four significant digits at most and the unit
// apart, µs for microseconds ("14.79 ms", "3 µs", "1.5 s", "850 ns"). unit.Duration's
// String ("14.7916ms", "3µs") is the exact form that YAML and the command line read
// back; Dur is for titles, labels and prose.
func Dur(d unit.Duration) string {
	v, u := float64(d), "ns"
	m := v
	if m < 0 {
		m = -m
	}
	switch {
	case m >= float64(unit.Second):
		v, u = v/float64(unit.Second), "s"
	case m >= float64(unit.Millisecond):
		v, u = v/float64(unit.Millisecond), "ms"
	case m >= float64(unit.Microsecond):
		v, u = v/float64(unit.Microsecond), "µs"
	}
	return strconv.FormatFloat(roundSig(v, 4), 'f', -1, 64) + " " + u
}
