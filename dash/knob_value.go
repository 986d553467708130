package dash

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/dash/unit"
	"gopkg.in/yaml.v3"
)

// knobRange is a knob's plausible range, read from its tag: "LO..HI"
// (inclusive; ">LO..HI" excludes LO), optionally "LO..HI or NAME" for one
// named value outside it ("1..1024 or unbounded"), or "a, b, c" for the
// names a string knob takes. Empty: any value.
type knobRange struct {
	lo, hi  reflect.Value
	loOpen  bool          // lo itself is outside
	also    reflect.Value // a named value outside lo..hi that is allowed
	choices []string
}

func parseRange(s string, typ reflect.Type) (knobRange, error) {
	var r knobRange
	if s == "" {
		return r, nil
	}
	if typ.Kind() == reflect.String {
		for _, c := range strings.Split(s, ",") {
			r.choices = append(r.choices, strings.TrimSpace(c))
		}
		return r, nil
	}
	if rest, name, ok := strings.Cut(s, " or "); ok {
		v, err := parseValue(strings.TrimSpace(name), typ)
		if err != nil {
			return r, err
		}
		r.also, s = v, rest
	}
	lo, hi, ok := strings.Cut(s, "..")
	if !ok {
		return r, fmt.Errorf("want LO..HI")
	}
	lo, hi = strings.TrimSpace(lo), strings.TrimSpace(hi)
	if strings.HasPrefix(lo, ">") {
		r.loOpen, lo = true, strings.TrimSpace(lo[1:])
	}
	var err error
	if r.lo, err = parseValue(lo, typ); err != nil {
		return r, err
	}
	if r.hi, err = parseValue(hi, typ); err != nil {
		return r, err
	}
	if !(toFloat(r.lo) <= toFloat(r.hi)) {
		return r, fmt.Errorf("empty range")
	}
	return r, nil
}

// String writes the range: "10ns .. 10s", "above 0 .. 100000", "1 .. 1024
// or unbounded", "balanced, uniform or zipf".
func (r knobRange) String() string {
	if len(r.choices) > 0 {
		if len(r.choices) == 1 {
			return r.choices[0]
		}
		return strings.Join(r.choices[:len(r.choices)-1], ", ") + " or " + r.choices[len(r.choices)-1]
	}
	if !r.lo.IsValid() {
		return ""
	}
	return r.minText() + " .. " + r.maxText()
}

func (r knobRange) minText() string {
	if r.loOpen {
		return "above " + fmt.Sprint(r.lo.Interface())
	}
	return fmt.Sprint(r.lo.Interface())
}

func (r knobRange) maxText() string {
	s := fmt.Sprint(r.hi.Interface())
	if r.also.IsValid() {
		s += " or " + fmt.Sprint(r.also.Interface())
	}
	return s
}

// check returns a *RangeError when v is outside the range (NaN always is).
func (r knobRange) check(path string, v reflect.Value) error {
	if len(r.choices) > 0 {
		if s := fmt.Sprint(v.Interface()); s != "" && !containsString(r.choices, s) {
			return &RangeError{Field: path, Value: strconv.Quote(s), Choices: r.String()}
		}
		return nil
	}
	if !r.lo.IsValid() {
		return nil
	}
	if r.also.IsValid() && v.Equal(r.also) {
		return nil
	}
	x, lo, hi := toFloat(v), toFloat(r.lo), toFloat(r.hi)
	if (x > lo || !r.loOpen && x == lo) && x <= hi {
		return nil
	}
	return &RangeError{Field: path, Value: fmt.Sprint(v.Interface()), Min: r.minText(), Max: r.maxText(), Hint: unitHintOf(v, x, lo)}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// toFloat is a numeric value as float64 (NaN for a non-number).
func toFloat(v reflect.Value) float64 {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		return v.Float()
	}
	return math.NaN()
}

// unitHintOf says, for a positive value below its range, what a number
// without a unit means in Go and how to write the unit. It names Go: text
// (a file, --set, a notebook's knob string) always carries its unit, so
// the value there was meant as written; the hint is for a Go literal.
func unitHintOf(v reflect.Value, x, lo float64) string {
	if !(x > 0 && x < lo) {
		return ""
	}
	switch d := v.Interface().(type) {
	case unit.Duration:
		return fmt.Sprintf("in Go, a number without a unit is in ns: did you mean %v (%d * unit.Microsecond)?", d*unit.Microsecond, int64(d))
	case unit.Bytes:
		return "in Go, a number without a unit is in bytes: write the unit (4 * unit.KiB, 24 * unit.GB)"
	case unit.BytesPerSecond:
		return "in Go, a number without a unit is in B/s: write the unit (1.6 * unit.TBps)"
	}
	return ""
}

// unitlessHint says, for a plain number given to a knob with a unit, how to
// write the unit.
func unitlessHint(typ reflect.Type, v reflect.Value) string {
	if !isNumber(v.Kind()) {
		return ""
	}
	x := strconv.FormatFloat(toFloat(v), 'g', -1, 64)
	switch typ {
	case reflect.TypeFor[unit.Duration]():
		return fmt.Sprintf(": a number needs its unit: did you mean %s * unit.Microsecond (%sµs)?", x, x)
	case reflect.TypeFor[unit.Bytes]():
		return fmt.Sprintf(": a number needs its unit (%s * unit.KiB, %s * unit.GB)", x, x)
	case reflect.TypeFor[unit.BytesPerSecond]():
		return fmt.Sprintf(": a number needs its unit (%s * unit.TBps)", x)
	case reflect.TypeFor[unit.JoulesPerBit]():
		return fmt.Sprintf(": a number needs its unit (%s * unit.PicojoulePerBit)", x)
	}
	return ""
}

