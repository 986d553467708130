package reproduce

import (
	"math"
	"testing"

	"github.com/dashlab/dashlab/dash/serve"
)

func TestEnduranceFromServing(t *testing.T) {
	fixed, err := defaultEndurance()
	if err != nil {
		t.Fatal(err)
	}
	st := &serve.StudyResult{Mode: serve.Mixed,
		Saturation: []serve.Saturation{{System: "dash", Mode: serve.Mixed, RPS: 0.4}},
		Points: []serve.Point{
			{System: "dash", Load: 0.5, Summary: serve.Summary{OfferedRPS: 0.15}},
			{System: "dash", Load: 0.5, Summary: serve.Summary{OfferedRPS: 0.17}},
			{System: "dash", Load: 0.9, Summary: serve.Summary{OfferedRPS: 0.30}},
			{System: "relay-only", Load: 0.9, Summary: serve.Summary{OfferedRPS: 0.30}},
		}}
	res, err := enduranceFromServing(st, "dash", fixed, []float64{3000, 100000})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Loads) != 2 || math.Abs(res.Utilizations[0]-0.4) > 1e-12 || math.Abs(res.Utilizations[1]-0.75) > 1e-12 {
		t.Fatalf("loads %v, u %v", res.Loads, res.Utilizations)
	}
	if !(res.Years[1][0] < res.Years[0][0] && res.Years[0][1] > res.Years[0][0]) {
		t.Errorf("years %v: not shorter at higher load and longer with more cycles", res.Years)
	}
	st.Points = append(st.Points, serve.Point{System: "dash", Load: 1.2, Summary: serve.Summary{OfferedRPS: 0.5}})
	if _, err := enduranceFromServing(st, "dash", fixed, []float64{3000}); err == nil {
		t.Error("a load above saturation was accepted")
	}
}
