//go:build linux

package charts

import (
	"runtime"
	"syscall"
	"time"
)

// threadCPU returns a function that, called after the work, gives the CPU time (user +
// system) that this goroutine's thread spent since threadCPU was called; the goroutine
// stays on its thread in between. Linux only (RUSAGE_THREAD); elsewhere it reports 0.
func threadCPU() func() time.Duration {
	runtime.LockOSThread()
	t0, ok := rusageThread()
	return func() time.Duration {
		defer runtime.UnlockOSThread()
		t1, ok1 := rusageThread()
		if !ok || !ok1 {
			return 0
		}
		return t1 - t0
	}
}

func rusageThread() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
