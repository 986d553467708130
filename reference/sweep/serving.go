package sweep

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/serve"
)

// ServingKind is the continuous-batching serving point kind: each point
// serves a Poisson stream of requests with dash/serve's iteration-level
// scheduler on the point's model and memory system, and reports latency
// percentiles and rates over the measured window. Its section is serving:
// (swept as serving.load, serving.max_batch, serving.prompt.min, ...).
const ServingKind = "serving"

// ServingMetrics are the metric columns of serving points.
var ServingMetrics = []string{"offered_req_per_s", "throughput_req_per_s", "ttft_mean_s", "ttft_p99_s",
	"tpot_mean_ms", "tpot_p99_ms", "e2e_mean_s", "e2e_p99_s", "queue_mean_s", "rejected_requests"}

// Serving is the serving kind's section. Zero fields take the defaults
// given, which are the paper's Table III settings (§VI-E).
type Serving struct {
	// Load is the offered load: Poisson arrivals, in requests per second
	// (required; Table III's loads are fractions of a baseline's saturation
	// throughput, which `dashlab serve` measures). Range: serve.MinRate of
	// the requests (2 x requests / 1e9 s, so that every arrival falls
	// within serve.MaxArrivalSeconds) to serve.MaxRate (1e6).
	Load float64 `yaml:"load"`
	// Requests is the number of requests served per point (default:
	// warm-up + measured requests, or 1,152; warm-up + 2 to
	// serve.MaxRequests, and at most serve.MaxGeneratedTokens output tokens
	// in all).
	Requests int `yaml:"requests"`
	// Warmup requests are simulated but not measured (default 128); the next
	// Measure requests are measured (default 1,024).
	Warmup  int `yaml:"warmup"`
	Measure int `yaml:"measure"`
	// Seed seeds the arrivals and lengths (default 1).
	Seed uint64 `yaml:"seed"`
	// Prompt and Output are the requests' lengths in tokens: min alone is
	// fixed, min and max draw uniformly (defaults 4,096 and 128; prompt +
	// output within the model's max_context).
	Prompt ServingLength `yaml:"prompt"`
	Output ServingLength `yaml:"output"`
	// MaxBatch (B_max), TokenBudget and Chunk are the scheduler's limits
	// (defaults 32, 8,192 and 512); Mode is "mixed" (default) or "serial".
	MaxBatch    int    `yaml:"max_batch"`
	TokenBudget int    `yaml:"token_budget"`
	Chunk       int    `yaml:"chunk_tokens"`
	Mode        string `yaml:"mode"`
	// KVQuantum, when positive, rounds decode contexts to that many tokens
	// so more passes replay (an approximation; 0 is exact).
	KVQuantum int `yaml:"kv_quantum_tokens"`
}

// ServingLength is a request length in tokens: Min alone is fixed, Min and
// Max uniform.
type ServingLength struct {
	// Min is the length, or the lower bound with Max.
	Min int `yaml:"min"`
	// Max, when set, is the upper bound.
	Max int `yaml:"max"`
}

type servingKind struct{}

func init() {
	if err := RegisterKind(servingKind{}); err != nil {
		panic(err)
	}
}

func (servingKind) Name() string { return ServingKind }
func (servingKind) Section() (string, reflect.Type) {
	return "serving", reflect.TypeFor[Serving]()
}
func (servingKind) Metrics() []string { return ServingMetrics }

// config resolves the defaults into the serve package's types.
func (s Serving) config() (sched serve.Scheduler, prompt, output serve.Length, n int, err error) {
	sched = serve.PaperScheduler()
	if s.MaxBatch != 0 {
		sched.MaxBatch = s.MaxBatch
	}
	if s.TokenBudget != 0 {
		sched.TokenBudget = s.TokenBudget
	}
	if s.Chunk != 0 {
		sched.Chunk = s.Chunk
	}
	if s.Mode != "" {
		if sched.Mode, err = serve.ParseMode(s.Mode); err != nil {
			return sched, prompt, output, 0, fmt.Errorf("serving.mode: %w", err)
		}
	}
	length := func(l ServingLength, def int) serve.Length {
		if l.Min == 0 && l.Max == 0 {
			return serve.Fixed(def)
		}
		return serve.Length{Min: l.Min, Max: l.Max}
	}
	prompt, output = length(s.Prompt, 4096), length(s.Output, 128)
	n = s.Requests
	if n == 0 {
		n = s.warmup() + s.measure()
	}
	return sched, prompt, output, n, nil
}

func (s Serving) warmup() int {
	if s.Warmup == 0 {
		return 128
	}
	return s.Warmup
}

func (s Serving) measure() int {
	if s.Measure == 0 {
		return 1024
	}
	return s.Measure
}

