package clustersweep_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference/clusters/clustersweep"
	"github.com/dashlab/dashlab/reference/sweep"
)

// The shipped cluster sweep compiles: its base's cluster overrides and its
// axes reach every point as settings, in order, and a point runs the
// cluster experiment they describe.
func TestShippedClusterSweep(t *testing.T) {
	s, err := sweep.LoadSpec("../sweeps/layouts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Compile()
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() != 10 || p.Kind() != clustersweep.Kind {
		t.Fatalf("%d points of kind %s", p.Len(), p.Kind())
	}
	pt, err := p.Point(5)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range pt.Settings {
		got = append(got, st.String())
	}
	want := []string{"hbf.reading=paper", "routing.kind=zipf", "routing.zipf_s=1", "routing.seed=1",
		"parallel.tensor=8", "parallel.expert=8", "placement.policy=popularity"}
	if !slices.Equal(got, want) {
		t.Errorf("point 5's settings %v, want %v", got, want)
	}
	var row sweep.Row
	err = p.Run(context.Background(), sweep.RunOptions{Workers: 1, Done: func(key string) bool { return key != pt.Key }}, func(r sweep.Row) error { row = r; return nil })
	if err != nil {
		t.Fatal(err)
	}
	r, ok := row.Result.(cluster.Result)
	if !ok || r.GPUs != 8 || r.Parallel.Expert != 8 || r.Parallel.Tensor != 8 || row.Metrics[0] != 8 || len(row.Metrics) != len(clustersweep.Metrics) {
		t.Errorf("point 5 ran %v on %d GPUs, metrics %v (%s)", r.Parallel, r.GPUs, row.Metrics, row.Error)
	}
}

// Sweeps of cluster experiments are built from Go too, and bad points are
// refused at compile with the axis and value named.
func TestClusterSweepFromGo(t *testing.T) {
	base := sweep.Base("qwen3-30b-a3b", "dash")
	base.Workload = dash.WorkloadSpec{Batch: 8, Prompt: 256, Output: 4}
	b := sweep.New(base).Kind(clustersweep.Kind).Section("cluster", clustersweep.Section{ID: "hgx-h200"}).
		Set("parallel.expert", 8).Set("hbf.t_read", 5*unit.Microsecond).
		Axis("overrides.interconnect.scale_up.rate", "225 GB/s", "450 GB/s", "900 GB/s")
	p, err := b.Compile()
	if err != nil {
		t.Fatal(err)
	}
	tab, err := sweep.Collect(context.Background(), p, 1)
	if err != nil {
		t.Fatal(err)
	}
	var prev float64
	for i, v := range []string{"225 GB/s", "450 GB/s", "900 GB/s"} {
		row, err := tab.Find("overrides.interconnect.scale_up.rate", v)
		if err != nil {
			t.Fatal(err)
		}
		tpot, err := tab.Metric(row, "tpot_ms")
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 && tpot > prev {
			t.Errorf("scale-up %s: TPOT %v ms, above %v at the slower rate", v, tpot, prev)
		}
		prev = tpot
	}
	_, err = b.Axis("overrides.parallel.expert", 8, 3).Compile()
	if err == nil || !strings.Contains(err.Error(), `overrides.parallel.expert value "3"`) {
		t.Errorf("EP 3: %v", err)
	}
	_, err = b.Axis("overrides.gpu.memory", "dash", "h200").Compile()
	if err == nil || !strings.Contains(err.Error(), "sweep the path system") {
		t.Errorf("gpu.memory: %v", err)
	}
}
