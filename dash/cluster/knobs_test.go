package cluster_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
)

// leafPaths lists the YAML paths of t's exported leaf fields (inline
// fields at their parent's path), leaving out knob:"-".
func leafPaths(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		key, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || key == "-" || f.Tag.Get("knob") == "-" {
			continue
		}
		if f.Type.Kind() == reflect.Struct && f.Tag.Get("knob") == "" {
			sub := prefix + key + "."
			if key == "" && strings.Contains(opts, "inline") {
				sub = prefix
			}
			out = append(out, leafPaths(f.Type, sub)...)
			continue
		}
		out = append(out, prefix+key)
	}
	return out
}

// Every leaf field of the cluster's hardware and layout is a knob of the
// one table, with a doc, a unit and a source.
func TestEveryClusterFieldIsAKnob(t *testing.T) {
	for _, part := range []any{cluster.Spec{}, cluster.Layout{}} {
		want := leafPaths(reflect.TypeOf(part), "")
		var got []string
		for _, k := range dash.KnobsOf(part) {
			got = append(got, k.Path)
			if k.Doc == "" || k.Unit() == "" || k.Cite == "" || !cluster.IsClusterKnob(k) {
				t.Errorf("%s: doc %q unit %q source %q space %q", k.Path, k.Doc, k.Unit(), k.Cite, k.Space())
			}
			if l, err := dash.LookupKnob(k.Path); err != nil || l.Path != k.Path {
				t.Errorf("%s: %v", k.Path, err)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%T: knobs\n%v\nfields\n%v", part, got, want)
		}
	}
}

// The knobs' ranges are the package's bounds.
func TestClusterKnobRangesMatchLimits(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"nodes", fmt.Sprintf("1 .. %d", cluster.MaxNodes)},
		{"gpus_per_node", fmt.Sprintf("1 .. %d", cluster.MaxGPUsPerNode)},
		{"gpu.power", fmt.Sprintf("0 W .. %v", cluster.MaxPower)},
		{"interconnect.scale_up.rate", fmt.Sprintf("%v .. %v", cluster.MinLinkRate, cluster.MaxLinkRate)},
		{"interconnect.network.latency", fmt.Sprintf("0ns .. %v", cluster.MaxLatency)},
		{"interconnect.collective_latency", fmt.Sprintf("0ns .. %v", cluster.MaxLatency)},
		{"interconnect.pcie.energy", fmt.Sprintf("0 pJ/bit .. %v", cluster.MaxEnergy)},
		{"parallel.expert", fmt.Sprintf("1 .. %d", cluster.MaxDegree)},
		{"parallel.micro_batches", fmt.Sprintf("0 .. %d", cluster.MaxDegree)},
		{"placement.policy", "contiguous, popularity or replicated"},
		{"routing.kind", "balanced or zipf"},
	} {
		k, err := dash.LookupKnob(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := k.Range(); got != c.want {
			t.Errorf("%s: range %q, want %q", c.path, got, c.want)
		}
	}
}

// Every catalogue cluster's values write as text that reads back exactly
// and lie in their ranges.
func TestClusterKnobTextRoundTrips(t *testing.T) {
	for _, id := range []string{"hgx-h100", "hgx-h200", "h100-pcie-8"} {
		s := node(t, id)
		l := cluster.DefaultLayout()
		target := dash.KnobTarget{Parts: []any{&s, &l}}
		for _, part := range []any{s, l} {
			for _, k := range dash.KnobsOf(part) {
				text, err := k.Format(target)
				want, _ := k.Get(target)
				v, perr := k.Parse(text)
				if err != nil || perr != nil || v != want {
					t.Errorf("%s %s: %q reads back as %v (%v %v), want %v", id, k.Path, text, v, err, perr, want)
				}
				if err := k.Check(want); err != nil {
					t.Errorf("%s: %v", id, err)
				}
			}
		}
	}
}

