package charts

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	ec "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/dashlab/dashlab/dash/offload"
	"github.com/dashlab/dashlab/summary"
)

// Fig10 draws the CPU-GPU offloading comparison (§VI-C, Fig. 10): (a) the
// host's expert-layer latency against the core cap, measured at 1..16 cores
// and modelled beyond (dashed); (b) the TPOT of weight streaming, CPU
// compute and the Hybrid oracle normalised to the engine's DASH, with the
// paper's published Hybrid range as a band.
func Fig10(f *summary.Fig10Result) (Figure, error) {
	if f == nil || len(f.Evaluations) == 0 || len(f.Curve) == 0 {
		return Figure{}, errors.New("charts: Fig10: no offloading results")
	}
	host, sfx := f.Host, ""
	if host == "" {
		host = "the host"
	}
	if f.Host != "" && f.Host != "xeon-8452y" { // the paper's host keeps the figure's ids
		sfx = "_" + strings.NewReplacer("-", "_", ".", "_").Replace(f.Host)
	}
	if f.Derived != nil {
		host += " (derived, not measured)"
	}
	a, err := fig10Curve(f.Curve, host, "fig10_a"+sfx)
	if err != nil {
		return Figure{}, err
	}
	b, err := fig10Slowdowns(f.Rows, f.Evaluations, fmt.Sprintf("TPOT / DASH TPOT, %s %d/%d, %d cores of %s; band: the paper's Hybrid range",
		ShortModelName(f.Model), f.Prompt, f.Output, f.Evaluations[0].Scenario.Cores, host), "fig10_b"+sfx)
	if err != nil {
		return Figure{}, err
	}
	fig := Figure{ID: "fig10" + sfx, Title: "Fig. 10: CPU-GPU offloading vs DASH (§VI-C), host " + host,
		Caption: "Weight streaming copies every expert not cached in the GPU's HBM over PCIe (measured pinned copy time) and runs it on the GPU (the engine's timing model); " +
			"CPU compute sends the activations to the host, which runs the experts (the host's layer latency); the Hybrid oracle takes the best split of the active experts between the two, run concurrently. " +
			"All three share the engine's non-expert GPU time per token and are normalised to the engine's DASH TPOT.",
		Charts: []Chart{a, b}}
	if len(f.Measured) > 0 && f.Derived == nil {
		c, err := fig10Slowdowns(f.Rows, f.Measured, fmt.Sprintf("the same at the host's largest measured core count, %d (no core-scaling model)", f.Measured[0].Scenario.Cores), "fig10_b16"+sfx)
		if err != nil {
			return Figure{}, err
		}
		fig.Charts = append(fig.Charts, c)
	}
	fig.Rows = append(fig.Rows, labelRows(f.Rows, []rowLabel{
		{"fig10.hybrid_slowdown_vs_dash.min", "Hybrid slowdown vs DASH, smallest over B"},
		{"fig10.hybrid_slowdown_vs_dash.max", "Hybrid slowdown vs DASH, largest over B"},
		{"fig10.hybrid_reduction_pct.min", "Hybrid TPOT reduction over the better single path, smallest"},
		{"fig10.hybrid_reduction_pct.max", "Hybrid TPOT reduction over the better single path, largest"},
	})...)
	e := f.Evaluations[0]
	if d := f.Derived; d != nil {
		fig.Notes = []string{
			fmt.Sprintf("%s is derived, not measured, from the measured %s: per batch, the measured fit T(c) = serial + parallel/c becomes T(c) = parallel x %.4f / c + weights / %v. "+
				"The per-core term scales by the base clocks (%v / %v; both cores have one AMX TMUL, %d BF16 FLOP a cycle); the serial term, which grows with the weights read "+
				"(the measured host's shared memory rate), is replaced by the weights over this host's peak DRAM rate (%d channels x %d MT/s x 8 B, an upper bound). "+
				"The AMX peak (%v at %d cores) never binds. Host-to-GPU copies are the measured host's.",
				d.To.Name, d.From.ID, d.ClockScale, d.Memory, d.From.BaseClock, d.To.BaseClock, d.To.AMXFLOPsPerCycle, d.To.MemoryChannels, d.To.MemoryMTs, d.To.AMXPeak(e.Scenario.Cores), e.Scenario.Cores),
		}
		var rows [][]string
		for _, x := range d.Batches {
			rows = append(rows, []string{fmt.Sprint(x.Batch), fmt.Sprint(x.ActiveExperts), x.Weights.String(), x.Fit.Serial.String(), x.Fit.Parallel.String(),
				x.MeasuredShared.String(), x.PerCore.String(), x.Shared.String(), x.AMX.String(), x.At(e.Scenario.Cores).String()})
		}
		fig.Tables = append(fig.Tables, HTMLTable("The derivation per batch: the measured host's fit and the derived host's terms",
			[]string{"B", "experts", "weights", "measured serial", "measured parallel", "implied shared rate", "derived one-core term", "derived shared term", "AMX floor (1 core)",
				fmt.Sprintf("derived at %d cores", e.Scenario.Cores)}, rows))
	} else {
		fig.Notes = []string{
			fmt.Sprintf("%s: at 16 threads it runs B=1's eight experts (%.0f MB) in %.1f ms, about %.0f GB/s of expert weights; "+
				"the paper's 32-core Xeon Platinum 8452Y has eight DDR5-4800 channels. The CPU path, and with it the Hybrid, is therefore slower than the paper's, "+
				"and a Hybrid that balances two paths of similar speed gains more over either one than the paper's.",
				host, float64(8*e.Scenario.Shape.ExpertBytes())/1e6, cpuAt(f.Curve, 1, 16), float64(8*e.Scenario.Shape.ExpertBytes())/1e6/cpuAt(f.Curve, 1, 16)),
			fmt.Sprintf("Core counts not measured are modelled by a per-batch Amdahl fit T(c) = serial + parallel/c over the measurements (largest miss of a measured point: %.1f%%).", maxFitErr(f.Fits)),
		}
	}
	fig.Notes = append(fig.Notes,
		fmt.Sprintf("The GPU caches %.0f%% of the experts (its HBM less the non-expert weights and the KV cache); copies overlap the GPU's expert compute (favourable to weight streaming).", 100*e.Scenario.CachedFraction))
	return fig, nil
}

