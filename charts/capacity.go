package charts

import (
	"cmp"
	"errors"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/summary"
)

// Fig1 draws the paper's Fig. 1(a) capacity survey from the harness's catalogue summary:
// each surveyed model's checkpoint weights in GB, derived from its tensor inventory,
// against the paper's GPU's HBM (the H100's 80 GB) and the paper's published range, and
// the routed experts' share of its parameters against the paper's. Table II's weights
// are overlaid where the paper gives them; the rows are the harness's verdicts.
func Fig1(c summary.Catalogue) (Figure, error) {
	var names []string
	var gb, share, paperGB []float64
	var ids []string
	for _, id := range c.Fig1 {
		m, ok := c.Model(id)
		if !ok {
			continue
		}
		ids = append(ids, id)
		names = append(names, mediumName(m.Spec))
		gb = append(gb, m.Footprint.Bytes.GB())
		share = append(share, m.Footprint.ExpertSharePct)
		paperGB = append(paperGB, paperOf(c.Rows, "table2.weights_gb."+id))
	}
	if len(ids) == 0 {
		return Figure{}, errors.New("charts: Fig1: none of the Fig. 1 models is in the list")
	}
	wall := c.GPUMemory
	lo, hi := paperOf(c.Rows, "fig1.weights_gb.min"), paperOf(c.Rows, "fig1.weights_gb.max")
	slo, shi := paperOf(c.Rows, "fig1.expert_share_pct.min"), paperOf(c.Rows, "fig1.expert_share_pct.max")
	weights, err := GroupedBar(BarSpec{
		Common: Common{ID: "fig1_weights", Title: "Fig. 1(a): MoE checkpoint weights",
			Subtitle: "simulated: derived from each model's tensor inventory; ticks: the paper's Table II", Height: "440px"},
		XName: "Model", YName: "Weights (GB)", Categories: wrapLabels(names),
		Series:   []Series{{Name: "Weights (inventory)", Values: gb}},
		Paper:    []Series{{Name: "Weights (inventory)", Values: paperGB}},
		RefLines: []RefLine{{Name: fmt.Sprintf("NVIDIA H100 HBM: %v", wall), Y: wall.GB(), Color: "#d93025", Solid: true}},
		Bands:    []Band{{Name: fmt.Sprintf("Paper's range: %s GB to %s GB", fmtG(lo), fmtG(hi)), Lo: lo, Hi: hi}},
	})
	if err != nil {
		return Figure{}, err
	}
	shareChart, err := GroupedBar(BarSpec{
		Common: Common{ID: "fig1_share", Title: "Fig. 1(a): routed experts' share of the parameters",
			Subtitle: "routed-expert parameters / main-model parameters (axis starts at 90 %)", Height: "400px"},
		XName: "Model", YName: "Expert share (%)", Categories: wrapLabels(names),
		Series: []Series{{Name: "Expert share (inventory)", Values: share, Color: Palette[1]}},
		YMin:   90, YMax: 100,
		Bands: []Band{{Name: fmt.Sprintf("Paper's range: %s to %s %%", fmtG(slo), fmtG(shi)), Lo: slo, Hi: shi}},
	})
	if err != nil {
		return Figure{}, err
	}
	minMax := func(v []float64) (int, int) {
		a, b := 0, 0
		for i := range v {
			if v[i] < v[a] {
				a = i
			}
			if v[i] > v[b] {
				b = i
			}
		}
		return a, b
	}
	wa, wb := minMax(gb)
	sa, sb := minMax(share)
	rows := labelRows(c.Rows, []rowLabel{
		{"fig1.weights_gb.min", "smallest checkpoint (" + names[wa] + ")"},
		{"fig1.weights_gb.max", "largest checkpoint (" + names[wb] + ")"},
		{"fig1.expert_share_pct.min", "lowest expert share (" + names[sa] + ")"},
		{"fig1.expert_share_pct.max", "highest expert share (" + names[sb] + ")"},
	})
	over := 0
	for _, g := range gb {
		if g > wall.GB() {
			over++
		}
	}
	return Figure{
		ID:    "fig1",
		Title: "Fig. 1(a): the capacity wall",
		Caption: fmt.Sprintf("%d of the %d surveyed models in the catalogue need more than the H100's %v for their weights alone; "+
			"the routed experts are %.1f-%.1f %% of their parameters.", over, len(gb), wall, share[sa], share[sb]),
		Charts: []Chart{weights, shareChart},
		Rows:   rows,
		Notes: []string{"The paper's survey also includes DeepSeek-V4-Pro, which is not in the catalogue (its architecture could not be verified); " +
			"the range above is over the catalogue's Fig. 1 models: " + strings.Join(names, ", ") + "."},
	}, nil
}

var mediumNames = map[string]string{
	"qwen3-235b-a22b": "Qwen3-235B", "llama4-maverick": "Llama 4 Maverick", "kimi-k2": "Kimi-K2",
}

// mediumName is a model's name for a chart axis: the catalogue name, shortened where it is long.
func mediumName(m dash.ModelSpec) string {
	if s, ok := mediumNames[m.ID]; ok {
		return s
	}
	return m.Name
}