// Knobs set a cluster experiment by path: the hardware, the layout and
// every GPU's memory system, each named in its what-if label.
func TestClusterKnobsSetAnExperiment(t *testing.T) {
	base := node(t, "hgx-h200")
	e := build(t, cluster.NewExperiment().Catalogue(reference.Catalogue).Cluster(base).ModelID("qwen3-235b-a22b").
		Memory("dash").Set("interconnect.scale_up.rate", 900*unit.GBps).Set("parallel.expert", 8).
		Set("hbf.t_read", 5*unit.Microsecond).With(dash.Setting{Path: "nodes", Value: "2"},
		dash.Setting{Path: "placement.policy", Value: "popularity"}, dash.Setting{Path: "workload.prompt", Value: "512"}))
	s := e.Spec()
	if s.Interconnect.ScaleUp.Link.Rate != 900*unit.GBps || s.Nodes != 2 || s.ID != "hgx-h200-x2" ||
		e.Parallel().Expert != 8 || e.PlacementSpec().Policy != cluster.PlacePopularity || e.Workload().Prompt != 512 {
		t.Errorf("spec %+v, layout %+v, workload %+v", s, e.Layout(), e.Workload())
	}
	if tr := e.Stages()[0].GPU.System().HBF.TRead; tr != 5*unit.Microsecond {
		t.Errorf("every GPU's t_R: %v", tr)
	}
	if w := e.Workload().Batch; w != 4*8 {
		t.Errorf("batch %d: the default is 4 per attention group", w)
	}
	var labels []string
	for _, c := range cluster.Changes(base, s) {
		labels = append(labels, c.String())
	}
	if want := []string{"nodes 1 -> 2", "scale-up 450 -> 900 GB/s"}; !slices.Equal(labels, want) {
		t.Errorf("what-ifs %v, want %v", labels, want)
	}
	if ch := cluster.LayoutChanges(cluster.DefaultLayout(), e.Layout()); len(ch) != 2 || ch[0].String() != "EP 1 -> 8" {
		t.Errorf("layout what-ifs %v", ch)
	}
	b := cluster.NewExperiment().Catalogue(reference.Catalogue).Cluster(base).ModelID("qwen3-235b-a22b")
	for _, c := range []struct {
		b    cluster.Builder
		want string
	}{
		{b.Set("parallel.expert", 0), "parallel.expert = 0: outside the plausible range 1 .. 1024"},
		{b.Set("interconnect.network.rate", unit.BytesPerSecond(0)), "interconnect.network.rate = 0 B/s: outside the plausible range 1 MB/s .. 1000 TB/s"},
		{b.Set("interconnect.scale_up.rate", 900), "want a unit.BytesPerSecond"},
		{b.With(dash.Setting{Path: "workload.routing.kind", Value: "zipf"}), "a cluster's loads follow its layout's routing"},
		{b.With(dash.Setting{Path: "placement.policy", Value: "random"}), `placement.policy = "random": must be contiguous, popularity or replicated`},
		{b.With(dash.Setting{Path: "parallel.experts", Value: "8"}), "did you mean parallel.expert?"},
		{b.Set("gpu.power", unit.Watts(20_000)), "gpu.power = 20000 W: outside the plausible range 0 W .. 10000 W"},
	} {
		_, err := c.b.Build()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want %q, got %v", c.want, err)
		}
	}
	var re *dash.RangeError
	if _, err := b.Set("nodes", 5000).Build(); !errors.As(err, &re) || re.Field != "nodes" {
		t.Errorf("nodes 5000: %v", err)
	}
}

// Every cluster knob whose tag says what physics says a larger value does
// (a port's rate: faster; a latency: slower) holds to it, doubled and
// halved, on a two-node layout whose collectives cross every port kind.
func TestClusterKnobsMonotone(t *testing.T) {
	base := build(t, cluster.NewExperiment().Catalogue(reference.Catalogue).Cluster(node(t, "hgx-h200")).ModelID("qwen3-30b-a3b").
		Memory("dash").Set("nodes", 2).Set("parallel.expert", 16).Set("parallel.tensor", 2).Batch(16).Prompt(256).Output(4))
	ref := run(t, base)
	n, same := 0, 0
	for _, k := range append(dash.KnobsOf(cluster.Spec{}), dash.KnobsOf(cluster.Layout{})...) {
		if k.Larger == 0 {
			continue
		}
		n++
		s := base.Spec()
		target := dash.KnobTarget{Parts: []any{&s}}
		v, _ := k.Get(target)
		for _, scale := range []float64{0.5, 2} {
			x := reflect.ValueOf(v)
			y := reflect.New(x.Type()).Elem()
			switch {
			case x.CanFloat():
				y.SetFloat(x.Float() * scale)
			case x.CanInt():
				y.SetInt(int64(float64(x.Int()) * scale))
				if x.Int() == 0 {
					y.SetInt(int64(1000 * scale)) // a latency of 0 grows too
				}
			}
			e := build(t, cluster.NewExperiment().Catalogue(reference.Catalogue).Cluster(base.Spec()).ModelID("qwen3-30b-a3b").
				Memory("dash").Set("parallel.expert", 16).Set("parallel.tensor", 2).Batch(16).Prompt(256).Output(4).Set(k.Path, y.Interface()))
			got := run(t, e)
			if got.E2E == ref.E2E && got.TTFT == ref.TTFT {
				same++
			}
			larger := y.Interface() != v && (x.CanFloat() && scale > 1 || x.CanInt() && y.Int() > x.Int())
			slower := got.E2E > ref.E2E || got.TTFT > ref.TTFT
			faster := got.E2E < ref.E2E || got.TTFT < ref.TTFT
			if larger == (k.Larger == dash.Faster) && slower || larger == (k.Larger == dash.Slower) && faster {
				t.Errorf("%s x%v (%v -> %v, %s is %v): E2E %v TTFT %v against %v %v", k.Path, scale, v, y.Interface(), "larger", k.Larger, got.E2E, got.TTFT, ref.E2E, ref.TTFT)
			}
		}
	}
	t.Logf("%d knobs, %d unchanged", n, same)
	if n < 7 || same > n { // at most about half the changes may leave the run as it was
		t.Errorf("%d monotone cluster knobs, %d of %d changes left the run as it was", n, same, 2*n)
	}
}
