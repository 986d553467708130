package reproduce

import (
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
)

// BenchmarkFig10Study is Fig. 10 end to end: four DASH runs (1K/128) and
// every CPU/GPU split at two core caps.
func BenchmarkFig10Study(b *testing.B) {
	host, err := reference.HostOffload()
	if err != nil {
		b.Fatal(err)
	}
	o := OffloadOptions{Model: Fig10Model, Batches: Fig10Batches, Prompt: 1024, Output: 128, Cores: []int{Fig10Cores}, Reading: dash.ReadingPaper}
	for b.Loop() {
		if _, err := Fig10Study(host, o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEndurance is the Table III-workload run and the lifetime grid.
func BenchmarkEndurance(b *testing.B) {
	for b.Loop() {
		if _, err := defaultEndurance(); err != nil {
			b.Fatal(err)
		}
	}
}
