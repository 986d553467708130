package charts

import (
	"errors"
	"fmt"
	"html/template"
	"slices"
	"strconv"

	"github.com/dashlab/dashlab/dash/gpu"
	"github.com/dashlab/dashlab/summary"
	"gonum.org/v1/gonum/stat"
)

// GPUTiming draws the GPU timing model's validation (§VI-A, the harness's
// summary.GPUValidation): the held-out predictions against the measurements per operator
// kind on log-log axes with y = x, the error statistics (package gpu's leave-one-out and
// held-out studies and the scatter's own), the paper's validation numbers against the
// leave-one-out GEMM errors (the harness's rows), and the timings of a GPU derived from
// the measured profile (the paper's H100 PCIe) — derived, not measured, and drawn as such
// (v.Derived nil leaves it out).
func GPUTiming(v summary.GPUValidation) (Figure, error) {
	p, checks, stats, h100 := v.Profile, v.Checks, v, v.Derived
	if p == nil || len(checks) == 0 {
		return Figure{}, errors.New("charts: GPUTiming needs a profile and held-out checks")
	}
	src := p.GPU()
	byKind := map[string][]gpu.HeldOutCheck{}
	var kinds []string
	for _, c := range checks {
		if byKind[c.Kind] == nil {
			kinds = append(kinds, c.Kind)
		}
		byKind[c.Kind] = append(byKind[c.Kind], c)
	}
	var groups []ScatterGroup
	var rows [][]string
	for _, k := range kinds {
		var pts []ScatterPoint
		for _, c := range byKind[k] {
			pts = append(pts, ScatterPoint{Label: c.Label, X: c.Measured.Microseconds(), Y: c.Predicted.Microseconds()})
		}
		s := gpu.SummariseChecks(k, byKind[k])
		groups = append(groups, ScatterGroup{Name: fmt.Sprintf("%s (%d)", k, len(pts)), Points: pts})
		rows = append(rows, []string{"this scatter: held out by " + byKind[k][0].HeldOut, k, fmt.Sprint(s.Count),
			fmt.Sprintf("%.2f%%", s.MedianPct), fmt.Sprintf("%.2f%%", s.P90Pct)})
	}
	all := gpu.SummariseChecks("all", checks)
	// Two studies, two numbers: the scatter's (whole shape families held out, every
	// kind: the harder test) and the checked one (GEMM leave-one-out, paper.yaml's
	// gpu.timing_model ids). The subtitle names both.
	checked := ""
	median, _ := summary.RowByID(v.Rows, "gpu.timing_model.median_err_pct")
	p90, _ := summary.RowByID(v.Rows, "gpu.timing_model.p90_err_pct")
	for _, s := range stats.LeaveOneOut {
		if s.Kind == "gemm" {
			checked = fmt.Sprintf("\nthe checked number is another study: GEMM leave-one-out, median %.2f %% (held to at most %s %%; the paper's %s %% is its own model on its own GPU)",
				s.MedianPct, bound(median), strconv.FormatFloat(median.Paper, 'g', -1, 64))
		}
	}
	scatter, err := Scatter(ScatterSpec{
		Common: Common{ID: "gpu_heldout", Title: "GPU timing model: held-out predictions vs measurements (" + src.Name + ")",
			Subtitle: fmt.Sprintf("%d operators, each predicted with its whole shape family held out: median error %.2f %%, p90 %.2f %% (all kinds)%s",
				all.Count, all.MedianPct, all.P90Pct, checked), Height: "580px"},
		XName: "Measured latency (µs, log)", YName: "Predicted latency, family held out (µs, log)",
		Groups: groups, Band: 0.1, LogX: true, LogY: true, RefName: "y = x (prediction = measurement)",
	})
	if err != nil {
		return Figure{}, err
	}
	for _, set := range []struct {
		name  string
		stats []gpu.ErrorStats
	}{
		{"leave-one-out (package gpu)", stats.LeaveOneOut},
		{"held-out families (package gpu)", stats.HeldOut},
		{"held-out models, GEMM (package gpu)", stats.HeldOutByModel},
		{"held-out sizes, between measured ones (package gpu)", stats.HeldOutSizes},
		{"repeated shapes, one measurement predicted by the other (the profile's noise)", stats.Repeats},
	} {
		for _, s := range set.stats {
			rows = append(rows, []string{set.name, s.Kind, fmt.Sprint(s.Count), fmt.Sprintf("%.2f%%", s.MedianPct), fmt.Sprintf("%.2f%%", s.P90Pct)})
		}
	}
	for _, s := range stats.SizeJitter {
		rows = append(rows, []string{fmt.Sprintf("size jitter, the floor of held-out sizes (neighbouring departures correlate %.2f; independent: -0.67)", s.Lag1),
			s.Kind, fmt.Sprint(s.Count), fmt.Sprintf("%.2f%%", s.MedianPct), fmt.Sprintf("%.2f%%", s.P90Pct)})
	}
	fig := Figure{
		ID:    "gpu_timing",
		Title: "GPU timing model",
		Caption: fmt.Sprintf("Operator latencies measured on the %s (%d points), interpolated within each shape family and extended by fitted rooflines. "+
			"The paper validates its own model on its own H100 PCIe measurements at a median relative error of %s %% and a 90th percentile of %s %%.",
			src.Name, len(p.Points), strconv.FormatFloat(median.Paper, 'g', -1, 64), strconv.FormatFloat(p90.Paper, 'g', -1, 64)),
		Charts: []Chart{scatter},
		Tables: []template.HTML{HTMLTable("Relative error of the predicted median latency, by study (the scatter above: held-out families; the checked rows: GEMM leave-one-out; the last rows: what the profile's own noise allows)", []string{"Study", "Kind", "Points", "Median", "90th percentile"}, rows)},
	}
	for _, id := range []string{"gpu.timing_model.median_err_pct", "gpu.timing_model.p90_err_pct"} {
		if row, ok := labelled(v.Rows, id, "GEMM leave-one-out error ("+src.ID+" profile), a bound: the paper's value is its own model on its own GPU"); ok {
			fig.Rows = append(fig.Rows, row)
		}
	}
	specs := []gpu.Spec{src}
	if h100 != nil {
		d := h100.GPU()
		var dgroups []ScatterGroup
		ratios := map[string][]float64{}
		for _, k := range kinds {
			var pts []ScatterPoint
			for _, pt := range p.Points {
				if pt.Op.Kind.String() != k {
					continue
				}
				y := h100.Predict(pt.Op).Latency.Microseconds()
				pts = append(pts, ScatterPoint{Label: pt.Description(), X: pt.Median.Microseconds(), Y: y})
				ratios[k] = append(ratios[k], y/pt.Median.Microseconds())
			}
			dgroups = append(dgroups, ScatterGroup{Name: k, Points: pts})
		}
		title := d.Name + " (derived, not measured) vs the measured " + src.Name
		if h100.Derived() {
			title = d.Name + ": DERIVED, NOT MEASURED — predicted vs the measured " + src.Name
		}
		derived, err := Scatter(ScatterSpec{
			Common: Common{ID: "gpu_derived", Title: title,
				Subtitle: "the same shapes; y = x would mean equally fast. Compute scales by SM count x clock, the memory floor by HBM bandwidth", Height: "520px"},
			XName: "Measured on " + src.Name + " (µs, log)", YName: "Derived " + d.Name + " (µs, log)",
			Groups: dgroups, LogX: true, LogY: true, RefName: "y = x (same as the " + src.ID + ")",
		})
		if err != nil {
			return Figure{}, err
		}
		fig.Charts = append(fig.Charts, derived)
		var rrows [][]string
		for _, k := range kinds {
			r := ratios[k]
			slices.Sort(r)
			rrows = append(rrows, []string{k, fmt.Sprint(len(r)), fmt.Sprintf("%.3g", r[0]), fmt.Sprintf("%.3g", stat.Quantile(0.5, stat.Empirical, r, nil)), fmt.Sprintf("%.3g", r[len(r)-1])})
		}
		fig.Tables = append(fig.Tables, HTMLTable(d.Name+" (derived, not measured) / "+src.Name+" (measured): latency ratio per kind",
			[]string{"Kind", "Shapes", "Min", "Median", "Max"}, rrows))
		specs = append(specs, d)
	}
	var srows [][]string
	for _, s := range specs {
		status := "measured"
		if !s.Measured {
			status = "derived, not measured (from " + s.DerivedFrom + ")"
		}
		srows = append(srows, []string{s.Name, status, fmt.Sprint(s.SMs), s.BoostClock.String(), fmt.Sprintf("%.4g", s.PeakBF16.TFLOPs()),
			fmt.Sprintf("%.3g", s.MemBandwidth.TBps()), fmt.Sprintf("%.4g", s.MemCapacity.GB())})
	}
	fig.Tables = append(fig.Tables, HTMLTable("GPUs", []string{"GPU", "Timings", "SMs", "Boost clock", "BF16 dense (TFLOP/s)", "HBM (TB/s)", "HBM (GB)"}, srows))
	for _, s := range specs {
		if s.Notes != "" {
			fig.Notes = append(fig.Notes, s.Name+": "+s.Notes)
		}
	}
	return fig, nil
}