// wrapLabels breaks category names longer than 12 characters at their first space or dash
// past the sixth character, so that category axis labels do not overlap.
func wrapLabels(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = n
		if len(n) <= 12 {
			continue
		}
		if j := strings.IndexAny(n[6:], " -"); j >= 0 {
			j += 6
			if n[j] == ' ' {
				out[i] = n[:j] + "\n" + n[j+1:]
			} else {
				out[i] = n[:j+1] + "\n" + n[j+1:]
			}
		}
	}
	return out
}

// PrecisionLabel is Table II's "Weight Precision" for a checkpoint layout.
func PrecisionLabel(layout dash.Layout) string {
	switch layout {
	case dash.LayoutBF16:
		return "BF16"
	case dash.LayoutINT8Mixed:
		return "INT8-mixed"
	case dash.LayoutFP8Mixed:
		return "FP8-mixed"
	}
	return string(layout)
}

// Table2 renders the paper's Table II from the harness's catalogue summary: for each of
// its six models the attention kind, the weights the paper gives and the weights derived
// from the tensor inventory (with deviation and the harness's verdict), routed+shared
// experts / top-k and the checkpoint precision.
func Table2(c summary.Catalogue) (Figure, error) {
	if len(c.Table2) == 0 {
		return Figure{}, errors.New("charts: Table2: no Table II models")
	}
	header := []string{"Model", "Attn.", "Weights, paper (GB)", "Weights, simulated (GB)", "Deviation", "Verdict",
		"Experts / Top-k", "Weight precision", "Layers (MoE + dense)", "Main sweeps (Fig. 9)"}
	var rows [][]string
	for _, id := range c.Table2 {
		m, ok := c.Model(id)
		if !ok {
			return Figure{}, fmt.Errorf("charts: Table2: model %s missing from the list", id)
		}
		s, f := m.Spec, m.Footprint
		gb := f.Bytes.GB()
		r, ok := summary.RowByID(c.Rows, "table2.weights_gb."+id)
		if !ok {
			return Figure{}, fmt.Errorf("charts: Table2: no row for model %s", id)
		}
		fig9 := "yes"
		if !slices.Contains(c.Fig9, id) {
			fig9 = "no (lookahead study)"
		}
		rows = append(rows, []string{
			s.Name, strings.ToUpper(s.Attention.Kind),
			strconv.FormatFloat(r.Paper, 'f', 2, 64), strconv.FormatFloat(gb, 'f', 2, 64),
			fmt.Sprintf("%+.3f GB", gb-r.Paper), string(r.Status()),
			fmt.Sprintf("%d+%d / %d", s.FFN.RoutedExperts, s.FFN.SharedExperts, s.FFN.TopK),
			PrecisionLabel(s.Checkpoint.Layout),
			fmt.Sprintf("%d + %d", f.MoELayers, f.DenseLayers), fig9,
		})
	}
	return Figure{
		ID:      "table2",
		Title:   "Table II: evaluated MoE models",
		Caption: "Weights are the whole checkpoint (MTP layers and quantisation scales included), summed over the tensor inventory each model's architecture implies; the verdict is the harness's, with reference/paper.yaml's tolerance.",
		Tables:  []template.HTML{HTMLTable("", header, rows)},
	}, nil
}

