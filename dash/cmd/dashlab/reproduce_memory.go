package main

import (
	"os"
	"runtime/debug"
)

// reproduceMemoryLimit is the soft limit on the Go heap while reproduce
// runs. The reproduction holds at most about 100 MB live (the segment
// memos of Fig. 12's million-token decodes, the pass memos of the serving
// study); the collector's default headroom (GOGC=100) would let the heap
// reach twice that, and the limit makes it collect sooner instead: the
// process stays under 200 MB (about 170 MB measured) for the same CPU time.
const reproduceMemoryLimit = 150 << 20

// limitMemory sets the soft memory limit for a reproduction, unless the
// user set GOMEMLIMIT, and returns the function that restores the previous
// limit (run is called in-process by the tests).
func limitMemory() (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(reproduceMemoryLimit)
	return func() { debug.SetMemoryLimit(prev) }
}
