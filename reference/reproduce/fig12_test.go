package reproduce

import (
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
)

// A small study has every sweep, normalized to its reference point, and
// the t_PROG sweep's stall against the zero-time reference.
func TestFig12StudySmall(t *testing.T) {
	su := Fig12Setup{Readings: []dash.Reading{dash.ReadingPhysical}, PageSizes: []unit.Bytes{8 * unit.KiB},
		TReads: []unit.Duration{8 * unit.Microsecond}, TProgs: []unit.Duration{5 * unit.Millisecond},
		Links: []unit.BytesPerSecond{0.8e12}, Output: 16}
	var calls [][2]int
	su.Progress = func(done, total int) { calls = append(calls, [2]int{done, total}) }
	res, err := Fig12Study(su, 2)
	if err != nil {
		t.Fatal(err)
	}
	// the nominal run (shared by the four sweeps), 8 KiB, 8 µs, 5 ms, t_PROG 0, 0.8 TB/s, RelayOnly
	const runs = 7
	if len(calls) != runs+1 {
		t.Fatalf("progress called %d times, want %d: %v", len(calls), runs+1, calls)
	}
	for i, c := range calls {
		if c != [2]int{i, runs} {
			t.Errorf("progress call %d = %d of %d, want %d of %d", i, c[0], c[1], i, runs)
		}
	}
	for p, ref := range fig12Reference {
		pts := res.Sweep(p, dash.ReadingPhysical)
		if len(pts) != 2 {
			t.Fatalf("%s: %d points", p, len(pts))
		}
		for _, x := range pts {
			if x.Value == ref && x.Normalized != 1 {
				t.Errorf("%s reference point normalized to %v", p, x.Normalized)
			}
			// Physical reading: a bigger page delivers more per t_R (faster);
			// a longer t_R or a slower link is slower.
			if x.Value != ref && (p == summary.Fig12PageSize && !(x.Normalized < 1) || (p == summary.Fig12TRead || p == summary.Fig12Link) && !(x.Normalized > 1)) {
				t.Errorf("%s = %s: normalized E2E %v, against the trend", p, x.Label, x.Normalized)
			}
			if p == summary.Fig12TProg && x.Stall < 0 {
				t.Errorf("negative stall %v", x.Stall)
			}
		}
	}
	if res.Nominal[dash.ReadingPhysical].E2E == 0 || res.RelayOnly[dash.ReadingPhysical].E2E == 0 || len(res.KV) == 0 {
		t.Fatal("nominal, relay-only or KV trajectory missing")
	}
	if _, err := Fig12Study(Fig12Setup{}, 0); err == nil {
		t.Fatal("empty setup accepted")
	}
}
