package sweep

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// benchPlan is Qwen3-235B-A22B at B/L_in/L_out = 4/1K/128 on DASH over n
// values of t_R (1 us, 1.001 us, ...): every point a distinct simulation.
func benchPlan(b *testing.B, n int) *Plan {
	p, err := New(Base("qwen3-235b-a22b", "dash")).
		Count("overrides.hbf.t_read", "1us", fmt.Sprintf("%dns", 1000+n-1), n).
		Compile()
	if err != nil {
		b.Fatal(err)
	}
	if p.Len() != n {
		b.Fatalf("%d points, want %d", p.Len(), n)
	}
	return p
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// BenchmarkRunFile writes sweeps of 250 and 2500 points to a CSV file on
// one worker per CPU, reporting points per second of wall time, CPU
// seconds per point (what a loaded machine cannot hide) and the peak heap
// sampled every 50 rows, which stays flat as the sweep grows (rows stream
// to the file).
//
//	go test -run '^$' -bench RunFile -benchtime 1x ./reference/sweep/
func BenchmarkRunFile(b *testing.B) {
	for _, n := range []int{250, 2500} {
		b.Run(fmt.Sprintf("points=%d", n), func(b *testing.B) {
			p := benchPlan(b, n)
			dir := b.TempDir()
			var peak uint64
			var ms runtime.MemStats
			runtime.GC()
			b.ResetTimer()
			start, cpu0 := time.Now(), cpuSeconds()
			for i := range b.N {
				out := filepath.Join(dir, fmt.Sprintf("run%d.csv", i))
				_, err := RunFile(context.Background(), p, out, RunOptions{Progress: func(done, _ int) {
					if done%50 == 0 {
						runtime.ReadMemStats(&ms)
						peak = max(peak, ms.HeapAlloc)
					}
				}})
				if err != nil {
					b.Fatal(err)
				}
			}
			wall, cpu := time.Since(start).Seconds(), cpuSeconds()-cpu0
			points := float64(n * b.N)
			b.ReportMetric(points/wall, "points/s")
			b.ReportMetric(1000*cpu/points, "cpu-ms/point")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "workers")
		})
	}
}
