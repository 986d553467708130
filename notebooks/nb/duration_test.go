package nb

import (
	"testing"

	"github.com/dashlab/dashlab/dash/unit"
)

// Durations in computed prose read as a reader writes them; other verbs keep the value.
func TestMDfWritesDurationsForReaders(t *testing.T) {
	tpot := 14791600 * unit.Nanosecond
	got := capture(t, func() { MDf("TPOT %v, t_R = %s, %d ns", tpot, 3*unit.Microsecond, tpot) })
	if want := "TPOT 14.79 ms, t_R = 3 µs, 14791600 ns"; len(got) != 1 || got[0] != want {
		t.Fatalf("MDf displayed %q, want %q", got, want)
	}
}
