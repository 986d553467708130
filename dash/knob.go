package dash

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dashlab/dashlab/dash/unit"
)

// Knob is one row of the knob table: a parameter an experiment can change,
// named by its override path, with a typed value. The table is the spec
// types themselves: every leaf field of SystemSpec, WorkloadSpec and
// ExecutionSpec carries a knob tag beside its yaml tag,
//
//	TRead unit.Duration `yaml:"t_read" knob:"t_R | page read (sensing) latency | 10ns..10s | §VI-A"`
//
// (symbol | what it is | range | citation, and optionally "slower" or
// "faster": what a larger value does, Knob.Larger), and the path is the
// field's YAML keys (hbf.t_read, link.usable, topology.pairs,
// workload.batch, execution.lookahead). Adding a parameter is adding a
// field with its tag, and its physics: every view below has it at once (a
// field whose zero is its default also takes json:",omitempty", which keeps
// the sweep point keys that hash the system's JSON). The builder (Set, With and its typed methods), the
// notebooks' knobs, sweep axes, experiment-file overrides, the CLI's --set
// and the generated knob reference (docs/knobs.md) are views of this table;
// so are Validate's range checks and the what-if labels (Change.Label). The
// Go type of the field is the knob's unit (dash/unit): a duration needs its
// unit, and a number without one is refused rather than read as nanoseconds.
//
// A few knobs carry a rule for the fields that follow from them, the same
// wherever they are set: hbf.page_size sizes the SRAM regions to the new page
// wave (SystemSpec.SetPageSize) and link.usable scales the lane rate with it.
// A field set together with such a knob (in one ApplySettings, or after it in
// a builder) keeps the value given. hbf.reading is a view of
// hbf.read_waves_in_flight by reading name (paper, physical).
type Knob struct {
	// Path is the override path ("hbf.t_read").
	Path string
	// Symbol is the short name what-if labels use ("t_R"); empty when the
	// path is the name.
	Symbol string
	// Doc says what the knob is, in a few words.
	Doc string
	// Cite is where its value comes from (a paper section, a datasheet).
	Cite string
	// Larger is what physics says a larger value does to a run's end-to-end
	// latency: Slower (never shorter: t_R), Faster (never longer: a link's
	// rate), or 0 where it depends. The engine's tests hold every knob with
	// one to it (TestKnobsMonotone in package sim).
	Larger Monotone

	domain knobDomain
	index  []int // field index in its domain's struct (nil for a view)
	typ    reflect.Type
	rng    knobRange
	rule   func(t KnobTarget, v reflect.Value) // nil: set the field
	view   *knobView                           // non-nil for a knob that is not one field
	sp     *KnobSpace                          // the registered space (nil for dash's specs)
}

// Monotone is the direction in which a knob moves a run's latency.
type Monotone int8

const (
	// Slower: a larger value never makes a run faster.
	Slower Monotone = 1
	// Faster: a larger value never makes a run slower.
	Faster Monotone = -1
)

// String is "slower", "faster" or "".
func (m Monotone) String() string {
	switch m {
	case Slower:
		return "slower"
	case Faster:
		return "faster"
	}
	return ""
}

// knobDomain is the spec a knob belongs to.
type knobDomain uint8

const (
	domainSystem knobDomain = iota
	domainWorkload
	domainExecution
	// domainSpaces is the first registered space's domain (see KnobSpace):
	// space i is domainSpaces + i.
	domainSpaces
)

// knobView is a knob computed from fields rather than stored in one.
type knobView struct {
	get   func(t KnobTarget) reflect.Value
	set   func(t KnobTarget, v reflect.Value)
	valid func(v reflect.Value) error // nil: every value of the type
}

