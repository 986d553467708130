package cluster_test

import (
	"context"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/reference"
)

func benchExperiment(b *testing.B, nodes int, p cluster.ParallelSpec, batch int) cluster.Experiment {
	b.Helper()
	s := node(b, "hgx-h200").WithNodes(nodes)
	return build(b, cluster.NewExperiment().Catalogue(reference.Catalogue).Cluster(s).Memory("dash").ModelID("qwen3-235b-a22b").
		Parallel(p).Batch(batch).Prompt(1024).Output(128).
		PerGPU(func(g dash.ExperimentBuilder) dash.ExperimentBuilder { return g.Reading(dash.ReadingPaper) }))
}

// BenchmarkFixedBatch1GPU is one DASH GPU's fixed batch (Qwen3-235B,
// B = 32, 1K/128).
func BenchmarkFixedBatch1GPU(b *testing.B) {
	e := benchExperiment(b, 1, cluster.ParallelSpec{Tensor: 1, Expert: 1, Pipeline: 1, Data: 1}, 32)
	for b.Loop() {
		run(b, e)
	}
}

// BenchmarkFixedBatch8GPU is the same batch per GPU on eight DASH GPUs of
// one node with expert parallelism (B = 256: 32 per attention group).
func BenchmarkFixedBatch8GPU(b *testing.B) {
	e := benchExperiment(b, 1, cluster.ParallelSpec{Tensor: 1, Expert: 8, Pipeline: 1, Data: 1}, 256)
	for b.Loop() {
		run(b, e)
	}
}

// BenchmarkServe64GPU serves 1,024 measured requests (and 128 warm-up) of
// the paper's workload (4K/128) on one 64-GPU expert-parallel instance
// (eight HGX H200 nodes of DASH GPUs, attention data-parallel over the 64
// GPUs), with exact passes.
func BenchmarkServe64GPU(b *testing.B) {
	e := benchExperiment(b, 8, cluster.ParallelSpec{Tensor: 1, Expert: 64, Pipeline: 1, Data: 1}, 64)
	reqs, err := serve.Poisson(60, 1152, serve.Fixed(4096), serve.Fixed(128), 1)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := cluster.Serve(context.Background(), cluster.ServeConfig{Experiment: e, Scheduler: serve.PaperScheduler(), Warmup: 128, Measure: 1024}, reqs)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(s.Summary.TPOTms.P90, "p90_tpot_ms")
		b.ReportMetric(s.TokensPerS, "tok/s")
		b.ReportMetric(float64(s.Stats.Passes), "passes")
		b.ReportMetric(float64(s.Stats.Simulated), "collectives_simulated")
	}
}

// BenchmarkServe64GPUData is 64 GPUs as eight EP8 instances behind the
// router, 1,152 requests.
func BenchmarkServe64GPUData(b *testing.B) {
	e := benchExperiment(b, 8, cluster.ParallelSpec{Tensor: 1, Expert: 8, Pipeline: 1, Data: 8}, 8)
	reqs, err := serve.Poisson(60, 1152, serve.Fixed(4096), serve.Fixed(128), 1)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s, err := cluster.Serve(context.Background(), cluster.ServeConfig{Experiment: e, Scheduler: serve.PaperScheduler(), Warmup: 128, Measure: 1024}, reqs)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(s.Summary.TPOTms.P90, "p90_tpot_ms")
		b.ReportMetric(s.TokensPerS, "tok/s")
	}
}
