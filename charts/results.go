package charts

import (
	"errors"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

// ResultTable tabulates simulations side by side: latency (TTFT, TPOT, E2E),
// throughput (whole run and decode phase) and, relative to the first result, the decode
// speedup and E2E reduction. Model and workload columns appear only when they differ
// between the results (otherwise the caption says them).
func ResultTable(caption string, results []NamedResult) template.HTML {
	if len(results) == 0 {
		return HTMLTable(caption, nil, nil)
	}
	caption = WhatIfTitle(caption, namedWhatIf(results))
	same := true
	f := results[0].Result
	for _, nr := range results {
		r := nr.Result
		if r.Model != f.Model || r.Batch != f.Batch || r.Prompt != f.Prompt || r.Output != f.Output {
			same = false
		}
	}
	header := []string{"Configuration", "System"}
	if !same {
		header = append(header, "Model", "B", "L_in/L_out")
	}
	header = append(header, "TTFT (ms)", "TPOT (ms)", "E2E (s)", "Throughput, whole run (tok/s)", "Decode throughput (tok/s)",
		"Decode throughput vs "+results[0].Name, "E2E reduction vs "+results[0].Name)
	var rows [][]string
	for i, nr := range results {
		r := nr.Result
		vs, red := ratioText(1), pctText(0) // the first result is the reference
		if i > 0 {
			vs, red = "—", "—"
			if f.DecodeThroughput > 0 {
				vs = ratioText(r.DecodeThroughput / f.DecodeThroughput)
			}
			if f.E2E > 0 {
				red = pctText(100 * (1 - r.E2E.Seconds()/f.E2E.Seconds()))
			}
		}
		row := []string{nr.Name, r.System}
		if !same {
			row = append(row, r.Model, fmt.Sprint(r.Batch), fmt.Sprintf("%d/%d", r.Prompt, r.Output))
		}
		rows = append(rows, append(row,
			fmt.Sprintf("%.4g", r.TTFT.Milliseconds()), fmt.Sprintf("%.4g", r.TPOT.Milliseconds()), fmt.Sprintf("%.4g", r.E2E.Seconds()),
			fmt.Sprintf("%.4g", r.Throughput), fmt.Sprintf("%.4g", r.DecodeThroughput), vs, red))
	}
	if same && caption == "" {
		caption = fmt.Sprintf("%s, B = %d, %d/%d tokens", f.Model, f.Batch, f.Prompt, f.Output)
	}
	return HTMLTable(caption, header, rows) + resultTableNote
}

// ratioText writes a ratio in ResultTable: three decimals and a times sign, the
// reference row's one alike (it was written as a bare "1").
func ratioText(x float64) string { return fmt.Sprintf("%.3f×", x) }

// pctText writes a percentage in ResultTable: two decimals, and a value that rounds to
// zero as zero, without a minus sign. Three significant digits wrote a difference of a
// few parts in a hundred thousand with five decimals, a precision the column has nowhere
// else.
func pctText(x float64) string {
	s := fmt.Sprintf("%.2f %%", x)
	if s == "-0.00 %" {
		s = "0.00 %"
	}
	return s
}

// resultTableNote says what the two throughput columns of ResultTable count.
const resultTableNote = template.HTML(`<p style="font-size:12px;color:#5f6368;margin:2px 0 12px">` +
	`Throughput, whole run: B × L_out / E2E (every output token over the whole run, prefill included). ` +
	`Decode throughput: B × (L_out − 1) / (E2E − TTFT), the decode phase alone: the rate the paper's Fig. 9 compares.</p>`)

// PhaseBreakdown draws where the GPU's time goes in one phase ("prefill" or "decode")
// for each result: per operator class, grouped bars of the time split into compute,
// fixed overhead and stall (time waiting for data beyond compute), in ms; one stacked
// column per result and class. The table under it gives the numbers.
func PhaseBreakdown(id, phase string, results []NamedResult) (Figure, error) {
	if len(results) == 0 {
		return Figure{}, errors.New("charts: PhaseBreakdown: no results")
	}
	pick := func(r sim.Result) (sim.Phase, error) {
		switch phase {
		case "prefill":
			return r.Prefill, nil
		case "decode":
			return r.Decode, nil
		}
		return sim.Phase{}, fmt.Errorf("charts: PhaseBreakdown: phase %q (want prefill or decode)", phase)
	}
	var classes []sim.OpClass
	for _, nr := range results {
		ph, err := pick(nr.Result)
		if err != nil {
			return Figure{}, err
		}
		for _, c := range ph.Classes {
			if c.Ops > 0 && !slices.Contains(classes, c.Class) {
				classes = append(classes, c.Class)
			}
		}
	}
	// Stacked bars: one stack per result, segments compute / overhead / stall.
	bar := ec.NewBar()
	c := Common{ID: SanitizeID(id), Title: fmt.Sprintf("GPU time per operator class, %s phase", phase),
		Subtitle: WhatIfSubtitle("each column: compute + fixed overhead + stall (waiting for data beyond compute)", namedWhatIf(results)), Width: "960px", Height: "480px"}
	bar.SetGlobalOptions(commonGlobal(c, "item")...)
	names := make([]string, len(classes))
	for i, cl := range classes {
		names[i] = cl.String()
	}
	cats := wrapLabels(names)
	bar.SetGlobalOptions(
		ec.WithXAxisOpts(optsXCategory("Operator class")),
		ec.WithYAxisOpts(optsYValue(fmt.Sprintf("Time in the %s phase (ms)", phase))),
	)
	bar.SetXAxis(cats)
	bar.Accept(styleVisitor{})
	var rows [][]string
	// compute dark, overhead light, stall (usually the largest part) in the full color.
	for i, nr := range results {
		ph, _ := pick(nr.Result)
		base := seriesColor(i, nr.Name, "")
		parts := [3][]float64{}
		for _, cl := range classes {
			var ct sim.ClassTime
			for _, x := range ph.Classes {
				if x.Class == cl {
					ct = x
				}
			}
			parts[0] = append(parts[0], ct.Compute.Milliseconds())
			parts[1] = append(parts[1], ct.Overhead.Milliseconds())
			parts[2] = append(parts[2], ct.Stall.Milliseconds())
			if ct.Ops > 0 {
				rows = append(rows, []string{nr.Name, cl.String(), fmt.Sprint(ct.Ops), fmt.Sprintf("%.4g", ct.Time.Milliseconds()),
					fmt.Sprintf("%.4g", ct.Compute.Milliseconds()), fmt.Sprintf("%.4g", ct.Overhead.Milliseconds()), fmt.Sprintf("%.4g", ct.Stall.Milliseconds())})
			}
		}
		for k, name := range []string{"compute", "overhead", "stall"} {
			color := []string{darker(base), tint(base, 0.4), base}[k]
			bar.AddSeries(nr.Name+": "+name, barData(parts[k]),
				ec.WithBarChartOpts(optsStack(nr.Name)),
				ec.WithItemStyleOpts(optsItem(color)))
		}
	}
	fitLegend(&bar.RectChart, c)
	return Figure{
		ID: id, Title: fmt.Sprintf("The %s phase by operator class", phase),
		Charts: []Chart{bar},
		Tables: []template.HTML{HTMLTable("", []string{"Configuration", "Class", "Ops", "Time (ms)", "Compute (ms)", "Overhead (ms)", "Stall (ms)"}, rows)},
	}, nil
}

// tint mixes a #rrggbb color with white: f = 1 keeps it, f = 0 gives white.
func tint(c string, f float64) string {
	var r, g, b int
	if _, err := fmt.Sscanf(c, "#%02x%02x%02x", &r, &g, &b); err != nil {
		return c
	}
	mix := func(v int) int { return int(math.Round(float64(v)*f + 255*(1-f))) }
	return fmt.Sprintf("#%02x%02x%02x", mix(r), mix(g), mix(b))
}

// RouteTable tabulates each result's traffic, one column per result: bytes per route,
// and bytes and mean utilization (busy time over E2E) per link direction, over all pairs.
func RouteTable(caption string, results []NamedResult) template.HTML {
	var keys []string
	cells := map[string]map[int]string{}
	put := func(k string, i int, v string) {
		if cells[k] == nil {
			cells[k] = map[int]string{}
			keys = append(keys, k)
		}
		cells[k][i] = v
	}
	for i, nr := range results {
		for _, rt := range nr.Result.Routes {
			put("route "+rt.Route.String(), i, rt.Delivered.String())
		}
	}
	for i, nr := range results {
		type agg struct {
			bytes unit.Bytes
			util  float64
			n     int
		}
		links := map[string]*agg{}
		var order []string
		for _, l := range nr.Result.Links {
			a := links[l.Link]
			if a == nil {
				a = &agg{}
				links[l.Link] = a
				order = append(order, l.Link)
			}
			a.bytes += l.Bytes
			a.util += l.Utilization
			a.n++
		}
		for _, name := range order {
			a := links[name]
			put("link "+name, i, fmt.Sprintf("%v (%.0f %%)", a.bytes, 100*a.util/float64(a.n)))
		}
	}
	header := []string{"Route, or link (mean utilization)"}
	for _, nr := range results {
		header = append(header, nr.Name)
	}
	var rows [][]string
	for _, k := range keys {
		row := []string{k}
		for i := range results {
			v, ok := cells[k][i]
			if !ok {
				v = "—"
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return HTMLTable(caption, header, rows)
}

// Refusal is an experiment the planner refused, with its reason ("does not fit ...").
type Refusal struct {
	Model, System, Reason string
}

// PlanTable tabulates the placement plans of experiments (§V-A; dash.Experiment.Plan):
// per stack what HBM and HBF hold, which weight classes are replicated in HBM, the KV
// placement and the planner's notes; refused experiments follow, with the planner's
// reason.
func PlanTable(caption string, exps []dash.Experiment, refused []Refusal) template.HTML {
	gb := func(b unit.Bytes) string { return fmt.Sprintf("%.3g", b.GB()) }
	var rows [][]string
	for _, e := range exps {
		p, s := e.Plan(), e.System()
		var repl []string
		for _, c := range p.Replicated {
			repl = append(repl, c.String())
		}
		rows = append(rows, []string{
			e.Model().Name, s.ID,
			gb(p.HBM.Weights), gb(p.HBM.KV), gb(p.HBM.Workspace), gb(p.HBM.Free()),
			gb(p.HBF.Weights), gb(p.HBF.KV), gb(p.HBF.Free()),
			strings.Join(repl, ", "),
			gb(p.KV.Prefill), gb(p.KV.DecodeInHBM), gb(p.KV.Spill),
			strings.Join(p.Notes, "; "),
		})
	}
	out := HTMLTable(caption, []string{"Model", "System",
		"HBM/stack: weights (GB)", "KV", "workspace", "free",
		"HBF/stack: weights (GB)", "KV", "free", "Replicated in HBM",
		"KV prefill, in HBF (GB)", "decode, in HBM", "spilled to HBF", "Notes"}, rows)
	if len(refused) > 0 {
		var rr [][]string
		for _, r := range refused {
			rr = append(rr, []string{r.Model, r.System, r.Reason})
		}
		out += HTMLTable("Refused by the planner", []string{"Model", "System", "Why"}, rr)
	}
	return out
}

func optsXCategory(name string) opts.XAxis {
	return opts.XAxis{Type: "category", Name: name, NameLocation: "middle", NameGap: 32, AxisLabel: &opts.AxisLabel{Interval: "0"}}
}

func optsYValue(name string) opts.YAxis {
	return opts.YAxis{Type: "value", Name: name, NameLocation: "end", NameGap: 14}
}

func optsStack(stack string) opts.BarChart {
	return opts.BarChart{Stack: stack, BarGap: barGap, BarCategoryGap: barCategoryGap}
}

func optsItem(color string) opts.ItemStyle { return opts.ItemStyle{Color: color} }

func barData(vs []float64) []opts.BarData {
	out := make([]opts.BarData, len(vs))
	for i, v := range vs {
		if finite(v) {
			out[i] = opts.BarData{Value: v}
		} else {
			out[i] = opts.BarData{Value: "-"}
		}
	}
	return out
}
