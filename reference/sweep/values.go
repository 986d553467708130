package sweep

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/internal/safeio"
	"gopkg.in/yaml.v3"
)

// Bounds of a spec: they keep Compile, which validates every point, within
// seconds (about 2.6 µs of CPU per point) and every row within MaxRowBytes.
const (
	// maxAxisValues bounds one axis and maxPoints the product of the axes
	// (1,000,000 points: about 2.6 s of CPU to validate; a point runs for a second or
	// more, so a sweep that size is months of CPU).
	maxAxisValues = 1_000_000
	maxPoints     = 1_000_000
	// maxAxes bounds the axes and maxConditions the where conditions.
	maxAxes       = 64
	maxConditions = 64
	// maxLabel bounds an axis value's text as rows carry it (1 KiB).
	maxLabel = 1 << 10
)

// Bounds is the spec's limits, for documentation and error messages.
var Bounds = struct {
	// Points bounds the product of the axes; AxisValues one axis.
	Points, AxisValues int
	// Axes bounds the axes and Conditions the where conditions.
	Axes, Conditions int
	// Label bounds one axis value's text, in bytes.
	Label int
}{maxPoints, maxAxisValues, maxAxes, maxConditions, maxLabel}

// decodeValue decodes a YAML value into a new value of type t: strictly for
// mappings (an unknown key is an error), with the type's own parser (units
// required) for scalars.
func decodeValue(n *yaml.Node, t reflect.Type) (reflect.Value, error) {
	ptr := reflect.New(t)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return reflect.Value{}, fmt.Errorf("empty value")
	}
	if n.Kind == yaml.ScalarNode && t.Kind() == reflect.String && n.Tag != "!!str" {
		// yaml decodes 4 into a string field as "4"; keep it as written.
		ptr.Elem().SetString(n.Value)
		return ptr.Elem(), nil
	}
	if n.Kind == yaml.ScalarNode && isPlainInt(t) && n.ShortTag() != "!!int" {
		// yaml.v3 truncates 2.5 to 2 in an integer field without a word
		return reflect.Value{}, fmt.Errorf("%s: want %s", safeio.Quote(n.Value), typeWord(t))
	}
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		data, err := yaml.Marshal(n)
		if err != nil {
			return reflect.Value{}, err
		}
		if err := dash.DecodeStrictBytes(data, "value", ptr.Interface()); err != nil {
			return reflect.Value{}, fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "value: "))
		}
		return ptr.Elem(), nil
	}
	if err := n.Decode(ptr.Interface()); err != nil {
		return reflect.Value{}, fmt.Errorf("%s (want %s)", safeio.Clip(strings.TrimPrefix(err.Error(), "yaml: ")), typeWord(t))
	}
	if f, ok := toFloat(ptr.Elem()); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		return reflect.Value{}, fmt.Errorf("%s: not a finite number", safeio.Quote(n.Value))
	}
	return ptr.Elem(), nil
}

// isPlainInt reports an integer type without a parser of its own (a
// count: batch, prompt; not a duration or a size, whose parsers take units).
func isPlainInt(t reflect.Type) bool {
	if _, ok := reflect.New(t).Interface().(yaml.Unmarshaler); ok {
		return false
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// parseValue decodes a value written as text (a label or a where operand).
func parseValue(s string, t reflect.Type) (reflect.Value, error) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(s), &n); err != nil || len(n.Content) != 1 {
		return reflect.Value{}, fmt.Errorf("%s: not a single value", safeio.Quote(s))
	}
	return decodeValue(n.Content[0], t)
}

func typeWord(t reflect.Type) string {
	if _, ok := reflect.New(t).Interface().(yaml.Unmarshaler); ok {
		return "a " + t.Name() + " with its unit"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	}
	return "a " + t.String()
}

// label is the canonical text of a value: the type's own form when it reads
// back exactly ("3µs", "4 KiB", "1.6 TB/s"), otherwise a full-precision form
// in the same unit. Labels are what rows carry and keys hash.
func label(v reflect.Value) (string, error) {
	switch v.Kind() {
	case reflect.String:
		return v.String(), nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), nil
	}
	if s, ok := v.Interface().(fmt.Stringer); ok && isNumeric(v.Type()) {
		text := s.String()
		if back, err := parseValue(text, v.Type()); err == nil && back.Equal(v) {
			return text, nil
		}
		return preciseLabel(v, text)
	}
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), nil
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'g', -1, 64), nil
	}
	out, err := yaml.Marshal(v.Interface())
	if err != nil {
		return "", err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(out, &n); err != nil {
		return "", err
	}
	setFlow(&n)
	out, err = yaml.Marshal(&n)
	return strings.TrimSpace(string(out)), err
}

func setFlow(n *yaml.Node) {
	n.Style |= yaml.FlowStyle
	for _, c := range n.Content {
		setFlow(c)
	}
}

