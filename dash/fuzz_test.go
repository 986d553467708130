package dash_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
)

// FuzzModelSpec decodes arbitrary model YAML, validates it and derives the
// inventory and footprint of any model that passes: each step returns a
// value or an error, never panics, and the footprint of a valid model adds
// up. Seeds: every shipped model plus the hostile sizes of issue 9.
func FuzzModelSpec(f *testing.F) {
	files, _ := filepath.Glob("../reference/models/*.yaml")
	files = append(files, "../notebooks/data/my-moe.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	my, _ := os.ReadFile("../notebooks/data/my-moe.yaml")
	for _, n := range []string{"1000000", "2000000000", "10000", "4.9", "-1", "9223372036854775807"} {
		f.Add(strings.NewReplacer("num_layers: 40", "num_layers: "+n, `"0-39"`, `"0-`+n+`"`).Replace(string(my)))
	}
	f.Add("id: x\nnum_layers: 2000000000\nhidden_size: 1\n")
	f.Fuzz(func(t *testing.T, s string) {
		var m dash.ModelSpec
		if err := dash.DecodeStrictBytes([]byte(s), "fuzz.yaml", &m); err != nil {
			return
		}
		if m.Validate() != nil {
			return
		}
		fp, err := m.Footprint()
		if err != nil {
			return
		}
		if fp.Bytes <= 0 || fp.Params <= 0 || fp.MainBytes > fp.Bytes || fp.RoutedParams > fp.Params {
			t.Fatalf("valid model %s has an inconsistent footprint %+v", m.ID, fp)
		}
	})
}
