package dash

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/dashlab/dashlab/dash/unit"
)

// Change is one parameter in which a spec differs from a reference spec (the
// paper's): the field's YAML path and both values, printed with their units.
// DiffSystems and DiffExecution list them; the harness (package reference)
// compares a simulated experiment with the paper's, and the charts print the
// list ("what-if: link 1.6 -> 0.8 TB/s").
type Change struct {
	// Field is the YAML path of the field ("link.usable", "hbf.t_read"), or a
	// name for what is not one field ("models", "batches").
	Field string
	// From is the reference's value and To the simulated one, with units.
	From, To string
}

// Label is the change's short name: the knob's symbol ("t_R" for
// hbf.t_read, "link" for link.usable; see Knob), the field's path otherwise.
func (c Change) Label() string {
	if k, err := LookupKnob(c.Field); err == nil {
		return k.Label()
	}
	return c.Field
}

// numberAndUnit splits "1.6 TB/s" and "3us" into the number and a unit (letters,
// µ and /, no digits or commas: "1K/128" and "1, 4" are not quantities).
var numberAndUnit = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(-?[0-9][0-9.]*(?:e[-+]?[0-9]+)?)\s*([^0-9\s,][^0-9,]*)?$`)
})

// String is the compact form: the label and both values, the unit written
// once, the reference's ("link 1.6 -> 0.8 TB/s", "t_R 3 -> 1 µs", "page
// 4 -> 16 KiB", "execution.launch_only_overhead false -> true"), or the
// new value's when the reference is a zero quantity ("t_ECC 0 -> 2 µs").
func (c Change) String() string {
	from, to := c.From, inUnitOf(c.To, c.From)
	a, b := numberAndUnit().FindStringSubmatch(from), numberAndUnit().FindStringSubmatch(to)
	if a != nil && b != nil && a[2] != "" && b[2] != "" && a[2] != b[2] && isZero(a[1]) {
		a[2] = b[2] // zero is zero in any unit of its quantity
	}
	if a != nil && b != nil && a[2] != "" && a[2] == b[2] {
		u := a[2]
		if u == "us" {
			u = "µs"
		}
		return fmt.Sprintf("%s %s -> %s %s", c.Label(), a[1], b[1], u)
	}
	return fmt.Sprintf("%s %s -> %s", c.Label(), from, to)
}

// isZero reports whether a number's text is zero.
func isZero(num string) bool {
	x, err := strconv.ParseFloat(num, 64)
	return err == nil && x == 0
}

// inUnitOf writes the quantity to in the unit of ref when both are durations,
// byte counts or rates ("800 GB/s" in the unit of "1.6 TB/s" is "0.8 TB/s");
// otherwise it returns to.
func inUnitOf(to, ref string) string {
	m := numberAndUnit().FindStringSubmatch(ref)
	if m == nil || m[2] == "" {
		return to
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil || n == 0 {
		return to
	}
	var x, r float64
	var ok bool
	if a, err := unit.ParseDuration(to); err == nil {
		b, err := unit.ParseDuration(ref)
		x, r, ok = float64(a), float64(b), err == nil
	} else if a, err := unit.ParseBytesPerSecond(to); err == nil {
		b, err := unit.ParseBytesPerSecond(ref)
		x, r, ok = float64(a), float64(b), err == nil
	} else if a, err := unit.ParseBytes(to); err == nil {
		b, err := unit.ParseBytes(ref)
		x, r, ok = float64(a), float64(b), err == nil
	}
	if !ok || r == 0 {
		return to
	}
	return strconv.FormatFloat(n*x/r, 'g', 4, 64) + " " + m[2]
}

// DiffSystems lists the fields in which s differs from ref, in the spec's
// order (the id is not compared). Fields that follow from another change by
// the builder's own rules are left out: SRAM regions sized to a changed page
// wave (SystemSpec.SetPageSize) and a lane rate scaled with the usable link
// rate (ExperimentBuilder.LinkBandwidth).
func DiffSystems(ref, s SystemSpec) []Change {
	var out []Change
	for _, c := range diffFields("", reflect.ValueOf(ref), reflect.ValueOf(s)) {
		if c.Field == "id" || derivedChange(c.Field, ref, s) {
			continue
		}
		out = append(out, c)
	}
	return out
}

// derivedChange reports whether a changed field follows from another change
// by the builder's rules.
func derivedChange(field string, ref, s SystemSpec) bool {
	switch field {
	case "hbf.sram.region_size":
		return ref.HBF.SRAM.RegionSize == ref.HBF.PageWave() && s.HBF.SRAM.RegionSize == s.HBF.PageWave()
	case "hbm.relay_sram.region_size":
		return ref.HBM.RelaySRAM.RegionSize == ref.HBF.PageWave()/2 && s.HBM.RelaySRAM.RegionSize == s.HBF.PageWave()/2
	case "link.gt_per_second":
		r, x := ref.Link, s.Link
		return r.Usable != x.Usable && r.Usable > 0 && x.Usable > 0 &&
			math.Abs(r.GTPerSecond/float64(r.Usable)-x.GTPerSecond/float64(x.Usable)) <= 1e-9*r.GTPerSecond/float64(r.Usable)
	}
	return false
}

// DiffExecution lists the execution switches in which x differs from ref.
func DiffExecution(ref, x ExecutionSpec) []Change {
	return diffFields("execution.", reflect.ValueOf(ref), reflect.ValueOf(x))
}

// DiffRouting lists the routing fields in which r differs from ref.
func DiffRouting(ref, r RoutingSpec) []Change {
	return diffFields("workload.routing.", reflect.ValueOf(ref), reflect.ValueOf(r))
}

// diffFields walks two values of one struct type by their YAML keys and lists
// the leaves that differ, printed with fmt (the unit types print their unit).
func diffFields(prefix string, a, b reflect.Value) []Change {
	if a.Kind() != reflect.Struct {
		if reflect.DeepEqual(a.Interface(), b.Interface()) {
			return nil
		}
		return []Change{{Field: strings.TrimSuffix(prefix, "."), From: fmt.Sprint(a.Interface()), To: fmt.Sprint(b.Interface())}}
	}
	var out []Change
	t := a.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		key, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if key == "-" {
			continue
		}
		if key == "" {
			key = strings.ToLower(f.Name)
		}
		out = append(out, diffFields(prefix+key+".", a.Field(i), b.Field(i))...)
	}
	return out
}
