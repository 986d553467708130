package sim

import (
	"reflect"
	"sort"
	"testing"
)

// The exact shortcuts (jump.go: periodic jumps, layer skips, tail memo, pass replay)
// rest on three walks over the engine's state: encode (what determines the future),
// visitCounters/visitGlobalCounters (what accumulates or counts down) and shiftTimes
// (absolute times). A field that none of them knows about breaks the shortcuts
// silently, in cases the NoJump equality tests may not reach. stateFields classifies
// every field of every state struct by the walk that covers it, or says why none
// needs to; TestEveryStateFieldIsWalked fails when a struct gains a field that is not
// classified here, so that adding state means deciding how the shortcuts treat it.
const (
	encoded  = "encode"        // part of encode/encodeMode
	counted  = "visitCounters" // an accumulating or progress counter
	shifted  = "shiftTimes"    // an absolute time moved by a jump
	encShift = "encode (relative) + shiftTimes"
	fixed    = "fixed for the run or the pass"
	walked   = "a container whose elements' fields are classified"
	outside  = "not simulation state (machinery, output or limits)"
)

var stateFields = map[reflect.Type]map[string]string{
	reflect.TypeFor[engine](): {
		"cfg": fixed, "now": shifted, "seq": outside + ": event tie-break, encode orders events without it",
		"q": encShift, "hbf": walked, "hbm": walked, "links": walked, "streams": walked,
		"pass": fixed, "ops": walked, "pc": encoded, "writesPending": encoded, "passEnded": encoded,
		"st": walked, "trace": outside, "noJump": fixed, "jmp": outside, "active": encoded,
		"maxOp": encoded, "gpuStaged": encoded, "processed": outside, "replayed": outside,
		"sampled": outside, "tail": outside, "budget": outside, "budgetTick": outside, "err": outside,
	},
	reflect.TypeFor[event](): {
		"t": encShift, "seq": outside + ": tie-break only", "kind": encoded, "stack": encoded,
		"stream": encoded, "bytes": encoded,
	},
	reflect.TypeFor[hbfStack](): {
		"readQ": encoded + " (runs' full: visitCounters)", "programActive": encoded, "arrayUntil": encShift,
		"sensing": encoded, "dataReg": encoded, "cacheReg": encoded, "cacheNext": encoded, "cacheDone": encoded,
		"tsvWait": encoded, "tsv": walked, "slotsFree": encoded, "slotWait": encoded, "progPending": encoded,
		"programming": encoded, "relayFree": encoded, "relayWait": encoded, "rwWait": encoded,
		"senseBusy": counted, "progBusy": counted, "waves": counted, "programs": counted,
	},
	reflect.TypeFor[server]():    {"until": encShift, "busy": counted, "bytes": counted},
	reflect.TypeFor[hbmStack]():  {"array": walked},
	reflect.TypeFor[readGroup](): {"op": encoded, "runs": walked, "next": encoded},
	reflect.TypeFor[readRun]():   {"stream": encoded, "full": counted + " (remaining)", "last": encoded},
	reflect.TypeFor[seg]():       {"stream": encoded, "bytes": encoded},
	reflect.TypeFor[slotReq]():   {"kind": encoded, "seg": walked},
	reflect.TypeFor[progWave]():  {"bytes": outside + ": the sum of parts", "slots": encoded, "parts": encoded},
	reflect.TypeFor[stream](): {
		"route": encoded, "stack": encoded, "consumer": encoded, "op": outside + ": traces only",
		"total": encoded + " (layer mode)", "done": counted, "toIssue": counted + " (remaining for HBM and writes)",
		"started": encoded, "early": encoded, "staged": encoded, "stagedRelay": encoded,
		"finished": outside + ": finished streams leave active", "progBuf": encoded, "arrived": counted,
	},
	reflect.TypeFor[opState](): {
		"started": encoded, "start": outside + ": accounting of a started operator (see shiftTimes)",
		"streams": fixed, "computeDone": encoded + " (relative)", "pending": encoded, "total": encoded,
		"lastBytes": encoded, "prefetched": encoded, "routedDone": encoded, "early": encoded,
	},
	reflect.TypeFor[stats](): {
		"requested": counted, "delivered": counted, "classTime": walked, "events": counted,
		"earlyBytes": counted, "earlyPeak": outside + ": a maximum, unchanged by repeating a period",
	},
	reflect.TypeFor[classStats](): {"ops": counted, "time": counted, "compute": counted, "overhead": counted},
}

func TestEveryStateFieldIsWalked(t *testing.T) {
	for typ, fields := range stateFields {
		var missing, stale []string
		have := map[string]bool{}
		for i := range typ.NumField() {
			name := typ.Field(i).Name
			have[name] = true
			if fields[name] == "" {
				missing = append(missing, name)
			}
		}
		for name := range fields {
			if !have[name] {
				stale = append(stale, name)
			}
		}
		sort.Strings(missing)
		sort.Strings(stale)
		for _, name := range missing {
			t.Errorf("%v.%s is not classified: add it to the walks in jump.go (encode, visitCounters or shiftTimes) and to stateFields", typ, name)
		}
		for _, name := range stale {
			t.Errorf("%v.%s is classified but no longer exists", typ, name)
		}
	}
}
