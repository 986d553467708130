// Package zerotest checks that zero values of exported types are safe: every
// exported method of a zero value, called with zero arguments, returns
// instead of panicking. Tests of each package list their exported types.
package zerotest

import (
	"fmt"
	"reflect"
)

// Skip names methods that must not be called with zero arguments because
// they are documented to panic (MustBuild) or to block.
var Skip = map[string]bool{"MustBuild": true}

// CallAll calls every exported method of v (and of &v) with zero
// arguments and returns one line per method that panicked.
func CallAll(v any) []string {
	var bad []string
	rv := reflect.ValueOf(v)
	p := reflect.New(rv.Type())
	p.Elem().Set(rv)
	for _, recv := range []reflect.Value{rv, p} {
		t := recv.Type()
		for i := range t.NumMethod() {
			m := t.Method(i)
			if Skip[m.Name] || (recv.Kind() == reflect.Pointer && rv.Type().Kind() != reflect.Pointer && hasValueMethod(rv.Type(), m.Name)) {
				continue
			}
			args := make([]reflect.Value, m.Type.NumIn()-1)
			for k := range args {
				args[k] = reflect.Zero(m.Type.In(k + 1))
			}
			if m.Type.IsVariadic() {
				args = args[:len(args)-1]
			}
			if msg := call(recv.Method(i), args); msg != "" {
				bad = append(bad, fmt.Sprintf("%v.%s: %s", t, m.Name, msg))
			}
		}
	}
	return bad
}

func hasValueMethod(t reflect.Type, name string) bool {
	_, ok := t.MethodByName(name)
	return ok
}

func call(f reflect.Value, args []reflect.Value) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint("panic: ", r)
		}
	}()
	f.Call(args)
	return ""
}
