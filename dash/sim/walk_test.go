package sim

import (
	"fmt"
	"reflect"
	"sort"
	"testing"
)

// The exact shortcuts (jump.go: periodic jumps, layer skips, tail memo, pass
// replay) see the engine's state only through its walk (walk.go): a field
// the walk does not visit is missing from the keys, the counters and the
// time shifts alike, which breaks the shortcuts silently, in cases the
// NoJump equality tests may not reach. TestEveryStateFieldIsWalked flips
// every field the walk visits and checks, by reflection, that every field
// of every state struct changed, or is listed here with the reason the walk
// leaves it out.
var notWalked = map[reflect.Type]map[string]string{
	reflect.TypeFor[engine](): {
		"cfg":         "fixed for the run",
		"seq":         "event tie-break: keys hold the events in (time, sequence) order, without it",
		"pass":        "the program, fixed for the pass",
		"trace":       "a traced pass takes no shortcut",
		"cut":         "the shortcut machinery itself",
		"epoch":       "the shortcuts' bookkeeping: keys are compared within an epoch",
		"finishEpoch": "the shortcuts' bookkeeping: whether the epoch began with a finishing stream (how long a periodic jump is searched for)",
		"visitors":    "the shortcut machinery itself",
		"processed":   "performance counter (events handled one by one)",
		"replayed":    "performance counter",
		"sampled":     "performance counter",
		"budget":      "the run's limits",
		"budgetTick":  "the run's limits",
		"err":         "ends the run",
		"holdArray":   "set only within issueRouted, never between events",
		"freeWaves":   "emptied buffers kept for reuse: no state",
		"waveArrays":  "storage the wave lists may move back into: no state",
		"recorded":    "a sampled decode's recorder's shortcut machinery, for its report",
		"replays":     "replayed passes, applied before any pass runs and before the result is read",
		"split":       "the read splits' solver and memo: a function of the operator, not of the state",
		"parts":       "scratch of the read splits",
		"partsCache":  "the read splits kept: a function of the operator, not of the state",
		"out":         "scratch of the read splits",
		"rs":          "scratch of the read splits",
		"loads":       "scratch of the read splits",
		"sharedSets":  "scratch of the expert assignment",
		"routedSets":  "scratch of the expert assignment",
		"setTime":     "scratch of the expert assignment",
		"setBytes":    "scratch of the expert assignment",
		"feeds":       "scratch of the interleave weights",
		"flows":       "scratch of the interleave weights",
		"stages":      "scratch of the interleave weights",
		"expertMemo":  "the expert assignments: a function of the operator, not of the state",
		"audit":       "tests' instrumentation: it never changes the run",
	},
	reflect.TypeFor[event](): {"seq": "tie-break only: keys order events by it"},
	reflect.TypeFor[stream](): {
		"finished": "finished streams have left the active list, which the walk follows",
	},
	reflect.TypeFor[opState]():   {"streams": "fixed once issued; each active stream names its consumer"},
	reflect.TypeFor[progWave]():  {"bytes": "the sum of its parts"},
	reflect.TypeFor[stats]():     {"earlyPeak": "a maximum, which repeating a period or a pass leaves unchanged"},
	reflect.TypeFor[pool]():      {"tsv": "fixed for the run: which stack's TSV fills the pool"},
	reflect.TypeFor[readGroup](): {"equal": "a function of its runs' weights and leads, which the walk visits (weigh sets them together)"},
}