func cpuAt(curve []summary.CoreCurvePoint, batch, cores int) float64 {
	for _, p := range curve {
		if p.Batch == batch && p.Cores == cores {
			return p.Latency.Milliseconds()
		}
	}
	return 0
}

func maxFitErr(fits []offload.AmdahlFit) float64 {
	m := 0.0
	for _, f := range fits {
		m = max(m, f.MaxErrPct)
	}
	return m
}

func fig10Curve(curve []summary.CoreCurvePoint, host, id string) (Chart, error) {
	var batches []int
	for _, p := range curve {
		if !slices.Contains(batches, p.Batch) {
			batches = append(batches, p.Batch)
		}
	}
	var series, modelled []XYSeries
	for i, b := range batches {
		name := fmt.Sprintf("B=%d", b)
		s := XYSeries{Name: name, Color: Palette[i%len(Palette)]}
		m := XYSeries{Name: name + " modelled", Color: Palette[i%len(Palette)]}
		var lastMeasured *Point
		for _, p := range curve {
			if p.Batch != b {
				continue
			}
			pt := Point{X: float64(p.Cores), Y: p.Latency.Milliseconds()}
			if p.Modelled {
				if lastMeasured != nil && len(m.Points) == 0 {
					m.Points = append(m.Points, *lastMeasured)
				}
				m.Points = append(m.Points, pt)
				continue
			}
			s.Points = append(s.Points, pt)
			lastMeasured = &s.Points[len(s.Points)-1]
		}
		series = append(series, s)
		if len(m.Points) > 0 {
			modelled = append(modelled, m)
		}
	}
	line, err := Lines(LineSpec{
		Common: Common{ID: id, Title: "Fig. 10(a): host expert-layer latency", Subtitle: "Qwen3 expert layer on " + host + "; solid: measured, dashed: modelled or derived", Height: "440px"},
		XName:  "CPU cores", YName: "Latency (ms)", Series: series, LogX: true, LogY: true,
	})
	if err != nil {
		return nil, err
	}
	// The modelled extensions, dashed in their batch's color.
	for _, m := range modelled {
		var data []opts.LineData
		for _, p := range m.Points {
			if !finite(p.X) || !finite(p.Y) || p.X <= 0 || p.Y <= 0 {
				return nil, fmt.Errorf("charts: Fig10: modelled point (%v, %v)", p.X, p.Y)
			}
			data = append(data, opts.LineData{Value: []float64{p.X, p.Y}})
		}
		line.AddSeries(m.Name, data,
			ec.WithLineChartOpts(opts.LineChart{Symbol: "diamond", SymbolSize: 8, ShowSymbol: opts.Bool(true)}),
			ec.WithLineStyleOpts(opts.LineStyle{Color: m.Color, Width: 2, Type: "dashed"}),
			ec.WithItemStyleOpts(opts.ItemStyle{Color: m.Color}))
	}
	return line, nil
}

func fig10Slowdowns(rows []summary.Row, evs []offload.Evaluation, subtitle, id string) (Chart, error) {
	lo, hi := paperOf(rows, "fig10.hybrid_slowdown_vs_dash.min"), paperOf(rows, "fig10.hybrid_slowdown_vs_dash.max")
	var cats []string
	var stream, page, cpu, hybrid []float64
	for _, e := range evs {
		cats = append(cats, fmt.Sprintf("B=%d", e.Scenario.Batch))
		stream = append(stream, e.Slowdown(e.Streaming))
		page = append(page, e.Slowdown(e.StreamingPageable))
		cpu = append(cpu, e.Slowdown(e.CPU))
		hybrid = append(hybrid, e.Slowdown(e.Hybrid))
	}
	return GroupedBar(BarSpec{
		Common: Common{ID: id, Title: "Fig. 10(b): TPOT normalised to DASH", Subtitle: subtitle, Height: "460px"},
		XName:  "Batch size", YName: "TPOT / DASH TPOT (x)", Categories: cats, LogY: true, YMin: 1,
		Series: []Series{{Name: "Weight streaming (pinned)", Values: stream}, {Name: "Weight streaming (pageable)", Values: page},
			{Name: "CPU compute", Values: cpu}, {Name: "Hybrid oracle", Values: hybrid}},
		Bands: []Band{{Name: fmt.Sprintf("Paper: Hybrid %s-%sx", fmtG(lo), fmtG(hi)), Lo: lo, Hi: hi}},
	})
}