func isNumber(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64
}

// knobTypes are the unit name and the look of a value of each knob type
// with a unit (or a name), for the table and for errors.
var knobTypes = map[reflect.Type]struct{ unit, want string }{
	reflect.TypeFor[unit.Duration]():       {"duration", "a unit.Duration (3 * unit.Microsecond, or text \"3us\")"},
	reflect.TypeFor[unit.Bytes]():          {"bytes", "a unit.Bytes (4 * unit.KiB, or text \"4 KiB\")"},
	reflect.TypeFor[unit.BytesPerSecond](): {"B/s", "a unit.BytesPerSecond (1.6 * unit.TBps, or text \"1.6 TB/s\")"},
	reflect.TypeFor[unit.JoulesPerBit]():   {"J/bit", "a unit.JoulesPerBit (or text \"0.5 pJ/bit\")"},
	reflect.TypeFor[unit.Watts]():          {"W", "a unit.Watts (unit.Watts(700), or text \"700 W\")"},
	reflect.TypeFor[Reading]():             {"reading", "a dash.Reading (dash.ReadingPaper, dash.ReadingPhysical, dash.ReadingSerial, or text \"paper\")"},
	reflect.TypeFor[WaveDepth]():           {"waves", "a dash.WaveDepth (1, or dash.ReadWavesUnbounded, or text \"unbounded\")"},
}

// unitName names the kind of a knob's value.
func unitName(t reflect.Type) string {
	if k, ok := knobTypes[t]; ok {
		return k.unit
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true/false"
	case reflect.String:
		return "name"
	case reflect.Float32, reflect.Float64:
		return "number"
	}
	return "integer"
}

// wantOf says what a value of type t looks like, for errors.
func wantOf(t reflect.Type) string {
	if k, ok := knobTypes[t]; ok {
		return k.want
	}
	switch {
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return "a whole number"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "a number"
	}
	return "a " + t.String()
}

// parseValue reads text as a value of type t, by the type's own YAML reader
// (units required for the unit types); a string type takes the text as it is.
func parseValue(text string, t reflect.Type) (reflect.Value, error) {
	p := reflect.New(t)
	if t.Kind() == reflect.String {
		p.Elem().SetString(text)
		return p.Elem(), nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil || len(doc.Content) != 1 || doc.Content[0].Kind != yaml.ScalarNode || strings.TrimSpace(text) == "" {
		return reflect.Value{}, fmt.Errorf("%q is not one value (want %s)", text, wantOf(t))
	}
	if err := decodeScalar(doc.Content[0], p); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		msg = strings.TrimPrefix(msg, "unmarshal errors:\n  ")
		msg = strings.TrimPrefix(msg, "line 1: ")
		return reflect.Value{}, fmt.Errorf("%s (want %s)", msg, wantOf(t))
	}
	return p.Elem(), nil
}

// decodeScalar decodes a YAML scalar into p (a pointer), refusing for an
// integer type what is not written as an integer (yaml.v3 would truncate
// 2.5 to 2).
func decodeScalar(n *yaml.Node, p reflect.Value) error {
	k := p.Elem().Kind()
	if _, custom := p.Interface().(yaml.Unmarshaler); !custom && k >= reflect.Int && k <= reflect.Uint64 && n.ShortTag() != "!!int" {
		return fmt.Errorf("%q is not an integer", n.Value)
	}
	return n.Decode(p.Interface())
}

// formatValue writes v as text that parseValue reads back exactly: the
// type's own form ("3µs", "4 KiB", "1.6 TB/s", "paper") when it does, the
// value in the base unit otherwise ("1280000000000.0002 B/s").
func formatValue(v reflect.Value) (string, error) {
	switch v.Kind() {
	case reflect.String:
		return v.String(), nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), nil
	}
	if s, ok := v.Interface().(fmt.Stringer); ok {
		text := s.String()
		if back, err := parseValue(text, v.Type()); err == nil && back.Equal(v) {
			return text, nil
		}
	}
	var text string
	switch x := v.Interface().(type) {
	case unit.Duration:
		text = strconv.FormatInt(int64(x), 10) + "ns"
	case unit.Bytes:
		text = strconv.FormatInt(int64(x), 10) + " B"
	case unit.BytesPerSecond:
		text = strconv.FormatFloat(float64(x), 'f', -1, 64) + " B/s"
	case unit.JoulesPerBit:
		text = strconv.FormatFloat(float64(x), 'g', -1, 64) + " J/bit"
	default:
		switch {
		case v.CanInt():
			text = strconv.FormatInt(v.Int(), 10)
		case v.CanUint():
			text = strconv.FormatUint(v.Uint(), 10)
		case v.CanFloat():
			text = strconv.FormatFloat(v.Float(), 'g', -1, 64)
		default:
			return "", fmt.Errorf("%v: no text form for %s", v.Interface(), v.Type())
		}
	}
	if back, err := parseValue(text, v.Type()); err != nil || !back.Equal(v) {
		return "", fmt.Errorf("%v: no exact text form", v.Interface())
	}
	return text, nil
}
