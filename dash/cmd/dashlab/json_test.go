package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// unmarshalResult decodes a command's JSON envelope, checking its schema version, and
// the result into v.
func unmarshalResult(data []byte, v any) error {
	var env struct {
		SchemaVersion int             `json:"schema_version"`
		Result        json.RawMessage `json:"result"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		return err
	}
	if env.SchemaVersion != SchemaVersion {
		return fmt.Errorf("schema_version %d, want %d", env.SchemaVersion, SchemaVersion)
	}
	return json.Unmarshal(env.Result, v)
}

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// badKeys lists the object keys of a decoded JSON value that are not snake_case.
func badKeys(v any, path string, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if !snakeKey.MatchString(k) {
				*out = append(*out, path+"."+k)
			}
			badKeys(e, path+"."+k, out)
		}
	case []any:
		for _, e := range x {
			badKeys(e, path+"[]", out)
		}
	}
}

func TestJSONIsSnakeCaseAndRepeatable(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--model", "mixtral-8x22b", "--batch", "2", "--prompt", "128", "--output", "4", "--format", "json"},
		{"reproduce", "--only", "table2.", "--format", "json"},
		{"models", "--format", "json"},
	} {
		code, out, errs := dashlab(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		var v any
		if err := unmarshalResult([]byte(out), &v); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var bad []string
		badKeys(v, "", &bad)
		if len(bad) > 0 {
			t.Errorf("%v: keys not snake_case: %v", args, bad)
		}
		if _, again, _ := dashlab(args...); again != out {
			t.Errorf("%v: two runs differ", args)
		}
	}
	// --perf adds the wall time, and only then.
	_, plain, _ := dashlab("run", "--model", "mixtral-8x22b", "--output", "4", "--format", "json")
	_, perf, _ := dashlab("run", "--model", "mixtral-8x22b", "--output", "4", "--format", "json", "--perf")
	if strings.Contains(plain, "wall") || !strings.Contains(perf, `"wall_ns"`) {
		t.Errorf("wall time: plain has it %v, --perf has it %v", strings.Contains(plain, "wall"), strings.Contains(perf, `"wall_ns"`))
	}
}

func TestCSVTables(t *testing.T) {
	for _, c := range []struct {
		args   []string
		header string
	}{
		{[]string{"run", "--model", "mixtral-8x22b", "--output", "4", "--format", "csv"}, "phase,class,ops,time_ns"},
		{[]string{"reproduce", "--only", "table2.", "--format", "csv"}, "id,unit,section,paper,simulated"},
	} {
		code, out, errs := dashlab(c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil || len(recs) < 2 || !strings.HasPrefix(out, c.header) {
			t.Errorf("%v: %d records, %v:\n%s", c.args, len(recs), err, out)
		}
	}
}