// KnobTarget is what knobs read and set: a memory system, a workload and
// execution switches, and the specs of registered knob spaces (Parts: a
// *cluster.Spec, a *cluster.Layout; see KnobSpace). A knob whose part is
// missing is refused with an error.
type KnobTarget struct {
	System    *SystemSpec
	Workload  *WorkloadSpec
	Execution *ExecutionSpec
	// Parts are pointers to the specs of registered knob spaces, one of
	// each type at most.
	Parts []any
}

// Label is the knob's short name: its symbol, or its path when it has none.
func (k Knob) Label() string {
	if k.Symbol != "" {
		return k.Symbol
	}
	return k.Path
}

// Type is the Go type of the knob's value (unit.Duration for hbf.t_read).
func (k Knob) Type() reflect.Type { return k.typ }

// Unit names the kind of value the knob takes: "duration", "bytes", "B/s",
// "J/bit", "integer", "number", "true/false", "name" or "reading".
func (k Knob) Unit() string { return unitName(k.typ) }

// Range is the plausible range as text ("10ns .. 10s", "1 .. 1024 or
// unbounded", "balanced, uniform or zipf"); empty when any value is.
func (k Knob) Range() string { return k.rng.String() }

// Get returns the knob's value in t.
func (k Knob) Get(t KnobTarget) (any, error) {
	v, err := k.value(t)
	if err != nil {
		return nil, err
	}
	return v.Interface(), nil
}

// Format returns the knob's value in t as text that reads back exactly.
func (k Knob) Format(t KnobTarget) (string, error) {
	v, err := k.value(t)
	if err != nil {
		return "", err
	}
	return formatValue(v)
}

func (k Knob) value(t KnobTarget) (reflect.Value, error) {
	if k.view != nil {
		if t.System == nil {
			return reflect.Value{}, k.noTarget()
		}
		return k.view.get(t), nil
	}
	s, err := k.structOf(t)
	if err != nil {
		return reflect.Value{}, err
	}
	return s.FieldByIndex(k.index), nil
}

// structOf is the addressable struct of the knob's domain in t.
func (k Knob) structOf(t KnobTarget) (reflect.Value, error) {
	var p any
	switch k.domain {
	case domainSystem:
		if t.System != nil {
			p = t.System
		}
	case domainWorkload:
		if t.Workload != nil {
			p = t.Workload
		}
	case domainExecution:
		if t.Execution != nil {
			p = t.Execution
		}
	default:
		p = t.part(k.sp.Type)
	}
	if p == nil {
		return reflect.Value{}, k.noTarget()
	}
	return reflect.ValueOf(p).Elem(), nil
}

// part is the target's pointer to a struct of type typ (nil when it has
// none).
func (t KnobTarget) part(typ reflect.Type) any {
	for _, p := range t.Parts {
		if v := reflect.ValueOf(p); v.Kind() == reflect.Pointer && v.Type().Elem() == typ && !v.IsNil() {
			return p
		}
	}
	return nil
}

func (k Knob) noTarget() error {
	return &ValueError{Path: k.Path, Reason: "cannot be set here (no " + k.Space() + " to set it in)"}
}

// Space names the spec the knob belongs to: "memory system", "workload",
// "execution switches", or a registered space's name ("cluster").
func (k Knob) Space() string {
	switch k.domain {
	case domainSystem:
		return "memory system"
	case domainWorkload:
		return "workload"
	case domainExecution:
		return "execution switches"
	}
	return k.sp.Name
}

// Set sets the knob in t to v, which must have the knob's type (a
// unit.Duration for hbf.t_read; text such as "3us" is parsed by the knob's
// type), applying the knob's rule for the fields that follow from it. The
// range is not checked here: Validate reports an implausible value with its
// path (a *RangeError).
func (k Knob) Set(t KnobTarget, v any) error {
	rv, err := k.typed(v)
	if err != nil {
		return err
	}
	if _, err := k.value(t); err != nil {
		return err
	}
	k.set(t, rv)
	return nil
}