// Workload sizes the HBM activation workspace for the largest pass the
// scheduler builds (one budget-token prompt), as dashlab serve does; the
// base's routing is kept.
func (servingKind) Workload(p Point) dash.WorkloadSpec {
	sched, _, _, _, _ := p.Params.(*Serving).config()
	return dash.WorkloadSpec{Batch: 1, Prompt: max(1, sched.TokenBudget), Output: 1, Routing: p.File.Workload.Routing}
}

func (servingKind) Validate(p Point) error {
	s := *p.Params.(*Serving)
	var errs []error
	sched, prompt, output, n, err := s.config()
	if err != nil {
		return err
	}
	if lo := serve.MinRate(n); !(s.Load >= lo) || !(s.Load <= serve.MaxRate) {
		errs = append(errs, fmt.Errorf("serving.load = %v requests/s: must be from %.3g (%d requests within %g s) to %g", s.Load, lo, max(n, 1), serve.MaxArrivalSeconds, serve.MaxRate))
	}
	if n < s.warmup()+2 || n > serve.MaxRequests {
		errs = append(errs, fmt.Errorf("serving.requests = %d: must be from warmup + 2 = %d (the offered rate needs two measured arrivals) to %d", n, s.warmup()+2, serve.MaxRequests))
	}
	if mc := p.Model.MaxContext; mc > 0 && max(prompt.Min, prompt.Max)+max(output.Min, output.Max) > mc {
		errs = append(errs, fmt.Errorf("serving: prompt %v + output %v: up to %d tokens, beyond model %s's max_context %d",
			prompt, output, max(prompt.Min, prompt.Max)+max(output.Min, output.Max), p.Model.ID, mc))
	}
	if g := float64(n) * float64(max(output.Min, output.Max)); n > 0 && g > serve.MaxGeneratedTokens {
		errs = append(errs, fmt.Errorf("serving: %d requests of up to %v output tokens: up to %.4g tokens, more than the %d a run may generate", n, output, g, serve.MaxGeneratedTokens))
	}
	if s.Warmup < 0 || s.Measure < 0 || s.KVQuantum < 0 {
		errs = append(errs, fmt.Errorf("serving.warmup/measure/kv_quantum_tokens = %d/%d/%d: must not be negative", s.Warmup, s.Measure, s.KVQuantum))
	}
	if err := sched.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("serving: %w", err))
	} else if sched.TokenBudget >= dash.MaxTokens {
		errs = append(errs, fmt.Errorf("serving.token_budget = %d: must be below %d (the HBM workspace is sized for one pass of that many prompt tokens and an output token)", sched.TokenBudget, dash.MaxTokens))
	}
	// lengths are checked by drawing one request
	if _, err := serve.Poisson(1, 1, prompt, output, 1); err != nil && s.Load > 0 {
		errs = append(errs, fmt.Errorf("serving: %w", err))
	}
	return errors.Join(errs...)
}

// Cost grows with the requests' tokens and the model's layers.
func (servingKind) Cost(p Point) float64 {
	s := *p.Params.(*Serving)
	_, prompt, output, n, _ := s.config()
	mean := func(l serve.Length) float64 { return float64(l.Min+max(l.Min, l.Max)) / 2 }
	return float64(max(1, p.Model.NumLayers)) * float64(n) * (mean(prompt)/8 + mean(output))
}

func (servingKind) Run(ctx context.Context, p Point) (Outcome, error) {
	s := *p.Params.(*Serving)
	sched, prompt, output, n, err := s.config()
	if err != nil {
		return Outcome{}, err
	}
	exp, err := p.Builder().Build()
	if err != nil {
		return Outcome{}, err
	}
	reqs, err := serve.Poisson(s.Load, n, prompt, output, max(1, s.Seed))
	if err != nil {
		return Outcome{}, err
	}
	cfg := serve.Config{Experiment: exp, Scheduler: sched, Warmup: s.warmup(), Measure: s.measure(),
		Approx: serve.Approx{KVQuantum: s.KVQuantum}}
	run, err := serve.Simulate(ctx, cfg, reqs, nil)
	if err != nil {
		return Outcome{}, err
	}
	if run.Interrupted {
		return Outcome{}, context.Cause(ctx)
	}
	if run.WindowRequests < 2 || run.WindowEnd <= run.WindowStart {
		return Outcome{}, fmt.Errorf("serving: the %d measured requests all arrive at %v: the offered rate is undefined (lower serving.load or measure more requests)", run.WindowRequests, run.WindowStart)
	}
	sum := run.Summarize()
	return Outcome{Metrics: []float64{sum.OfferedRPS, sum.ThroughputRPS, sum.TTFTs.Mean, sum.TTFTs.P99,
		sum.TPOTms.Mean, sum.TPOTms.P99, sum.E2Es.Mean, sum.E2Es.P99, sum.Queues.Mean, float64(len(run.Rejections))},
		Result: run}, nil
}
