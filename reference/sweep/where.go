package sweep

import (
	"fmt"
	"reflect"
	"regexp"
	"sync"

	"github.com/dashlab/dashlab/internal/safeio"
)

// condition is one compiled where condition.
type condition struct {
	text string
	axis int
	op   string
	v    reflect.Value
}

var conditionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*([A-Za-z0-9_.]+)\s*(==|!=|<=|>=|<|>)\s*(.+?)\s*$`)
})

// compileWhere parses the conditions and marks, per axis value, whether it
// meets every condition on its axis.
func (p *Plan) compileWhere(where []string) error {
	if len(where) > maxConditions {
		return fmt.Errorf("where: %d conditions; at most %d", len(where), maxConditions)
	}
	for i, text := range where {
		m := conditionRE().FindStringSubmatch(text)
		if m == nil {
			return fmt.Errorf("where %d: %s: want PATH OP VALUE with OP one of == != < <= > >=", i+1, safeio.Quote(text))
		}
		text = safeio.Clip(text)
		ai := -1
		for j, a := range p.axes {
			if a.path == m[1] {
				ai = j
			}
		}
		if ai < 0 {
			return fmt.Errorf("where %d: %q: %s is not an axis (conditions compare axis values)", i+1, text, safeio.Clip(m[1]))
		}
		a := &p.axes[ai]
		v, err := parseValue(m[3], a.field.typ)
		if err != nil {
			return fmt.Errorf("where %d: %q: value %s: %v", i+1, text, safeio.Clip(m[3]), err)
		}
		c := condition{text: text, axis: ai, op: m[2], v: v}
		if c.op != "==" && c.op != "!=" && !isNumeric(a.field.typ) {
			return fmt.Errorf("where %d: %q: %s holds %s: only == and != compare it", i+1, text, a.path, typeWord(a.field.typ))
		}
		for vi, av := range a.values {
			if !c.holds(av) {
				a.keep[vi] = false
			}
		}
	}
	return nil
}

func (c condition) holds(v reflect.Value) bool {
	switch c.op {
	case "==":
		return v.Equal(c.v)
	case "!=":
		return !v.Equal(c.v)
	}
	x, _ := toFloat(v)
	y, _ := toFloat(c.v)
	switch c.op {
	case "<":
		return x < y
	case "<=":
		return x <= y
	case ">":
		return x > y
	}
	return x >= y
}

// filtered reports whether any condition drops a value.
func (p *Plan) filtered() bool {
	for _, a := range p.axes {
		for _, k := range a.keep {
			if !k {
				return true
			}
		}
	}
	return false
}

// keepsValue reports whether value vi of dimension dm meets every
// condition on its axes.
func (p *Plan) keepsValue(dm dim, vi int) bool {
	for _, ai := range dm.axes {
		if !p.axes[ai].keep[vi] {
			return false
		}
	}
	return true
}

// keeps reports whether the point of these digits meets every condition.
func (p *Plan) keeps(digits []int) bool {
	for d, dm := range p.dims {
		for _, ai := range dm.axes {
			if !p.axes[ai].keep[digits[d]] {
				return false
			}
		}
	}
	return true
}
