package dash

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// Setting is one knob set to one value, as data: the override path and the
// value's text with its unit ({"hbf.t_read", "3us"}), the form sweep specs,
// experiment files and the CLI's --set write. SettingOf makes one from a
// typed value (exactly: the text reads back to the same value).
type Setting struct {
	Path  string `json:"path" yaml:"path"`
	Value string `json:"value" yaml:"value"`
}

// String is "path=value".
func (s Setting) String() string { return s.Path + "=" + s.Value }

// ParseSetting reads "hbf.t_read=3us", checking that the path is a knob and
// that the value reads as one of its values (its range is checked when the
// experiment is validated).
func ParseSetting(text string) (Setting, error) {
	path, value, ok := strings.Cut(text, "=")
	path, value = strings.TrimSpace(path), strings.TrimSpace(value)
	if !ok || path == "" || value == "" {
		return Setting{}, fmt.Errorf("setting %q: want PATH=VALUE (hbf.t_read=3us, link.usable=0.8TB/s; the knobs: dashlab knobs)", text)
	}
	s := Setting{Path: path, Value: value}
	if _, _, err := s.resolve(); err != nil {
		return Setting{}, err
	}
	return s, nil
}

// SettingOf is the setting of a knob to a typed value (3 * unit.Microsecond
// for hbf.t_read), with the value written exactly.
func SettingOf(path string, v any) (Setting, error) {
	k, err := LookupKnob(path)
	if err != nil {
		return Setting{}, err
	}
	rv, err := k.typed(v)
	if err != nil {
		return Setting{}, err
	}
	text, err := formatValue(rv)
	if err != nil {
		return Setting{}, &ValueError{Path: path, Value: fmt.Sprint(v), Reason: err.Error()}
	}
	return Setting{Path: path, Value: text}, nil
}

func (s Setting) resolve() (Knob, reflect.Value, error) {
	k, err := LookupKnob(s.Path)
	if err != nil {
		return Knob{}, reflect.Value{}, err
	}
	v, err := k.parse(s.Value)
	return k, v, err
}

// ApplySettings applies settings to t as one batch (see knobOrder): a knob
// with a rule for the fields that follow from it (hbf.page_size,
// link.usable, hbf.reading) sees the other fields given, and a field given
// beside it keeps the value given, whatever the order. Every bad setting is
// reported (unknown paths, values that do not read); ranges are Validate's.
func ApplySettings(t KnobTarget, settings ...Setting) error {
	var set []knobValue
	var errs []error
	for _, s := range settings {
		k, v, err := s.resolve()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		set = append(set, knobValue{k, v})
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return applyKnobs(t, set)
}

// knobValue is a knob and a value of its type.
type knobValue struct {
	k Knob
	v reflect.Value
}

// applyKnobs sets the knobs with a rule (or a view) first, then the others
// in order; a knob whose part t lacks is an error, and then nothing is set.
func applyKnobs(t KnobTarget, set []knobValue) error {
	var first, then []knobValue
	var errs []error
	for _, kv := range set {
		if _, err := kv.k.value(t); err != nil {
			errs = append(errs, err)
		} else if kv.k.rule != nil || kv.k.view != nil {
			first = append(first, kv)
		} else {
			then = append(then, kv)
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for _, kv := range knobOrder(first, then) {
		kv.k.set(t, kv.v)
	}
	return nil
}

// knobOrder is the order a batch of knobs is applied in: the plain fields,
// then the knobs with a rule (which so see the final organisation: the page
// wave of the dies and planes given beside the page size), then the plain
// fields again (so that a field the rule sets, given too, keeps its value).
func knobOrder(rules, plain []knobValue) []knobValue {
	return slices.Concat(plain, rules, plain)
}

// Set sets a knob by its path to a typed value: b.Set("hbf.t_read",
// 10*unit.Microsecond), b.Set("execution.lookahead", true). A value of
// another type is refused (Build reports it): a duration, size or rate needs
// its unit. Text is read by the knob's type ("10us"). Memory-system knobs
// are applied by Build, in call order, to whichever system it ends up with;
// workload and execution knobs at once.
func (b ExperimentBuilder) Set(path string, v any) ExperimentBuilder {
	k, err := LookupKnob(path)
	if err != nil {
		return b.fail(err)
	}
	rv, err := k.typed(v)
	if err != nil {
		return b.fail(err)
	}
	return b.setKnob(k, rv)
}

// With applies settings as data (a case's knobs, the CLI's --set) as one
// batch, ordered as ApplySettings orders them. A bad setting is reported by
// Build.
func (b ExperimentBuilder) With(settings ...Setting) ExperimentBuilder {
	var first, then []knobValue
	for _, s := range settings {
		k, v, err := s.resolve()
		switch {
		case err != nil:
			b = b.fail(err)
		case k.rule != nil || k.view != nil:
			first = append(first, knobValue{k, v})
		default:
			then = append(then, knobValue{k, v})
		}
	}
	for _, kv := range knobOrder(first, then) {
		b = b.setKnob(kv.k, kv.v)
	}
	return b
}

func (b ExperimentBuilder) setKnob(k Knob, v reflect.Value) ExperimentBuilder {
	switch k.domain {
	case domainSystem:
		return b.Modify(func(s *SystemSpec) { k.set(KnobTarget{System: s}, v) })
	case domainWorkload:
		k.set(KnobTarget{Workload: &b.workload}, v)
	case domainExecution:
		k.set(KnobTarget{Execution: &b.execution}, v)
	default:
		return b.fail(&ValueError{Path: k.Path, Reason: "a knob of the " + k.Space() + ", not of a single-GPU experiment (set it on a cluster experiment)"})
	}
	return b
}