// LabeledOp is an operator shape with a label for tables ("Qwen3 QKV, 4 tokens").
type LabeledOp struct {
	Label string
	Op    gpu.Op
}

// PredictionTable tabulates what each timing model predicts for each operator: latency,
// its compute and overhead parts, the bytes it moves and whether the shape lies outside
// the measured range. A model of a GPU that was not measured is labelled "derived, not
// measured".
func PredictionTable(caption string, ops []LabeledOp, models ...*gpu.Model) template.HTML {
	var rows [][]string
	for _, o := range ops {
		for _, m := range models {
			g := m.GPU()
			name := g.Name
			if m.Derived() || !g.Measured {
				name += " (derived, not measured)"
			}
			p := m.Predict(o.Op)
			extra := "no"
			if p.Extrapolated {
				extra = "yes"
			}
			rows = append(rows, []string{o.Label, name, fmt.Sprintf("%.4g", p.Latency.Microseconds()), fmt.Sprintf("%.4g", p.Compute.Microseconds()),
				fmt.Sprintf("%.4g", p.Overhead.Microseconds()), fmt.Sprintf("%.4g", float64(p.WeightBytes+p.ActivationBytes+p.KVBytes)/1e6), extra})
		}
	}
	return HTMLTable(caption, []string{"Operator", "GPU", "Latency (µs)", "Compute (µs)", "Overhead (µs)", "Bytes moved (MB)", "Extrapolated"}, rows)
}

