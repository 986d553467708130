package reference

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/dashlab/dashlab/dash/routing"
)

var updateRoutingTraces = flag.Bool("update-routing-traces", false, "regenerate the shipped routing traces (reference/routing)")

// shippedTraces are the generator runs that made the shipped traces (their
// provenance; reference/routing/README.md describes them).
var shippedTraces = []struct {
	file, model     string
	requests, token int
	s               routing.Synthetic
}{
	{"mixtral-8x22b-synthetic.parquet", "mixtral-8x22b", 8, 512,
		routing.Synthetic{Seed: 1, Skew: 0.4, Repeat: routing.MixtralRepeat, LayerCorr: 0.2, Tasks: 4, TaskOverlap: 0.7}},
}

// The shipped traces are what the generator makes from their recorded
// parameters (regenerate with go generate ./reference), small, and fit
// their model.
func TestShippedRoutingTraces(t *testing.T) {
	for _, c := range shippedTraces {
		m, err := Model(c.model)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := routing.Generate(c.s, m.RoutingModel(), c.requests, c.token)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := routing.EncodeParquet(&buf, tr); err != nil {
			t.Fatal(err)
		}
		path := "routing/" + c.file
		if *updateRoutingTraces { // the embedded copy is the old one until the next build
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := RoutingTrace(c.file)
		if err != nil {
			t.Fatal(err)
		}
		if err := got.Check(m.RoutingModel()); err != nil {
			t.Error(err)
		}
		back, _ := routing.DecodeParquet(bytes.NewReader(buf.Bytes()), int64(buf.Len()), c.file)
		var a, b bytes.Buffer
		_ = routing.EncodeJSONL(&a, back)
		_ = routing.EncodeJSONL(&b, got)
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s is not the generator's output for its parameters: go generate ./reference", path)
		}
		if st, _ := os.Stat(path); st != nil && st.Size() > 300<<10 {
			t.Errorf("%s: %d bytes, more than a shipped trace should be", path, st.Size())
		}
	}
}
