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

// reproduceGCPercent is the collector's headroom while reproduce runs
// (GOGC). Most of the time the live heap is far below the limit (a few
// tens of MB between the groups' memos), where GOGC=100 collects each time
// the heap doubles; with 400 it collects a quarter as often there, and the
// limit still bounds the heap when the memos are large. Measured on the
// whole reproduction (--format json, load 10-12): 137.2 -> 123.8 s of CPU,
// 173 -> 180 MB resident.
const reproduceGCPercent = 400

// limitMemory sets the soft memory limit and the collector's headroom for
// a reproduction, each unless the user set it (GOMEMLIMIT, GOGC), and
// returns the function that restores the previous settings (run is called
// in-process by the tests).
func limitMemory() (restore func()) {
	var undo []func()
	if os.Getenv("GOMEMLIMIT") == "" {
		prev := debug.SetMemoryLimit(reproduceMemoryLimit)
		undo = append(undo, func() { debug.SetMemoryLimit(prev) })
	}
	if os.Getenv("GOGC") == "" {
		prev := debug.SetGCPercent(reproduceGCPercent)
		undo = append(undo, func() { debug.SetGCPercent(prev) })
	}
	return func() {
		for _, u := range undo {
			u()
		}
	}
}
