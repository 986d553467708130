package charts

import (
	"errors"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/summary"
)

// gainPieces color G(r, δ): red below the breakeven G = 1, greens above.
var gainPieces = []opts.Piece{
	{Lt: 1, Color: "#e06666"},
	{Gte: 1, Lt: 2, Color: "#fff2cc"},
	{Gte: 2, Lt: 4, Color: "#d9ead3"},
	{Gte: 4, Lt: 8, Color: "#93c47d"},
	{Gte: 8, Color: "#38761d"},
}

// CostFigure draws §VI-G from the harness's summary.CostResult: the capacity-per-cost
// gain G(r, δ) over a grid as a heat map with the breakeven line (G = 1), and, when it
// has the scaling, capacity and expert-delivery bandwidth against the number of HBM-HBF
// pairs with the links, beachfront and link power in a table; the rows are the
// harness's verdicts on the paper's cost numbers.
func CostFigure(c summary.CostResult) (Figure, error) {
	grid, breakeven, scaling := c.Grid, c.Breakeven, c.Scaling
	if len(grid) == 0 {
		return Figure{}, errors.New("charts: CostFigure: no cost points")
	}
	heat, err := costHeatMap(grid, breakeven)
	if err != nil {
		return Figure{}, err
	}
	fig := Figure{ID: "cost", Title: "Capacity per cost and interconnect scalability (§VI-G)",
		Caption: "G(r, δ) = (C_DASH / C_ref) x 4 / (2 + 2r + δ): nominal capacity per cost against an all-HBM reference with as many stacks, " +
			"with r the HBF/HBM per-stack cost ratio and δ the integration cost in HBM stacks. Red cells are below breakeven.",
		Charts: []Chart{heat}}
	fig.Rows = labelRows(c.Rows, []rowLabel{{"cost.gain.r1_d0", "G at r = 1, δ = 0"}, {"cost.breakeven_r.d0", "breakeven r at δ = 0"}})
	if len(scaling) > 0 {
		charts, table, err := pairScaling(scaling)
		if err != nil {
			return Figure{}, err
		}
		fig.Charts = append(fig.Charts, charts...)
		fig.Tables = append(fig.Tables, table)
		fig.Notes = append(fig.Notes, "Each pair adds 2 GPU-facing links and 1 pair-local link (3n logical links, O(n) growth); "+
			"the beachfront is the GPU die edge of the GPU-facing links' UCIe-A modules, and the link power assumes every logical link fully used in one direction at 0.5-0.6 pJ/bit.")
	}
	return fig, nil
}

func costHeatMap(grid, breakeven []dash.CostPoint) (Chart, error) {
	var rs, ds []float64
	for _, p := range grid {
		if !finite(p.Gain) || !finite(p.R) || !finite(p.Delta) {
			return nil, fmt.Errorf("charts: cost point %+v", p)
		}
		if !slices.Contains(rs, p.R) {
			rs = append(rs, p.R)
		}
		if !slices.Contains(ds, p.Delta) {
			ds = append(ds, p.Delta)
		}
	}
	slices.Sort(rs)
	slices.Sort(ds)
	label := func(x float64) string { return strconv.FormatFloat(x, 'g', 4, 64) }
	var xcats, ycats []string
	for _, r := range rs {
		xcats = append(xcats, label(r))
	}
	for _, d := range ds {
		ycats = append(ycats, label(d))
	}
	var data []opts.HeatMapData
	for _, p := range grid {
		data = append(data, opts.HeatMapData{Value: [3]interface{}{slices.Index(rs, p.R), slices.Index(ds, p.Delta), math.Round(p.Gain*100) / 100}})
	}
	h := ec.NewHeatMap()
	c := Common{ID: "cost_gain", Title: "G(r, δ): capacity per cost vs an all-HBM reference", Subtitle: "cells: G; line: breakeven G = 1", Height: "480px"}
	h.SetGlobalOptions(commonGlobal(c, "item")...)
	h.SetGlobalOptions(
		ec.WithXAxisOpts(opts.XAxis{Type: "category", Name: "r = HBF / HBM per-stack cost", NameLocation: "middle", NameGap: 30, Data: xcats}),
		ec.WithYAxisOpts(opts.YAxis{Type: "category", Name: "δ (HBM stacks)", Data: ycats}),
		ec.WithVisualMapOpts(opts.VisualMap{Type: "piecewise", Pieces: gainPieces, Orient: "horizontal", Left: "center", Top: "35"}),
	)
	setGrid(&h.RectChart, func(g *opts.Grid) { g.Top = "95" })
	h.AddSeries("G", data, ec.WithLabelOpts(opts.Label{Show: opts.Bool(true), Color: "#202124"}))
	// The breakeven line at fractional category positions: r interpolated
	// between the neighbouring columns (a log-spaced grid reads better in
	// log r).
	var line []opts.LineData
	for _, p := range breakeven {
		yi := slices.Index(ds, p.Delta)
		if yi < 0 || !finite(p.R) || p.R < rs[0] || p.R > rs[len(rs)-1] {
			continue
		}
		line = append(line, opts.LineData{Value: []float64{fractionalIndex(rs, p.R), float64(yi)}})
	}
	if len(line) > 0 {
		l := ec.NewLine()
		l.AddSeries("Breakeven G = 1", line,
			ec.WithLineChartOpts(opts.LineChart{Symbol: "circle", SymbolSize: 6, ShowSymbol: opts.Bool(true)}),
			ec.WithLineStyleOpts(opts.LineStyle{Color: PaperColor, Width: 2.5, Type: "dashed"}),
			ec.WithItemStyleOpts(opts.ItemStyle{Color: PaperColor}))
		h.Overlap(l)
	}
	return h, nil
}