func (k Knob) set(t KnobTarget, v reflect.Value) {
	switch {
	case k.view != nil:
		k.view.set(t, v)
	case k.rule != nil:
		k.rule(t, v)
	default:
		s, _ := k.structOf(t)
		s.FieldByIndex(k.index).Set(v)
	}
}

// typed converts v to the knob's type: v itself when it has the type, text
// parsed by the type's own reader (units required), an error naming the path
// otherwise.
func (k Knob) typed(v any) (reflect.Value, error) {
	if v == nil {
		return reflect.Value{}, &ValueError{Path: k.Path, Value: "nil", Reason: "no value (want " + wantOf(k.typ) + ")"}
	}
	rv := reflect.ValueOf(v)
	if rv.Type() == k.typ {
		if k.view != nil && k.view.valid != nil {
			if err := k.view.valid(rv); err != nil {
				return reflect.Value{}, &ValueError{Path: k.Path, Value: fmt.Sprint(v), Reason: err.Error()}
			}
		}
		return rv, nil
	}
	if s, ok := v.(string); ok {
		return k.parse(s)
	}
	return reflect.Value{}, &ValueError{Path: k.Path, Value: fmt.Sprintf("%v (%T)", v, v), Reason: "want " + wantOf(k.typ) + unitlessHint(k.typ, rv)}
}

// Parse reads a value of the knob from text ("3us", "4 KiB", "16", "paper").
func (k Knob) Parse(text string) (any, error) {
	v, err := k.parse(text)
	if err != nil {
		return nil, err
	}
	return v.Interface(), nil
}

func (k Knob) parse(text string) (reflect.Value, error) {
	v, err := parseValue(text, k.typ)
	if err == nil && k.view != nil && k.view.valid != nil {
		err = k.view.valid(v)
	}
	if err != nil {
		return reflect.Value{}, &ValueError{Path: k.Path, Value: fmt.Sprintf("%q", text), Reason: err.Error()}
	}
	return v, nil
}

// Check reports whether v (of the knob's type) is in the knob's range: nil,
// or a *RangeError naming the path and the value.
func (k Knob) Check(v any) error {
	rv, err := k.typed(v)
	if err != nil {
		return err
	}
	return k.rng.check(k.Path, rv)
}

// ValueError is a knob value that cannot be used: an unknown path, a value
// of the wrong type or text that does not read as one.
type ValueError struct {
	// Path is the override path given.
	Path string
	// Value is the value given, as written ("" for an unknown path).
	Value string
	// Reason says what is wrong.
	Reason string
}

func (e *ValueError) Error() string {
	if e.Value == "" {
		return e.Path + ": " + e.Reason
	}
	return e.Path + " = " + e.Value + ": " + e.Reason
}

// Knobs returns the knob table, in the specs' order: the memory system
// (hbm, hbf, link, topology), then the workload and the execution switches,
// then the registered spaces' knobs (see KnobSpace) in registration order.
func Knobs() []Knob { return slices.Clone(knobTable().rows) }

// LookupKnob returns the knob of a path; an unknown path is a *ValueError
// that suggests the nearest ones.
func LookupKnob(path string) (Knob, error) {
	t := knobTable()
	if i, ok := t.byPath[path]; ok {
		return t.rows[i], nil
	}
	return Knob{}, &ValueError{Path: path, Reason: "no such knob" + t.suggest(path)}
}

// KnobsUnder returns the knobs whose path starts with prefix + "." (all of
// a section: "hbf", "hbf.sram", "workload").
func KnobsUnder(prefix string) []Knob {
	var out []Knob
	for _, k := range knobTable().rows {
		if strings.HasPrefix(k.Path, prefix+".") {
			out = append(out, k)
		}
	}
	return out
}

type table struct {
	rows   []Knob
	byPath map[string]int
	// fields lists, by the first key of the path with its dot ("hbf."), the
	// rows that are one field, for Validate.
	fields map[string][]int
}