// fixtureEngine is an engine whose every list holds an element and whose
// every operator has started, so that the walk reaches every field. Each
// list has its own elements: a field visited twice would flip back.
func fixtureEngine() *engine {
	segs := func() []seg { return []seg{{stream: 0, bytes: 1}} }
	stack := func() hbfStack {
		return hbfStack{
			readQ:       []readGroup{{op: 0, runs: []readRun{{stream: 0, full: 2, last: 1}}}},
			sensing:     [][]seg{segs()},
			dataReg:     [][]seg{segs()},
			cacheReg:    segs(),
			progPending: []progWave{{slots: 1, parts: segs()}},
			programming: segs(),
		}
	}
	str := func(r int32) stream {
		return stream{route: r, staged: segs(), progBuf: progWave{parts: segs()}}
	}
	waiters := func() []waiter { return []waiter{{seg: seg{stream: 1, bytes: 1}, hop: 1, next: 1}} }
	return &engine{
		q:       eventQueue{{t: 5, kind: evTSVDone, stream: 1}},
		cfg:     config{rt: routing{routes: []route{{}, {sense: 0}}}},
		hbf:     []hbfStack{stack()},
		hbm:     []hbmStack{{}},
		links:   make([]server, 1),
		pools:   []pool{{wait: [2][]waiter{waiters(), waiters()}}},
		streams: []stream{str(0), str(1)},
		active:  []int32{0, 1},
		ops:     []opState{{started: true, streams: []int32{0}}, {started: true, streams: []int32{1}}},
		maxOp:   1,
		st:      stats{classTime: make([]classStats, 1)},
	}
}

// flip changes every field it sees.
var flip = kindFunc(func(_ kind, v int64) int64 { return v ^ 1 })

func TestEveryStateFieldIsWalked(t *testing.T) {
	before, after := fixtureEngine(), fixtureEngine()
	after.walk(walkerOf(flip))
	c := coverage{walked: map[reflect.Type]map[string]bool{}}
	c.compare(reflect.ValueOf(before).Elem(), reflect.ValueOf(after).Elem(), "engine")
	for _, p := range c.empty {
		t.Errorf("%s is empty in fixtureEngine (walk_test.go): give it an element, so that the test sees whether the walk covers it", p)
	}
	var types []reflect.Type
	for typ := range c.walked {
		types = append(types, typ)
	}
	sort.Slice(types, func(i, j int) bool { return types[i].String() < types[j].String() })
	for _, typ := range types {
		for i := range typ.NumField() {
			name := typ.Field(i).Name
			walked, why := c.walked[typ][name], notWalked[typ][name]
			switch {
			case !walked && why == "":
				t.Errorf("%v.%s is not walked (or is visited twice, which flips it back): visit it once in (*%s).walk (walk.go) with its kind, or list it in notWalked (walk_test.go) with the reason the shortcuts may ignore it",
					typ, name, typ.Name())
			case walked && why != "":
				t.Errorf("%v.%s is walked but listed in notWalked (%q)", typ, name, why)
			}
		}
	}
	for typ, fields := range notWalked {
		for name := range fields {
			if _, ok := typ.FieldByName(name); !ok {
				t.Errorf("notWalked lists %v.%s, which no longer exists", typ, name)
			}
		}
	}
	if len(types) < 10 {
		t.Errorf("only %d state structs reached: %v", len(types), types)
	}
}

// coverage records which fields of which structs the flip changed.
type coverage struct {
	walked map[reflect.Type]map[string]bool
	empty  []string // lists the fixture left empty
}

