package cluster_test

import (
	"context"
	"testing"

	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/reference"
)

func trace(t testing.TB, rate float64, n int) []serve.Request {
	t.Helper()
	r, err := serve.Poisson(rate, n, serve.Fixed(1024), serve.Fixed(24), 1)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

var sched = serve.Scheduler{MaxBatch: 16, TokenBudget: 2048, Chunk: 512, Mode: serve.Mixed}

// Serving on one GPU of a cluster is package serve's single-GPU serving.
func TestServingOnOneGPUIsServe(t *testing.T) {
	reqs := trace(t, 1, 40)
	want, err := serve.Simulate(context.Background(), serve.Config{Scheduler: sched, Warmup: 8,
		Experiment: reference.Experiment("qwen3-30b-a3b", "dash").GPU("h200-sxm").Batch(1).Prompt(sched.TokenBudget).Output(1).MustBuild()}, reqs, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := build(t, cluster.NewExperiment().Catalogue(reference.Catalogue).Cluster(node(t, "hgx-h200")).Memory("dash").ModelID("qwen3-30b-a3b"))
	got, err := cluster.Serve(context.Background(), cluster.ServeConfig{Experiment: e, Scheduler: sched, Warmup: 8}, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Measured) != len(want.Measured) {
		t.Fatalf("%d measured, serve %d", len(got.Measured), len(want.Measured))
	}
	for i := range got.Measured {
		if got.Measured[i] != want.Measured[i] {
			t.Fatalf("request %d: %+v, serve %+v", i, got.Measured[i], want.Measured[i])
		}
	}
}

// Two instances behind a round-robin router at twice the rate serve like
// one at the rate; every request completes once.
func TestDataParallelInstances(t *testing.T) {
	e := build(t, cluster.NewExperiment().Catalogue(reference.Catalogue).Cluster(node(t, "hgx-h200")).Memory("dash").
		ModelID("qwen3-30b-a3b").Parallel(cluster.ParallelSpec{Tensor: 1, Expert: 1, Pipeline: 1, Data: 2}))
	reqs := trace(t, 4, 60)
	got, err := cluster.Serve(context.Background(), cluster.ServeConfig{Experiment: e, Scheduler: sched}, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Measured) != 60 || got.GPUs != 2 || len(got.Instances) != 2 {
		t.Errorf("%d measured on %d GPUs, %d instances", len(got.Measured), got.GPUs, len(got.Instances))
	}
	for i, m := range got.Measured {
		if m.ID != i || m.Arrival != reqs[i].Arrival {
			t.Fatalf("request %d: %+v", i, m)
		}
	}
}

// Disaggregation: prefill on one pool, decode on another, the KV moved
// over the NICs; every request's first token comes from the prefill pool
// and its tokens from the decode pool.
func TestDisaggregatedServing(t *testing.T) {
	p := build(t, cluster.NewExperiment().Catalogue(reference.Catalogue).Cluster(node(t, "hgx-h200")).Memory("relay-only").
		ModelID("qwen3-30b-a3b"))
	d := build(t, cluster.NewExperiment().Catalogue(reference.Catalogue).Cluster(node(t, "hgx-h200")).Memory("dash").
		ModelID("qwen3-30b-a3b"))
	reqs := trace(t, 1, 30)
	got, err := cluster.ServeDisaggregated(context.Background(), cluster.DisaggConfig{
		Prefill: cluster.ServeConfig{Experiment: p, Scheduler: sched}, Decode: cluster.ServeConfig{Experiment: d, Scheduler: sched}}, reqs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Measured) != 30 || got.GPUs != 2 || got.TransferMean <= 0 || got.KVBytes <= 0 {
		t.Fatalf("%d measured on %d GPUs, transfer %v, %v", len(got.Measured), got.GPUs, got.TransferMean, got.KVBytes)
	}
	for _, m := range got.Measured {
		if m.TTFT <= 0 || m.E2E <= m.TTFT+got.TransferMean/2 || m.TPOT <= 0 {
			t.Errorf("request %d: %+v", m.ID, m)
		}
	}
}