// suggest names the knobs nearest to an unknown path: one a typo or two
// away, else those of the same section or whose last key matches.
func (t *table) suggest(path string) string {
	best, bestD := "", max(3, len(path)/3)
	for _, k := range t.rows {
		if d := editDistance(path, k.Path); d < bestD {
			best, bestD = k.Path, d
		}
	}
	if best != "" {
		return " (did you mean " + best + "?)"
	}
	var near []string
	sec, last := "", path
	if i := strings.LastIndex(path, "."); i >= 0 {
		sec, last = path[:i], path[i+1:]
	}
	for _, k := range t.rows {
		ks, kl := "", k.Path
		if i := strings.LastIndex(k.Path, "."); i >= 0 {
			ks, kl = k.Path[:i], k.Path[i+1:]
		}
		if kl == last || (sec != "" && ks == sec) {
			near = append(near, k.Path)
		}
	}
	if len(near) == 0 {
		return " (the knobs: dashlab knobs, or docs/knobs.md)"
	}
	if len(near) > 12 {
		near = append(near[:12], "...")
	}
	return " (known here: " + strings.Join(near, ", ") + ")"
}

// knobRules are the knobs that set more than their field (see Knob).
var knobRules = map[string]func(t KnobTarget, v reflect.Value){
	"hbf.page_size": func(t KnobTarget, v reflect.Value) { t.System.SetPageSize(v.Interface().(unit.Bytes)) },
	"link.usable":   func(t KnobTarget, v reflect.Value) { t.System.Link.SetUsable(v.Interface().(unit.BytesPerSecond)) },
}

// knobViews are the knobs that are not one field, each placed after the
// field it is a view of.
var knobViews = []struct {
	after string
	knob  Knob
}{{"hbf.read_waves_in_flight", readingKnob}}

// tables holds the built table; registering a space replaces it.
var (
	tables  atomic.Pointer[table]
	tableMu sync.Mutex
	spaces  []KnobSpace
)

// knobTable is the table of dash's specs and the registered spaces, built
// on first use.
func knobTable() *table {
	if t := tables.Load(); t != nil {
		return t
	}
	tableMu.Lock()
	defer tableMu.Unlock()
	if t := tables.Load(); t != nil {
		return t
	}
	t, err := buildTable(spaces)
	if err != nil {
		panic("dash: " + err.Error())
	}
	tables.Store(t)
	return t
}

// buildTable walks dash's specs and then each space.
func buildTable(spaces []KnobSpace) (*table, error) {
	t := &table{byPath: map[string]int{}}
	for _, d := range []struct {
		typ    reflect.Type
		prefix string
		domain knobDomain
	}{
		{reflect.TypeFor[SystemSpec](), "", domainSystem},
		{reflect.TypeFor[WorkloadSpec](), "workload.", domainWorkload},
		{reflect.TypeFor[ExecutionSpec](), "execution.", domainExecution},
	} {
		if err := walkKnobs(t, d.typ, d.prefix, d.domain, nil, nil); err != nil {
			return nil, err
		}
	}
	for _, v := range knobViews {
		i, ok := t.byPath[v.after]
		if !ok {
			return nil, fmt.Errorf("knob view %s after unknown %s", v.knob.Path, v.after)
		}
		t.rows = slices.Insert(t.rows, i+1, v.knob)
		for j, k := range t.rows {
			t.byPath[k.Path] = j
		}
	}
	for i := range spaces {
		sp := &spaces[i]
		if err := walkKnobs(t, sp.Type, sp.Prefix, domainSpaces+knobDomain(i), nil, sp); err != nil {
			return nil, fmt.Errorf("knob space %s: %w", sp.Name, err)
		}
	}
	t.fields = map[string][]int{}
	for i, k := range t.rows {
		t.byPath[k.Path] = i
		if k.view == nil {
			first, _, _ := strings.Cut(k.Path, ".")
			t.fields[first+"."] = append(t.fields[first+"."], i)
		}
	}
	return t, nil
}

