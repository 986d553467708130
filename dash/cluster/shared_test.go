package cluster_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/reference"
)

// The runs of a capacity search share their stage passes (the backlogged
// run and every load of the bisection): every run's result is the one it
// has alone, in data- and expert-parallel layouts, and the shared memo
// holds the passes.
func TestSharedPassesChangeNoResult(t *testing.T) {
	b := cluster.NewExperiment().Catalogue(reference.Catalogue).Cluster(node(t, "hgx-h200")).Memory("dash").ModelID("qwen3-30b-a3b")
	for _, p := range []cluster.ParallelSpec{
		{Tensor: 1, Expert: 1, Pipeline: 1, Data: 2},
		{Tensor: 1, Expert: 2, Pipeline: 2, Data: 1},
	} {
		e := build(t, b.Parallel(p))
		shared := cluster.SharingPasses(cluster.ServeConfig{Experiment: e, Scheduler: sched, Warmup: 4})
		back, err := serve.Backlogged(24, serve.Fixed(1024), serve.Fixed(24), 1)
		if err != nil {
			t.Fatal(err)
		}
		for i, reqs := range [][]serve.Request{back, trace(t, 2, 24), trace(t, 4, 24), back} {
			alone, err := cluster.Serve(context.Background(), cluster.ServeConfig{Experiment: e, Scheduler: sched, Warmup: 4}, reqs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := cluster.Serve(context.Background(), shared, reqs)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Measured) == 0 {
				t.Fatalf("%v, run %d: nothing measured", p, i)
			}
			a, _ := json.Marshal(alone)
			g, _ := json.Marshal(got)
			if string(a) != string(g) {
				t.Fatalf("%v, run %d: sharing passes changed the result:\n%s\nalone:\n%s", p, i, g, a)
			}
		}
		if n := cluster.SharedPasses(shared); n == 0 {
			t.Errorf("%v: the shared memos hold no pass", p)
		}
	}
}