// ProfileSummary tabulates a measured profile: the machine and run (env.json) and the
// measurements per operator kind.
func ProfileSummary(p *gpu.Profile) template.HTML {
	e := p.Env
	count := map[string]int{}
	var kinds []string
	for _, pt := range p.Points {
		k := pt.Op.Kind.String()
		if count[k] == 0 {
			kinds = append(kinds, k)
		}
		count[k]++
	}
	rows := [][]string{
		{"GPU", fmt.Sprintf("%s (%d SMs, %.4g GB)", e.GPU, e.SMs, e.MemGB)},
		{"software", fmt.Sprintf("PyTorch %s, CUDA %s, %s, measured %s", e.Torch, e.CUDA, e.DType, e.Date)},
		{"method", e.Method},
		{"device copy bandwidth (read + write)", fmt.Sprintf("%.4g GB/s", e.CopyGBps)},
		{"BF16 matmul 8192³", fmt.Sprintf("%.4g TFLOP/s", e.MatmulTFLOPs)},
		{"one tiny kernel in a CUDA graph (launch floor)", fmt.Sprintf("%.3g µs", e.TinyKernelUs)},
	}
	for _, k := range kinds {
		rows = append(rows, []string{"measured " + k, fmt.Sprintf("%d shapes", count[k])})
	}
	caption := fmt.Sprintf("Measured profile: %s, %s", e.GPU, e.Date)
	if p.Source != "" && p.Source != "fs" {
		caption += " (" + p.Source + ")"
	}
	return HTMLTable(caption, nil, rows)
}

// bound writes a row's bound (its AtMost), "?" when it has none.
func bound(r summary.Row) string {
	if r.AtMost == nil {
		return "?"
	}
	return strconv.FormatFloat(*r.AtMost, 'g', -1, 64)
}