// walkKnobs adds a row for every leaf field of typ with a knob tag; a leaf
// without one is an error (TestEveryFieldIsAKnob), as is a path already in
// the table. A field with yaml:",inline" adds its fields at its parent's
// path. rules are a space's knobs that set more than their field.
func walkKnobs(t *table, typ reflect.Type, prefix string, d knobDomain, index []int, sp *KnobSpace) error {
	if typ.Kind() != reflect.Struct {
		return fmt.Errorf("%s is not a struct", typ)
	}
	for i := range typ.NumField() {
		f := typ.Field(i)
		key, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		tag, tagged := f.Tag.Lookup("knob")
		if !f.IsExported() || key == "-" || tag == "-" {
			continue
		}
		idx := append(slices.Clone(index), i)
		path := prefix + key
		if f.Type.Kind() == reflect.Struct && !tagged {
			sub := path + "."
			if key == "" && slices.Contains(strings.Split(opts, ","), "inline") {
				sub = prefix
			}
			if err := walkKnobs(t, f.Type, sub, d, idx, sp); err != nil {
				return err
			}
			continue
		}
		if !tagged {
			return fmt.Errorf("spec field %s (%s) has no knob tag", path, f.Name)
		}
		if _, dup := t.byPath[path]; dup {
			return fmt.Errorf("knob %s (%s) is already in the table", path, f.Name)
		}
		k, err := parseKnobTag(path, tag, f.Type)
		if err != nil {
			return err
		}
		k.domain, k.index, k.rule = d, idx, knobRules[path]
		if sp != nil {
			k.sp, k.rule = sp, nil
			if sym, ok := sp.Symbols[path]; ok {
				k.Symbol = sym
			}
			if r := sp.Rules[path]; r != nil {
				k.rule = func(t KnobTarget, v reflect.Value) { r(t.part(sp.Type), v.Interface()) }
			}
		}
		t.byPath[path] = len(t.rows)
		t.rows = append(t.rows, k)
	}
	return nil
}

// parseKnobTag reads "symbol | doc | range | citation", with an optional
// fifth part "slower" or "faster" (what a larger value does; Knob.Larger).
func parseKnobTag(path, tag string, typ reflect.Type) (Knob, error) {
	parts := strings.Split(tag, "|")
	if len(parts) != 4 && len(parts) != 5 {
		return Knob{}, fmt.Errorf("knob tag of %s: %q: want \"symbol | doc | range | citation [| slower or faster]\"", path, tag)
	}
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	k := Knob{Path: path, Symbol: parts[0], Doc: parts[1], Cite: parts[3], typ: typ}
	if len(parts) == 5 {
		switch parts[4] {
		case "slower":
			k.Larger = Slower
		case "faster":
			k.Larger = Faster
		default:
			return Knob{}, fmt.Errorf("knob tag of %s: %q: the fifth part is slower or faster", path, parts[4])
		}
	}
	if k.Doc == "" {
		return Knob{}, fmt.Errorf("knob tag of %s: no doc", path)
	}
	r, err := parseRange(parts[2], typ)
	if err != nil {
		return Knob{}, fmt.Errorf("knob tag of %s: range %q: %w", path, parts[2], err)
	}
	k.rng = r
	return k, nil
}

// checkKnobs range-checks the field knobs whose path starts with prefix
// ("hbf.", "hbm.capacity"), in table order, for Validate.
func checkKnobs(t KnobTarget, prefix string) []error {
	tb := knobTable()
	first, _, _ := strings.Cut(prefix, ".")
	var errs []error
	var s reflect.Value
	for _, i := range tb.fields[first+"."] {
		k := &tb.rows[i]
		if !strings.HasPrefix(k.Path, prefix) {
			continue
		}
		if !s.IsValid() {
			var err error
			if s, err = k.structOf(t); err != nil {
				return nil
			}
		}
		if err := k.rng.check(k.Path, s.FieldByIndex(k.index)); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