// fractionalIndex places x among sorted xs: i + t between xs[i] and
// xs[i+1], interpolated in log x when both are positive.
func fractionalIndex(xs []float64, x float64) float64 {
	for i := 0; i+1 < len(xs); i++ {
		a, b := xs[i], xs[i+1]
		if x >= a && x <= b {
			if a > 0 {
				return float64(i) + math.Log(x/a)/math.Log(b/a)
			}
			return float64(i) + (x-a)/(b-a)
		}
	}
	return float64(len(xs) - 1)
}

func pairScaling(rows []dash.PairScaling) ([]Chart, template.HTML, error) {
	var capD, capR, bw []Point
	var table [][]string
	for _, p := range rows {
		n := float64(p.Pairs)
		capD = append(capD, Point{X: n, Y: p.Capacity.GB()})
		capR = append(capR, Point{X: n, Y: p.ReferenceCapacity.GB()})
		bw = append(bw, Point{X: n, Y: p.ExpertBandwidth.TBps()})
		table = append(table, []string{strconv.Itoa(p.Pairs), strconv.Itoa(p.GPUFacingLinks), strconv.Itoa(p.PairLocalLinks), strconv.Itoa(p.LogicalLinks),
			fmt.Sprintf("%.0f", p.Capacity.GB()), fmt.Sprintf("%.1f", p.ExpertBandwidth.TBps()), fmt.Sprintf("%.2f", p.BeachfrontMM),
			fmt.Sprintf("%.1f-%.1f", float64(p.LinkPowerLow), float64(p.LinkPowerHigh))})
	}
	capacity, err := Lines(LineSpec{
		Common: Common{ID: "cost_capacity", Title: "Capacity against HBM-HBF pairs", Subtitle: "n pairs vs the 2n-HBM reference", Height: "380px"},
		XName:  "HBM-HBF pairs n", YName: "Capacity (GB)",
		Series: []XYSeries{{Name: "DASH (n HBM + n HBF)", Points: capD}, {Name: "Reference (2n HBM)", Points: capR}},
	})
	if err != nil {
		return nil, "", err
	}
	bandwidth, err := Lines(LineSpec{
		Common: Common{ID: "cost_bandwidth", Title: "Expert-delivery bandwidth against pairs", Subtitle: "direct + relay routes at the usable link rate", Height: "380px"},
		XName:  "HBM-HBF pairs n", YName: "Bandwidth (TB/s)",
		Series: []XYSeries{{Name: "Expert delivery", Points: bw}},
	})
	if err != nil {
		return nil, "", err
	}
	return []Chart{capacity, bandwidth}, HTMLTable("Links, beachfront and link power by pair count",
		[]string{"n", "GPU-facing links", "pair-local links", "logical links", "capacity (GB)", "expert bandwidth (TB/s)", "beachfront (mm)", "link power (W)"}, table), nil
}
