package sim

import (
	"testing"

	"github.com/dashlab/dashlab/dash/unit"
)

func TestTransferChunk(t *testing.T) {
	for _, tc := range []struct {
		pages        int
		page, region unit.Bytes
		want         unit.Bytes
	}{
		{2048, 4 * unit.KiB, 4 * unit.MiB, 4 * unit.MiB}, // the paper: half a wave
		{2048, 4 * unit.KiB, 5 * unit.MiB, 4 * unit.MiB},
		{2048, 4 * unit.KiB, 3 * unit.MiB, 2 * unit.MiB},
		{2048, 4 * unit.KiB, 8 * unit.MiB, 4 * unit.MiB},
		{2048, 8 * unit.KiB, 8 * unit.MiB, 8 * unit.MiB},
		{2048, 4 * unit.KiB, 4 * unit.KiB, 4 * unit.KiB},
		{3, 4 * unit.KiB, 8 * unit.KiB, 4 * unit.KiB}, // an odd wave: one page
		{1, 4 * unit.KiB, 4 * unit.MiB, 4 * unit.KiB},
		{1021, 4 * unit.KiB, 4 * unit.MiB, 4 * unit.KiB}, // a prime wave
	} {
		if got := transferChunk(tc.pages, tc.page, tc.region); got != tc.want {
			t.Errorf("transferChunk(%d pages of %v, region %v) = %v, want %v", tc.pages, tc.page, tc.region, got, tc.want)
		}
	}
}
