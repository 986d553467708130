package charts

import (
	"errors"
	"fmt"
	"html/template"
	"math"

	"github.com/dashlab/dashlab/summary"
)

// EnduranceFigure draws the HBF lifetime (§VI-H) against the program/erase
// budget at each load, with the measured inputs in a table.
func EnduranceFigure(res *summary.EnduranceResult) (Figure, error) {
	if res == nil || len(res.Years) != len(res.Loads) || len(res.Loads) == 0 {
		return Figure{}, errors.New("charts: EnduranceFigure: no endurance results")
	}
	var series []XYSeries
	for i, u := range res.Loads {
		if len(res.Years[i]) != len(res.PECycles) {
			return Figure{}, fmt.Errorf("charts: EnduranceFigure: load %g has %d lifetimes for %d P/E budgets", u, len(res.Years[i]), len(res.PECycles))
		}
		var pts []Point
		for j, e := range res.PECycles {
			if math.IsInf(res.Years[i][j], 1) {
				continue // nothing written: no wear
			}
			pts = append(pts, Point{X: e, Y: res.Years[i][j]})
		}
		series = append(series, XYSeries{Name: fmt.Sprintf("load %g%%", 100*u), Points: pts})
	}
	chart, err := Lines(LineSpec{
		Common: Common{ID: "endurance", Title: "HBF lifetime against P/E cycles", Subtitle: "C_KV x E_SLC / (A_W x R_HBF x u)", Height: "420px"},
		XName:  "P/E cycles E_SLC", YName: "Lifetime (years)", Series: series, LogX: true, LogY: true,
		RefLines: []RefLine{{Name: "5 years", Y: 5, Color: "#888888"}},
	})
	if err != nil {
		return Figure{}, err
	}
	m := res.Measurement
	table := HTMLTable("Inputs", []string{"Term", "Value", "Source"}, [][]string{
		{"C_KV (KV-owned HBF capacity)", fmt.Sprintf("%.1f GB", m.KVCapacity.GB()), "KV-owned superblocks of the engine's flash model (HBF less the weight-owned superblocks)"},
		{"R_HBF (KV write rate at full load)", fmt.Sprintf("%.3f GB/s", m.WriteRate.GBps()), m.WriteRateSource},
		{"A_W (write amplification)", fmt.Sprintf("%g", m.WriteAmplification), m.WASource},
	})
	return Figure{ID: "endurance", Title: "HBF endurance (§VI-H)",
		Caption: "Lifetime = C_KV x E_SLC / (A_W x R_HBF x u): the KV-owned capacity times the P/E budget, over the write amplification, the full-load KV write rate and the utilisation.",
		Charts:  []Chart{chart}, Tables: []template.HTML{table},
	}, nil
}
