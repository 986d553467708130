package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/dashlab/dashlab/dash/unit"

	"github.com/dashlab/dashlab/dash/sim"
)

// FixedKind is the fixed-batch point kind: one [sim.Run] per point.
const FixedKind = "fixed"

// FixedMetrics are the metric columns of fixed-batch points.
var FixedMetrics = []string{"ttft_ms", "tpot_ms", "e2e_ms", "throughput_tok_per_s", "decode_throughput_tok_per_s"}

// FixedRun is the fixed-batch kind's own spec section, run: (swept as
// run.decode_sample, ...): the simulator's run options.
type FixedRun struct {
	// DecodeSample, above 1, samples long decodes (sim.Options.DecodeSample:
	// one paged-KV block in N simulated, the rest interpolated; 16 suits
	// 1M-token decodes). 0 simulates every step.
	DecodeSample int `yaml:"decode_sample"`
	// MaxEvents is a point's event budget (0: the simulator's default).
	MaxEvents int64 `yaml:"max_events"`
	// MaxWall is a point's wall-clock budget (0: the simulator's default).
	MaxWall unit.Duration `yaml:"max_wall"`
}

type fixedKind struct{}

func init() {
	if err := RegisterKind(fixedKind{}); err != nil {
		panic(err)
	}
}

func (fixedKind) Name() string                                    { return FixedKind }
func (fixedKind) Section() (string, reflect.Type)                 { return "run", reflect.TypeFor[FixedRun]() }
func (fixedKind) Metrics() []string                               { return FixedMetrics }
func (fixedKind) Run(_ context.Context, p Point) (Outcome, error) { return runFixed(p) }

// Validate checks the run section.
func (fixedKind) Validate(p Point) error {
	r := p.Params.(*FixedRun)
	var errs []error
	if r.DecodeSample < 0 {
		errs = append(errs, fmt.Errorf("run.decode_sample = %d: must not be negative", r.DecodeSample))
	}
	if r.MaxEvents < 0 {
		errs = append(errs, fmt.Errorf("run.max_events = %d: must not be negative", r.MaxEvents))
	}
	if r.MaxWall < 0 {
		errs = append(errs, fmt.Errorf("run.max_wall = %v: must not be negative", r.MaxWall))
	}
	return errors.Join(errs...)
}

// Cost is a point's estimated run time: per layer, a fixed part, the
// prompt, and the decode, which grows about linearly with L_out (a little
// faster for very long decodes, whose attention reads grow) and shrinks
// about with the square root of the decode sampling. Calibrated against
// measured runs to within a factor of about three, which is what dealing
// shards needs.
func (fixedKind) Cost(p Point) float64 {
	w := p.File.Workload
	decode := float64(w.Output) / math.Sqrt(float64(max(1, p.Params.(*FixedRun).DecodeSample)))
	decode *= 1 + float64(w.Output)/(1<<18)
	return float64(max(1, p.Model.NumLayers)) * (256 + float64(w.Prompt)/8 + decode)
}

func runFixed(p Point) (Outcome, error) {
	exp, err := p.Builder().Build()
	if err != nil {
		return Outcome{}, err
	}
	run := p.Params.(*FixedRun)
	r, err := sim.RunWith(exp, sim.Options{DecodeSample: run.DecodeSample, MaxEvents: run.MaxEvents,
		MaxWall: time.Duration(run.MaxWall)})
	if err != nil {
		return Outcome{}, err
	}
	return Outcome{Metrics: []float64{
		r.TTFT.Milliseconds(), r.TPOT.Milliseconds(), r.E2E.Milliseconds(), r.Throughput, r.DecodeThroughput,
	}, Result: r}, nil
}
