package sweep

import (
	"context"
	"math"
	"reflect"

	"github.com/dashlab/dashlab/dash/sim"
)

// FixedKind is the fixed-batch point kind: one [sim.Run] per point.
const FixedKind = "fixed"

// FixedMetrics are the metric columns of fixed-batch points.
var FixedMetrics = []string{"ttft_ms", "tpot_ms", "e2e_ms", "throughput_tok_per_s", "decode_throughput_tok_per_s"}

type fixedKind struct{}

func init() {
	if err := RegisterKind(fixedKind{}); err != nil {
		panic(err)
	}
}

func (fixedKind) Name() string                                    { return FixedKind }
func (fixedKind) Section() (string, reflect.Type)                 { return "", nil }
func (fixedKind) Metrics() []string                               { return FixedMetrics }
func (fixedKind) Validate(Point) error                            { return nil }
func (fixedKind) Run(_ context.Context, p Point) (Outcome, error) { return runFixed(p) }

// Cost grows with the layers and, sub-linearly (the engine's exact
// shortcuts make long runs cheap per step), with the lengths and the batch.
func (fixedKind) Cost(p Point) float64 {
	w := p.File.Workload
	return float64(max(1, p.Model.NumLayers)) * (1 + math.Log2(1+float64(w.Output))) *
		(1 + math.Log2(1+float64(w.Prompt)/1024)) * (1 + math.Log2(float64(max(1, w.Batch))))
}

func runFixed(p Point) (Outcome, error) {
	exp, err := p.Builder().Build()
	if err != nil {
		return Outcome{}, err
	}
	r, err := sim.Run(exp)
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Metrics: []float64{
		r.TTFT.Milliseconds(), r.TPOT.Milliseconds(), r.E2E.Milliseconds(), r.Throughput, r.DecodeThroughput,
	}, Result: r}, nil
}