// compare walks a and b (the same state before and after the flip) in
// parallel: a struct's field is walked if any value under it changed.
// Fields listed in notWalked are compared but not entered.
func (c *coverage) compare(a, b reflect.Value, path string) {
	switch a.Kind() {
	case reflect.Struct:
		typ := a.Type()
		if c.walked[typ] == nil {
			c.walked[typ] = map[string]bool{}
		}
		for i := range typ.NumField() {
			name := typ.Field(i).Name
			fa, fb := a.Field(i), b.Field(i)
			if fmt.Sprint(leaves(fa, nil)) != fmt.Sprint(leaves(fb, nil)) {
				c.walked[typ][name] = true
			}
			if notWalked[typ][name] == "" {
				c.compare(fa, fb, path+"."+name)
			}
		}
	case reflect.Slice, reflect.Array:
		if a.Len() == 0 {
			c.empty = append(c.empty, path)
		}
		for i := range min(a.Len(), b.Len()) {
			c.compare(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	}
}

// leaves appends every scalar under v (lengths and nil-ness for lists,
// pointers and maps, which it does not follow).
func leaves(v reflect.Value, dst []int64) []int64 {
	switch v.Kind() {
	case reflect.Bool:
		dst = append(dst, flag(v.Bool()))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		dst = append(dst, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		dst = append(dst, int64(v.Uint()))
	case reflect.Float32, reflect.Float64:
		dst = append(dst, int64(v.Float()))
	case reflect.Struct:
		for i := range v.NumField() {
			dst = leaves(v.Field(i), dst)
		}
	case reflect.Slice, reflect.Array:
		dst = append(dst, int64(v.Len()))
		for i := range v.Len() {
			dst = leaves(v.Index(i), dst)
		}
	case reflect.Pointer, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan:
		dst = append(dst, flag(v.IsNil()))
	}
	return dst
}

// The copies a replayed segment installs (capture, install) are the walk's
// business for what they move (instants, operators, streams, statistics:
// relocate) and cloneStack's and clonePool's for the rest: every field is
// copied (the struct as a whole) and no list is shared with the original
// (a new list field that the clones do not copy fails here), and a copy
// relocated by nothing equals its original.
func TestClonesCopyEveryField(t *testing.T) {
	e := fixtureEngine()
	e.pools = []pool{{free: 1, tsv: 0, wait: [2][]waiter{{{seg: seg{stream: 1, bytes: 1}, hop: 1, next: 1}}, {{seg: seg{stream: 0, bytes: 2}}}}}}
	for i := range e.hbf {
		s := &e.hbf[i]
		c := cloneStack(s)
		if !reflect.DeepEqual(c, *s) {
			t.Errorf("cloneStack: the copy differs from the stack")
		}
		for _, p := range sharedLists(reflect.ValueOf(c), reflect.ValueOf(*s), "hbfStack") {
			t.Errorf("cloneStack: %s shares its storage with the original: clone it in cloneStack (segment.go)", p)
		}
		var into hbfStack
		e.stackInto(&into, s)
		if !reflect.DeepEqual(into, *s) {
			t.Errorf("stackInto: the copy differs from the stack")
		}
		for _, p := range sharedLists(reflect.ValueOf(into), reflect.ValueOf(*s), "hbfStack") {
			t.Errorf("stackInto: %s shares its storage with the original: copy it in stackInto (waves.go)", p)
		}
		id := &idMap{} // renames nothing
		moved := cloneStack(s)
		if id.stack(&moved, true, e.walkedStackStats(i)); !reflect.DeepEqual(moved, *s) {
			t.Errorf("a stack relocated by nothing, its statistics kept, differs from the original")
		}
	}
	for i := range e.pools {
		p := &e.pools[i]
		c := clonePool(p)
		if !reflect.DeepEqual(c, *p) {
			t.Errorf("clonePool: the copy differs from the pool")
		}
		for _, path := range sharedLists(reflect.ValueOf(c), reflect.ValueOf(*p), "pool") {
			t.Errorf("clonePool: %s shares its storage with the original", path)
		}
	}
}

// walkedStackStats are HBF stack i's statistics in walk order.
func (e *engine) walkedStackStats(i int) []int64 {
	c := &statCollector{}
	e.hbf[i].walk(walkerOf(c))
	return c.dst
}

// sharedLists lists the slices under a and b (a copy and its original)
// that share their first element's storage.
func sharedLists(a, b reflect.Value, path string) []string {
	var out []string
	switch a.Kind() {
	case reflect.Struct:
		for i := range a.NumField() {
			out = append(out, sharedLists(a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)...)
		}
	case reflect.Array:
		for i := range a.Len() {
			out = append(out, sharedLists(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
	case reflect.Slice:
		if a.Len() > 0 && b.Len() > 0 && a.Index(0).Addr().Pointer() == b.Index(0).Addr().Pointer() {
			out = append(out, path)
		}
		for i := range min(a.Len(), b.Len()) {
			out = append(out, sharedLists(a.Index(i), b.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return out
}
