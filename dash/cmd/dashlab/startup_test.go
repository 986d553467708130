package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mixtralRun is the start-up target's command (issue 8): one fixed-batch run
// of Mixtral-8x22B on DASH, B = 4, 1K/128.
var mixtralRun = []string{"run", "--model", "mixtral-8x22b", "--system", "dash", "--batch", "4", "--prompt", "1024", "--output", "128"}

// BenchmarkRunMixtral times `dashlab run` of Mixtral-8x22B, B = 4, 1K/128.
//
//   - process: the whole process, as a user pays it (go build once, then one
//     fork+exec per op); beside the wall time it reports the children's CPU
//     time (cpu-ns/op, user + system) and minor page faults (faults/op), which
//     vary less than the wall time on a shared machine. `hyperfine -N` on the
//     built binary measures the same.
//   - in-process: run() alone, after a first call has loaded the catalogue,
//     the profile and the timing model: what each further run in one process
//     (a notebook, a sweep) costs.
func BenchmarkRunMixtral(b *testing.B) {
	b.Run("process", func(b *testing.B) {
		bin := filepath.Join(b.TempDir(), "dashlab")
		build := exec.Command("go", "build", "-o", bin, ".")
		if out, err := build.CombinedOutput(); err != nil {
			b.Skipf("go build: %v\n%s", err, out)
		}
		var cpu time.Duration
		var faults int64
		n := 0
		for b.Loop() {
			cmd := exec.Command(bin, mixtralRun...)
			cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				faults += ru.Minflt
			}
			n++
		}
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/op")
		b.ReportMetric(float64(faults)/float64(n), "faults/op")
	})
	b.Run("in-process", func(b *testing.B) {
		if code := run(mixtralRun, strings.NewReader(""), io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
		b.ReportAllocs()
		for b.Loop() {
			run(mixtralRun, strings.NewReader(""), io.Discard, io.Discard)
		}
	})
}