// preciseLabel rewrites "2.6214 ms" as the exact value in the same unit.
func preciseLabel(v reflect.Value, text string) (string, error) {
	i := strings.IndexFunc(text, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == '+')
	})
	if i < 0 {
		return text, nil
	}
	sep, unit := "", text[i:]
	if strings.HasPrefix(unit, " ") {
		sep, unit = " ", strings.TrimSpace(unit)
	}
	one, err := parseValue("1"+sep+unit, v.Type())
	if err != nil {
		return "", err
	}
	f, _ := toFloat(v)
	scale, _ := toFloat(one)
	out := strconv.FormatFloat(f/scale, 'g', -1, 64) + sep + unit
	if back, err := parseValue(out, v.Type()); err != nil || !back.Equal(v) {
		return "", fmt.Errorf("%s: no exact text form", text)
	}
	return out, nil
}

func isNumeric(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}

func toFloat(v reflect.Value) (float64, bool) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(v.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(v.Uint()), true
	case reflect.Float32, reflect.Float64:
		return v.Float(), true
	}
	return 0, false
}

// fromFloat converts f to type t, rounding to an integer for integer types.
func fromFloat(f float64, t reflect.Type) (reflect.Value, error) {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		r := math.Round(f)
		if r > math.MaxInt64/2 || r < math.MinInt64/2 || v.OverflowInt(int64(r)) {
			return v, fmt.Errorf("%g overflows %s", f, t)
		}
		v.SetInt(int64(r))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		r := math.Round(f)
		if r < 0 || r > math.MaxInt64/2 || v.OverflowUint(uint64(r)) {
			return v, fmt.Errorf("%g overflows %s", f, t)
		}
		v.SetUint(uint64(r))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(f)
	default:
		return v, fmt.Errorf("not a number")
	}
	return v, nil
}

// expandRange returns the values of a range of type t.
func expandRange(r *RangeSpec, t reflect.Type) ([]reflect.Value, error) {
	if !isNumeric(t) {
		return nil, fmt.Errorf("range: the field holds %s, not a number (list its values instead)", typeWord(t))
	}
	bound := func(n *yaml.Node, name string) (float64, error) {
		if n.Kind == 0 {
			return 0, fmt.Errorf("range: %s: missing", name)
		}
		v, err := decodeValue(n, t)
		if err != nil {
			return 0, fmt.Errorf("range: %s = %s: %v", name, safeio.Quote(n.Value), err)
		}
		f, _ := toFloat(v)
		return f, nil
	}
	from, err := bound(&r.From, "from")
	if err != nil {
		return nil, err
	}
	to, err := bound(&r.To, "to")
	if err != nil {
		return nil, err
	}
	if to < from {
		return nil, fmt.Errorf("range: to = %s is below from = %s", safeio.Quote(r.To.Value), safeio.Quote(r.From.Value))
	}
	set := 0
	for _, on := range []bool{r.Step.Kind != 0, r.Factor != 0, r.Count != 0} {
		if on {
			set++
		}
	}
	if set != 1 {
		return nil, fmt.Errorf("range: give exactly one of step, factor or count")
	}
	var fs []float64
	const eps = 1e-9
	switch {
	case r.Step.Kind != 0:
		step, err := bound(&r.Step, "step")
		if err != nil {
			return nil, err
		}
		if !(step > 0) {
			return nil, fmt.Errorf("range: step = %s: must be positive", safeio.Quote(r.Step.Value))
		}
		n := math.Floor((to-from)/step+eps) + 1
		if n > maxAxisValues {
			return nil, fmt.Errorf("range: %.0f values; at most %d", n, maxAxisValues)
		}
		for i := range int(n) {
			fs = append(fs, from+float64(i)*step)
		}
	case r.Factor != 0:
		if !(r.Factor > 1) || math.IsInf(r.Factor, 0) {
			return nil, fmt.Errorf("range: factor = %v: must be above 1", r.Factor)
		}
		if !(from > 0) {
			return nil, fmt.Errorf("range: from = %s: a geometric range starts above zero", safeio.Quote(r.From.Value))
		}
		for i := 0; ; i++ {
			f := from * math.Pow(r.Factor, float64(i))
			if f > to*(1+eps) {
				break
			}
			if len(fs) >= maxAxisValues {
				return nil, fmt.Errorf("range: more than %d values", maxAxisValues)
			}
			fs = append(fs, f)
		}
	default:
		if r.Count < 2 || r.Count > maxAxisValues {
			return nil, fmt.Errorf("range: count = %d: must be 2 to %d", r.Count, maxAxisValues)
		}
		for i := range r.Count {
			fs = append(fs, from+float64(i)*(to-from)/float64(r.Count-1))
		}
	}
	out := make([]reflect.Value, 0, len(fs))
	for _, f := range fs {
		if isPlainInt(t) && math.Abs(f-math.Round(f)) > eps*math.Max(1, math.Abs(f)) {
			return nil, fmt.Errorf("range: gives %g, not an integer (the field holds integers: choose from, to and the step, count or factor so that every value is whole, or list the values)", f)
		}
		v, err := fromFloat(f, t)
		if err != nil {
			return nil, fmt.Errorf("range: %v", err)
		}
		if len(out) > 0 && out[len(out)-1].Equal(v) {
			continue // integer rounding of a fine step
		}
		out = append(out, v)
	}
	return out, nil
}
