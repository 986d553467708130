package offload_test

import (
	"errors"
	"math"
	"os"
	"testing"
	"testing/fstest"

	"github.com/dashlab/dashlab/dash/offload"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
)

// FuzzHostData reads arbitrary cpu_expert.csv and h2d.csv files and, for
// every host profile that loads, evaluates weight streaming, CPU compute
// and the Hybrid at each measured batch and at 1, 8 and 32 cores with the
// shipped H200 timing model: every input ends in an error or evaluations
// whose TPOTs are positive and finite, never a panic. Seeds: the shipped
// files and issue 26's hostile ones.
func FuzzHostData(f *testing.F) {
	dir := "../../reference/profiles/h200-host-offload/"
	cpu, err := os.ReadFile(dir + offload.FileCPUExpert)
	if err != nil {
		f.Fatal(err)
	}
	h2d, err := os.ReadFile(dir + offload.FileH2D)
	if err != nil {
		f.Fatal(err)
	}
	const ch = "threads,batch,active_experts_last,median_us,min_us,max_us,reps\n"
	f.Add(string(cpu), string(h2d))
	f.Add(ch+"\"1,1,8,84166.7,82887.3,85137.7,7\n", string(h2d))
	f.Add(ch+"1,1,8,0.0841667,0.0828873,0.0851377,7\n2,1,8,0.05,0.04,0.06,7\n", string(h2d))
	f.Add(ch+"1,1,8,5,4,6,7\n2,1,8,50,40,60,7\n", "pinned,MB,median_us\nTrue,1,26\nTrue,8,150\nFalse,1,98\nFalse,8,640\n")
	f.Add(string(cpu), "pinned,MB,median_us\nTrue,1e15,26.8\nTrue,8,150\nFalse,1,98\nFalse,8,640\n")
	f.Add("\ufeff"+string(cpu), "\ufeff"+string(h2d))
	timing, err := reference.TimingFrom(reference.DefaultProfile, reference.DefaultGPU)
	if err != nil {
		f.Fatal(err)
	}
	shape := reference.HostOffloadShape
	f.Fuzz(func(t *testing.T, cpu, h2d string) {
		host, err := offload.LoadHostProfile(fstest.MapFS{offload.FileCPUExpert: {Data: []byte(cpu)}, offload.FileH2D: {Data: []byte(h2d)}}, "fuzz", shape)
		if err != nil {
			var de *offload.DataError
			if !errors.As(err, &de) && len(err.Error()) > 600 {
				t.Fatalf("an error of %d bytes: %.200v", len(err.Error()), err)
			}
			return
		}
		for _, b := range host.Batches() {
			for _, cores := range []int{1, 8, 32} {
				s := offload.Scenario{Batch: b, Cores: cores, MoELayers: 94, Shape: shape, CachedFraction: 0.5,
					NonExpertPerToken: 20 * unit.Millisecond, DASHTPOT: 40 * unit.Millisecond}
				e, err := offload.Evaluate(s, host, timing)
				if err != nil {
					continue // a fit the data do not support: an error, named
				}
				for _, sp := range []offload.Split{e.CPU, e.Streaming, e.StreamingPageable, e.Hybrid} {
					if sp.TPOT <= 0 || sp.TPOT >= unit.MaxDuration || math.IsNaN(e.Slowdown(sp)) {
						t.Fatalf("batch %d, %d cores: TPOT %v", b, cores, sp.TPOT)
					}
				}
				if e.Hybrid.TPOT > e.CPU.TPOT || e.Hybrid.TPOT > e.Streaming.TPOT {
					t.Fatalf("batch %d, %d cores: the Hybrid %v is slower than a single path (%v, %v)", b, cores, e.Hybrid.TPOT, e.CPU.TPOT, e.Streaming.TPOT)
				}
			}
		}
	})
}