// Inventory draws one model's tensor inventory: checkpoint bytes per tensor class (a
// log-scale bar chart and a table with parameters and shares), the tensors of its first
// MoE decoder layer and the model-level tensors. Derived from the spec by
// dash.ModelSpec.Inventory.
func Inventory(m dash.ModelSpec) (Figure, error) {
	inv, err := m.Inventory()
	if err != nil {
		return Figure{}, err
	}
	f := inv.Footprint(m)
	type agg struct {
		entries, count int
		params         int64
		bytes          float64
	}
	byClass := map[dash.TensorClass]*agg{}
	var classes []dash.TensorClass
	firstMoE := -1
	for _, t := range inv.Tensors {
		c := t.Class
		if t.MTP {
			c = dash.ClassMTPGlue // MTP layers are one line: stored, never executed
		}
		a := byClass[c]
		if a == nil {
			a = &agg{}
			byClass[c] = a
			classes = append(classes, c)
		}
		a.entries++
		a.count += t.Count
		if !t.Scale {
			a.params += t.Elements()
		}
		a.bytes += float64(t.Bytes())
		if firstMoE < 0 && t.Class == dash.ClassRoutedExpert && !t.MTP {
			firstMoE = t.Layer
		}
	}
	slices.Sort(classes)
	var names []string
	var gbs []float64
	var rows [][]string
	total := float64(f.Bytes)
	for _, c := range classes {
		a := byClass[c]
		name := c.String()
		if c == dash.ClassMTPGlue {
			name = "mtp (all MTP-layer tensors)"
		}
		names = append(names, name)
		gbs = append(gbs, a.bytes/1e9)
		rows = append(rows, []string{name, strconv.Itoa(a.entries), strconv.Itoa(a.count),
			fmt.Sprintf("%.4g", float64(a.params)/1e9), fmt.Sprintf("%.4g", a.bytes/1e9), fmt.Sprintf("%.3g%%", 100*a.bytes/total)})
	}
	rows = append(rows, []string{"total", strconv.Itoa(len(inv.Tensors)), "", fmt.Sprintf("%.4g", float64(f.Params+f.MTPParams)/1e9),
		fmt.Sprintf("%.4g", total/1e9), "100%"})
	bar, err := inventoryBar(Common{ID: "inventory_" + SanitizeID(m.ID), Title: m.Name + ": checkpoint bytes by tensor class",
		Subtitle: fmt.Sprintf("%.2f GB in all; each bar labelled with its size and share", total/1e9), Height: fmt.Sprintf("%dpx", 150+34*len(names))},
		names, gbs, total/1e9)
	if err != nil {
		return Figure{}, err
	}
	tensorRows := func(layer int) [][]string {
		var out [][]string
		for _, t := range inv.Tensors {
			if t.Layer != layer || t.MTP {
				continue
			}
			shape := make([]string, len(t.Shape))
			for i, d := range t.Shape {
				shape[i] = strconv.FormatInt(d, 10)
			}
			kind := t.Class.String()
			if t.Scale {
				kind += " (scale)"
			}
			out = append(out, []string{t.Name, kind, strconv.Itoa(t.Count), "[" + strings.Join(shape, ", ") + "]", t.DType.String(),
				fmt.Sprintf("%.4g", float64(t.Bytes())/1e6)})
		}
		return out
	}
	th := []string{"Tensor", "Class", "Count", "Shape (one tensor)", "DType", "Bytes (MB, all Count)"}
	tables := []template.HTML{HTMLTable("Bytes by tensor class", []string{"Class", "Entries", "Tensors", "Parameters (B)", "Bytes (GB)", "Share of bytes"}, rows)}
	if firstMoE >= 0 {
		tables = append(tables, HTMLTable(fmt.Sprintf("Layer %d (the first MoE layer): every tensor", firstMoE), th, tensorRows(firstMoE)))
	}
	tables = append(tables, HTMLTable("Model-level tensors", th, tensorRows(-1)))
	return Figure{
		ID:    "inventory_" + m.ID,
		Title: m.Name + ": tensor inventory",
		Caption: fmt.Sprintf("%d inventory entries (one per tensor kind per layer; Count carries the expert multiplicity), %d layers (%d MoE, %d dense), "+
			"%s checkpoint. One routed expert of one layer is %.4g MB; the routed experts are %.1f %% of the parameters.",
			len(inv.Tensors), m.NumLayers, f.MoELayers, f.DenseLayers, PrecisionLabel(m.Checkpoint.Layout),
			float64(f.BytesPerExpert)/1e6, f.ExpertSharePct),
		Charts: []Chart{bar},
		Tables: tables,
	}, nil
}

// inventoryBar draws bytes per tensor class as horizontal bars on a linear axis from
// zero, the largest on top, each labelled with its size and share: on a log axis bars
// grow from 1 GB, so a class of kilobytes looked the largest.
func inventoryBar(c Common, names []string, gbs []float64, totalGB float64) (*ec.Bar, error) {
	order := make([]int, len(names))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(gbs[a], gbs[b]) }) // ECharts draws the first category at the bottom
	cats := make([]string, len(order))
	data := make([]opts.BarData, len(order))
	for k, i := range order {
		if !finite(gbs[i]) || gbs[i] < 0 {
			return nil, fmt.Errorf("charts: inventory class %q: %v GB", names[i], gbs[i])
		}
		cats[k] = names[i]
		share := fmt.Sprintf("%.3g %%", 100*gbs[i]/totalGB)
		if 100*gbs[i]/totalGB < 0.01 {
			share = "< 0.01 %"
		}
		data[k] = opts.BarData{Value: gbs[i], Label: &opts.Label{Show: opts.Bool(true), Position: "right", Color: "#333",
			Formatter: decimalBytes(gbs[i]*1e9) + " (" + share + ")"}}
	}
	bar := ec.NewBar()
	bar.SetGlobalOptions(commonGlobal(c, "item")...)
	bar.SetGlobalOptions(
		ec.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		ec.WithXAxisOpts(opts.XAxis{Type: "value", Name: "Bytes (GB)", NameLocation: "middle", NameGap: 28}),
		ec.WithYAxisOpts(opts.YAxis{Type: "category", Data: cats}),
	)
	setGrid(&bar.RectChart, func(g *opts.Grid) { g.Right, g.Bottom = "150", "50" })
	bar.AddSeries("Bytes", data, ec.WithItemStyleOpts(opts.ItemStyle{Color: Palette[0]}))
	return bar, nil
}

// decimalBytes writes a byte count with three significant digits in decimal units
// ("72.5 GB", "786 MB", "6.14 kB"), one style for every bar of a chart.
func decimalBytes(b float64) string {
	for _, u := range []struct {
		size float64
		name string
	}{{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}} {
		if b >= u.size {
			return strconv.FormatFloat(roundSig(b/u.size, 3), 'f', -1, 64) + " " + u.name
		}
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + " B"
}
