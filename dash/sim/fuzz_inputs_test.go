package sim

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/gpu"
	"github.com/dashlab/dashlab/reference"
)

// fuzzRun runs an experiment under the engine fuzzers' budget (200,000
// events, 2 s) and checks the result: it ends in a result or a budget,
// time-range or capacity error, and a result is sane (positive, ordered,
// finite times; conservation per route).
func fuzzRun(t *testing.T, exp dash.Experiment) {
	t.Helper()
	r, err := RunWith(exp, Options{MaxEvents: 200_000, MaxWall: 2 * time.Second})
	if err != nil {
		var be *BudgetError
		var te *TimeRangeError
		var ce *dash.CapacityError
		if !errors.As(err, &be) && !errors.As(err, &te) && !errors.As(err, &ce) {
			t.Fatalf("%s: unexpected error %v", exp.Name(), err)
		}
		return
	}
	if r.TTFT <= 0 || r.E2E < r.TTFT || r.TPOT < 0 || r.E2E > MaxTime || !(r.Throughput > 0) || math.IsInf(r.Throughput, 0) {
		t.Fatalf("%s: insane result: TTFT %v, TPOT %v, E2E %v, throughput %v", exp.Name(), r.TTFT, r.TPOT, r.E2E, r.Throughput)
	}
	for _, rt := range r.Routes {
		if rt.Requested != rt.Delivered {
			t.Fatalf("%s: route %s requested %v, delivered %v", exp.Name(), rt.Route, rt.Requested, rt.Delivered)
		}
	}
}

// FuzzModelFile decodes arbitrary model files, validates them and runs
// every model that passes on DASH (B = 1, 64/4 tokens) under the fuzzers'
// budget: every input ends in an error or a sane result, never a panic or
// a hang. Seeds: every shipped model and issue 26's hostile fields.
func FuzzModelFile(f *testing.F) {
	files, _ := filepath.Glob("../../reference/models/*.yaml")
	files = append(files, "../../notebooks/data/my-moe.yaml")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	my, _ := os.ReadFile("../../notebooks/data/my-moe.yaml")
	for _, r := range [][2]string{{"eps: 1.0e-6", "eps: .nan"}, {"scaling_factor: 1.0", "scaling_factor: .inf"},
		{"id: my-moe", "id: " + strings.Repeat("x", 3000)}, {"num_layers: 40", "num_layers: 2000000000"}, {"hidden_size: 3072", "hidden_size: 1e9"}} {
		f.Add(strings.Replace(string(my), r[0], r[1], 1))
	}
	f.Fuzz(func(t *testing.T, s string) {
		var m dash.ModelSpec
		if err := dash.DecodeStrictBytes([]byte(s), "fuzz.yaml", &m); err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			if len(err.Error()) > 8<<10 {
				t.Fatalf("an error of %d bytes", len(err.Error()))
			}
			return
		}
		exp, err := reference.Experiment("", "dash").Model(m).Batch(1).Prompt(64).Output(4).Build()
		if err != nil {
			return // does not fit, or a model the builder refuses: named
		}
		fuzzRun(t, exp)
	})
}

// FuzzProfile replaces the shipped H200 profile's gemm.csv by arbitrary
// text, builds the timing model of every profile that loads and runs
// Qwen3-30B-A3B (B = 2, 64/4 tokens) on DASH with it under the fuzzers'
// budget: every input ends in an error or a sane result, and every
// prediction is a positive latency (or marked out of range). Seeds: the
// shipped gemm.csv and issue 26's hostile rows.
func FuzzProfile(f *testing.F) {
	dir := "../../reference/profiles/h200-sxm/"
	shipped := fstest.MapFS{}
	for _, name := range []string{gpu.FileGEMM, gpu.FileGrouped, gpu.FileAttn, gpu.FileMisc, gpu.FileEnv} {
		data, err := os.ReadFile(dir + name)
		if err != nil {
			f.Fatal(err)
		}
		shipped[name] = &fstest.MapFile{Data: data}
	}
	gemm := string(shipped[gpu.FileGEMM].Data)
	f.Add(gemm)
	const h = "model,op,M,K,N,median_us,p10_us,p90_us,reps\n"
	for _, s := range []string{h + "m,o,1,1000000000000,1,24,23,25,30\n", h + "m,o,1,4096,1,1e-300,1e-300,1e-300,30\n",
		h + "\"m,o,1,4096,1,24,23,25,30\n", "\ufeff" + h + "m,o,1,4096,4096,24,23,25,30\nm,o,16,4096,4096,30,29,31,30\n",
		h + "m,o,1,4096,4096,24,23,25,30\nm,o,1,4096,4096,48,47,49,30\n"} {
		f.Add(s)
	}
	model := reference.MustModel("qwen3-30b-a3b")
	target := reference.MustGPU("h200-sxm")
	f.Fuzz(func(t *testing.T, s string) {
		fsys := fstest.MapFS{}
		for k, v := range shipped {
			fsys[k] = v
		}
		fsys[gpu.FileGEMM] = &fstest.MapFile{Data: []byte(s)}
		p, err := gpu.LoadProfile(fs.FS(fsys))
		if err != nil {
			return
		}
		p.Catalogue, _ = reference.GPUs()
		m, err := gpu.NewModel(p, target)
		if err != nil {
			return
		}
		for _, op := range []gpu.Op{{Kind: gpu.GEMM, M: 1, K: 4096, N: 4096}, {Kind: gpu.GEMM, M: 1 << 24, K: 1 << 24, N: 1 << 24},
			{Kind: gpu.Grouped, Experts: 8, Rows: 2, Hidden: 2048, Inter: 768}, {Kind: gpu.AttnDecode, Batch: 2, QLen: 1, KVLen: 68, Heads: 32, KVHeads: 4, HeadDim: 128}} {
			pr := m.Predict(op)
			if pr.Latency < 1 || pr.Latency > gpu.MaxPredictedLatency || pr.Compute < 0 || pr.Overhead < 0 {
				t.Fatalf("%+v: %+v", op, pr)
			}
		}
		exp, err := dash.NewExperiment().Model(model).System(reference.MustSystem("dash")).Timing(m).Batch(2).Prompt(64).Output(4).Build()
		if err != nil {
			return
		}
		fuzzRun(t, exp)
	})
}
