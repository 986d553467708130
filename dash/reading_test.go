package dash_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
)

// Run the same experiment under the three readings of the HBF read
// latency: the paper reading (t_R a pure readiness latency), the physical
// reading (the stated part, one page wave per t_R) and the serial reading
// (t_R paid before each transfer chunk, on its route's first link).
func ExampleExperimentBuilder_Reading() {
	base := reference.Experiment("qwen3-235b-a22b", "dash")
	for _, r := range dash.Readings() {
		exp, err := base.Reading(r).Build()
		if err != nil {
			fmt.Println(err)
			return
		}
		h := exp.System().HBF
		array := "unbounded"
		if h.ArrayBounded() {
			array = h.ArrayReadBandwidth().String()
		}
		fmt.Printf("%s: read_waves_in_flight %v, array %s per stack, a route %v\n", h.Reading(), h.ReadWavesInFlight, array,
			h.ChunkReadRate(4*unit.MiB, exp.System().Link.Usable))
	}
	// Output:
	// paper: read_waves_in_flight unbounded, array unbounded per stack, a route 1.6 TB/s
	// physical: read_waves_in_flight 1, array 2.7962 TB/s per stack, a route 1.6 TB/s
	// serial: read_waves_in_flight unbounded, array unbounded per stack, a route 746.1263 GB/s
}

func TestReadWavesInFlight(t *testing.T) {
	h := reference.MustSystem("dash").HBF
	if h.Reading() != dash.ReadingPhysical || !h.ArrayBounded() {
		t.Errorf("paper part: reading %v", h.Reading())
	}
	one := float64(h.ArrayReadBandwidth())
	for _, d := range []dash.WaveDepth{2, 3, 8} {
		h.ReadWavesInFlight = d
		if got := float64(h.ArrayReadBandwidth()); math.Abs(got-float64(d)*one) > 1e-6*got || h.Reading() != dash.ReadingCustom {
			t.Errorf("depth %d: %v, reading %v", d, got, h.Reading())
		}
	}
	h.ReadWavesInFlight = dash.ReadWavesUnbounded
	if !math.IsInf(float64(h.ArrayReadBandwidth()), 1) || h.ArrayBounded() || h.Reading() != dash.ReadingPaper {
		t.Errorf("unbounded: %v", h.ArrayReadBandwidth())
	}
	for _, d := range []dash.WaveDepth{0, -2, 1025} {
		h.ReadWavesInFlight = d
		if err := h.Validate(); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("hbf.read_waves_in_flight = %d: outside the plausible range 1 .. 1024 or unbounded", d)) {
			t.Errorf("depth %d: %v", d, err)
		}
	}
	// The builder's knob and the YAML override.
	if _, err := reference.Experiment("mixtral-8x22b", "dash").ReadWaves(-2).Build(); err == nil {
		t.Error("ReadWaves(-2) built")
	}
	if _, err := reference.Experiment("mixtral-8x22b", "dash").Reading(dash.ReadingCustom).Build(); err == nil {
		t.Error("Reading(ReadingCustom) built")
	}
	exp, err := reference.DecodeExperiment(strings.NewReader("model: mixtral-8x22b\nworkload: {batch: 1, prompt: 64, output: 2}\noverrides:\n  hbf: {read_waves_in_flight: 4}\n"), "x.yaml", ".")
	if err != nil {
		t.Fatalf("YAML override: %v", err)
	}
	if exp.System().HBF.ReadWavesInFlight != 4 {
		t.Errorf("YAML override: depth %d", exp.System().HBF.ReadWavesInFlight)
	}
	if got := exp.System().HBF.ArrayReadBandwidth(); math.Abs(float64(got)-4*one) > 1e-6*one {
		t.Errorf("YAML depth 4: %v", got)
	}
}

func TestParseReading(t *testing.T) {
	for _, r := range dash.Readings() {
		got, err := dash.ParseReading(r.String())
		if err != nil || got != r {
			t.Errorf("%v: %v %v", r, got, err)
		}
		if w, ok := r.ReadWaves(); !ok || (r == dash.ReadingPhysical) != (w == 1) || (r != dash.ReadingPhysical) != (w == dash.ReadWavesUnbounded) {
			t.Errorf("%v: depth %d", r, w)
		}
	}
	if _, err := dash.ParseReading("faster"); err == nil {
		t.Error("parsed faster")
	}
}
