package charts

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/dashlab/dashlab/summary"
)

// EnergyFigure draws the memory system's energy per generated token (beyond
// the paper): the total per system for every workload, and the mean of
// each term (links, HBF sensing, HBF programming, HBM array) per system
// over the workloads every system ran.
func EnergyFigure(points []summary.EnergyPoint) (Figure, error) {
	if len(points) == 0 {
		return Figure{}, errors.New("charts: EnergyFigure: no priced runs")
	}
	var systems, cats []string
	type key struct {
		cat, system string
	}
	byKey := map[key]summary.EnergyPoint{}
	for _, p := range points {
		if !slices.Contains(systems, p.System) {
			systems = append(systems, p.System)
		}
		c := fmt.Sprintf("%s\nB=%d", ShortModelName(p.Model), p.Batch)
		if !slices.Contains(cats, c) {
			cats = append(cats, c)
		}
		byKey[key{c, p.System}] = p
	}
	var series []Series
	var absent []BarNote
	for i, s := range systems {
		vals := make([]float64, len(cats))
		for j, c := range cats {
			p, ok := byKey[key{c, s}]
			switch {
			case !ok || p.Err != nil:
				vals[j] = math.NaN()
				absent = append(absent, BarNote{Series: SystemName(s), Category: c, Text: "does not fit"})
			default:
				vals[j] = 1e3 * p.Breakdown.PerToken()
			}
		}
		series = append(series, Series{Name: SystemName(s), Values: vals, Color: systemColor(s, i)})
	}
	totals, err := GroupedBar(BarSpec{
		Common: Common{ID: "energy_totals", Title: "Memory-system energy per generated token", Subtitle: "Fig. 9(a) workloads (1K/128)", Height: "500px"},
		XName:  "Model and batch", YName: "Energy (mJ/token)", Categories: cats, Series: series, LogY: true, Absent: absent, LabelRotate: 45,
	})
	if err != nil {
		return Figure{}, err
	}
	// Mean of each term over the workloads that every system ran.
	terms := []string{"Links", "HBF sensing", "HBF programming", "HBM array"}
	sums := make([][]float64, len(terms))
	for i := range sums {
		sums[i] = make([]float64, len(systems))
	}
	n := 0
	for _, c := range cats {
		all := true
		for _, s := range systems {
			if p, ok := byKey[key{c, s}]; !ok || p.Err != nil {
				all = false
			}
		}
		if !all {
			continue
		}
		n++
		for j, s := range systems {
			b := byKey[key{c, s}].Breakdown
			tok := float64(b.Tokens)
			for i, v := range []float64{b.Link, b.HBFRead, b.HBFProgram, b.HBM} {
				sums[i][j] += 1e3 * v / tok
			}
		}
	}
	if n == 0 {
		return Figure{}, errors.New("charts: EnergyFigure: no workload ran on every system")
	}
	var names []string
	for _, s := range systems {
		names = append(names, SystemName(s))
	}
	var termSeries []Series
	for i, t := range terms {
		vals := make([]float64, len(systems))
		for j := range systems {
			vals[j] = sums[i][j] / float64(n)
		}
		termSeries = append(termSeries, Series{Name: t, Values: vals})
	}
	breakdown, err := GroupedBar(BarSpec{
		Common: Common{ID: "energy_terms", Title: "Energy per token by term", Subtitle: fmt.Sprintf("mean over the %d workloads every system ran", n), Height: "420px"},
		XName:  "System", YName: "Energy (mJ/token)", Categories: names, Series: termSeries,
	})
	if err != nil {
		return Figure{}, err
	}
	p := points[0].Params
	return Figure{ID: "energy", Title: "Energy per generated token (beyond the paper)",
		Caption: fmt.Sprintf("Priced from the engine's per-route byte counters and NAND page-wave counts: link %.2f pJ/bit per crossing (Relay crosses two links), "+
			"HBM array %.2f pJ/bit, HBF sensing %.2f and programming %.1f pJ/bit.", float64(p.Link)/1e-12, float64(p.HBM)/1e-12, float64(p.HBFRead)/1e-12, float64(p.HBFProgram)/1e-12),
		Charts: []Chart{totals, breakdown},
		Notes: []string{"Defaults: link 0.5 pJ/bit, UCIe 3.0's UCIe-A target (paper §IV-A); HBM 3.9 pJ/bit, HBM2 access energy (O'Connor et al., MICRO 2017); " +
			"HBF sensing and programming 3.3 V x 25 mA (a datasheet-class NAND active current) over t_R and t_PROG per page bit: no HBF energy figures are public. " +
			"GPU compute, SRAM buffers and base-die logic are not counted."},
	}, nil
}
