package main

import (
	"encoding"
	"flag"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// csvTable is one table of a command's result for --format csv: a header of
// snake_case names with the unit in the name (latency_ms, capacity_gb), and
// rows in a stable order.
type csvTable struct {
	header []string
	rows   [][]string
	// err is a field csvOf could not write (a programming error, which the
	// tests of every table catch).
	err error
}

// write writes the table as RFC 4180 CSV.
func (t csvTable) write(w io.Writer) error {
	if t.err != nil {
		return t.err
	}
	return writeCSV(w, t.header, t.rows)
}

// csvOf tabulates flat structs: one column per field, named by the field's
// json tag (so the CSV and the JSON of a command use the same names), in field
// order. A field tagged csv:"-" is left out (a list or a map, which has no
// place in one cell). Numbers are written in full: integers (durations in ns,
// bytes) as integers, floats in their shortest exact form.
func csvOf[T any](rows []T) csvTable {
	typ := reflect.TypeFor[T]()
	var t csvTable
	var fields []int
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" || f.Tag.Get("csv") == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		t.header = append(t.header, name)
		fields = append(fields, i)
	}
	for _, r := range rows {
		v := reflect.ValueOf(r)
		row := make([]string, len(fields))
		for j, i := range fields {
			var ok bool
			if row[j], ok = csvCell(v.Field(i)); !ok && t.err == nil {
				t.err = fmt.Errorf("dashlab: CSV of %v: field %s (%v) has no CSV form", typ, typ.Field(i).Name, v.Field(i).Kind())
			}
		}
		t.rows = append(t.rows, row)
	}
	return t
}

var textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()

// csvCell writes one value; false for a kind one cell cannot hold. A nil
// pointer (a value that does not exist: JSON's null) is an empty cell.
func csvCell(v reflect.Value) (string, bool) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", true
		}
		return csvCell(v.Elem())
	}
	if v.Type().Implements(textMarshaler) {
		b, err := v.Interface().(encoding.TextMarshaler).MarshalText()
		return string(b), err == nil
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), true
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10), true
	case reflect.Float32, reflect.Float64:
		return csvFloat(v.Float()), true
	}
	return "", false
}

// tableChoice is the --table flag of a command whose result holds several
// tables: it picks the one --format csv writes.
type tableChoice struct {
	names []string
	name  *string
}

// addTableFlag adds --table with the names of the tables (the first is the
// default).
func addTableFlag(fs *flag.FlagSet, names ...string) tableChoice {
	return tableChoice{names, fs.String("table", names[0], "with --format csv: the table to write: "+strings.Join(names, ", "))}
}

// check refuses a name that is not one of the tables.
func (c tableChoice) check() error {
	if !slices.Contains(c.names, *c.name) {
		return fmt.Errorf("%w: --table %q: want one of %s", errUsage, *c.name, strings.Join(c.names, ", "))
	}
	return nil
}

// pick returns the chosen table of tables, given in the order of the names.
func (c tableChoice) pick(tables ...csvTable) csvTable { return tables[slices.Index(c.names, *c.name)] }

// writeData writes a result in one of the data formats: the whole of v as
// JSON, or the table that csv gives as CSV. It reports false for any other
// format, which the caller prints as its own table.
func writeData(w io.Writer, format string, v any, csv func() csvTable) (bool, error) {
	switch format {
	case "json":
		return true, writeJSON(w, v)
	case "csv":
		return true, csv().write(w)
	}
	return false, nil
}
