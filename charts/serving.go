package charts

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/summary"
)

// servingSystems orders the systems of a serving study: DASH first, then
// the baselines as the study lists them.
func servingSystems(res *serve.StudyResult) []string {
	var out []string
	for _, a := range res.Aggregates {
		if !slices.Contains(out, a.System) {
			out = append(out, a.System)
		}
	}
	slices.SortStableFunc(out, func(a, b string) int {
		switch {
		case a == "dash" && b != "dash":
			return -1
		case b == "dash" && a != "dash":
			return 1
		}
		return 0
	})
	return out
}

// Table3 draws a serving study (§VI-E, Table III): P90 TPOT and P90 E2E
// latency against offered load for every system (the mean over seeds,
// with the seeds' range in the tooltip series), the paper's DASH values and
// the baseline values its reductions imply as dashed points, each system's
// backlogged throughput in Mixed and Serial, and the harness's rows of the
// study's table3.* and serving.* ids (reproduce.ServingRows; the paper's values
// drawn come from them). sfx ("" for the paper reading, ".physical" for a
// physical-reading study, whose rows are reported, not checked) labels the
// figure and its charts' ids.
func Table3(res *serve.StudyResult, judged []summary.Row, sfx string) (Figure, error) {
	if res == nil || len(res.Aggregates) == 0 {
		return Figure{}, errors.New("charts: Table3: no serving results")
	}
	systems := servingSystems(res)
	var loads []float64
	for _, a := range res.Aggregates {
		if !slices.Contains(loads, a.Load) {
			loads = append(loads, a.Load)
		}
	}
	slices.Sort(loads)
	id := func(load float64, what string) string {
		return fmt.Sprintf("table3.load%d.%s", int(load*100+0.5), what)
	}
	metric := func(title, yname, what string, get func(serve.Aggregate) serve.Across) (Chart, error) {
		var series, paper []XYSeries
		for _, sys := range systems {
			var pts []Point
			for _, l := range loads {
				if a, ok := res.AggregateOf(sys, l); ok {
					pts = append(pts, Point{X: 100 * l, Y: get(a).Mean})
				}
			}
			series = append(series, XYSeries{Name: SystemName(sys), Points: pts})
			var pp []Point
			for _, l := range loads {
				dash := paperOf(judged, id(l, what+"_p90_"+unitOf(what))+sfx)
				if sys == "dash" {
					pp = append(pp, Point{X: 100 * l, Y: dash})
					continue
				}
				red := paperOf(judged, id(l, what+"_reduction_pct.vs_"+strings.ReplaceAll(sys, "-", "_"))+sfx)
				pp = append(pp, Point{X: 100 * l, Y: dash / (1 - red/100)})
			}
			paper = append(paper, XYSeries{Name: SystemName(sys), Points: pp})
		}
		return Lines(LineSpec{
			Common: Common{ID: SanitizeID("table3_" + what + sfx), Title: title,
				Subtitle: fmt.Sprintf("%s, %v, mean of per-trace P90 over seeds; diamonds: the paper (baselines implied by its reductions)", res.Model, res.Mode),
				Height:   "420px"},
			XName: "Offered load (% of the baseline's backlogged throughput)", YName: yname, Series: series, Paper: paper,
		})
	}
	tpot, err := metric("P90 TPOT against offered load", "P90 TPOT (ms)", "tpot", func(a serve.Aggregate) serve.Across { return a.TPOTms.P90 })
	if err != nil {
		return Figure{}, err
	}
	e2e, err := metric("P90 E2E latency against offered load", "P90 E2E (s)", "e2e", func(a serve.Aggregate) serve.Across { return a.E2Es.P90 })
	if err != nil {
		return Figure{}, err
	}
	fig := Figure{ID: SanitizeID("table3" + sfx), Title: "Table III: P90 latency under continuous batching (§VI-E)" + readingLabel(sfx),
		Caption: fmt.Sprintf("Poisson arrivals at fractions of the baseline's backlogged throughput (%.4f req/s), %d warm-up and %d measured requests per trace; "+
			"B_max %d, a %d-token budget, %d-token chunks.", res.BaselineRPS, res.Warmup, res.Measure,
			res.Scheduler.MaxBatch, res.Scheduler.TokenBudget, res.Scheduler.Chunk),
		Charts: []Chart{tpot, e2e}}
	if len(res.Saturation) > 0 {
		bar, err := SaturationBars(res, sfx)
		if err != nil {
			return Figure{}, err
		}
		fig.Charts = append(fig.Charts, bar)
	}
	for _, r := range judged {
		r.Metric = strings.TrimSuffix(r.ID, sfx)
		fig.Rows = append(fig.Rows, r)
	}
	slices.SortFunc(fig.Rows, func(a, b summary.Row) int { return strings.Compare(a.ID, b.ID) })
	var rows [][]string
	for _, a := range res.Aggregates {
		rows = append(rows, []string{a.System, fmt.Sprintf("%.0f%%", 100*a.Load), fmt.Sprintf("%.4f", a.RateRPS),
			fmt.Sprintf("%.1f (%.1f-%.1f)", a.TPOTms.P90.Mean, a.TPOTms.P90.Min, a.TPOTms.P90.Max),
			fmt.Sprintf("%.3f (%.3f-%.3f)", a.E2Es.P90.Mean, a.E2Es.P90.Min, a.E2Es.P90.Max),
			fmt.Sprintf("%.3f", a.TTFTs.P90.Mean), fmt.Sprintf("%.3f", a.Queues.Mean.Mean), fmt.Sprintf("%.4f", a.ThroughputRPS.Mean)})
	}
	fig.Tables = append(fig.Tables, HTMLTable("Per system and load (mean over seeds, seed range in parentheses)",
		[]string{"System", "Load", "Rate (req/s)", "P90 TPOT (ms)", "P90 E2E (s)", "P90 TTFT (s)", "Mean queueing (s)", "Completed (req/s)"}, rows))
	return fig, nil
}

func unitOf(what string) string {
	if what == "tpot" {
		return "ms"
	}
	return "s"
}

func readingLabel(sfx string) string {
	if sfx == "" {
		return ""
	}
	return ", " + strings.TrimPrefix(sfx, ".") + " reading"
}

// SaturationBars draws each system's backlogged throughput per mode.
func SaturationBars(res *serve.StudyResult, sfx string) (Chart, error) {
	systems := servingSystems(res)
	for _, s := range res.Saturation {
		if !slices.Contains(systems, s.System) {
			systems = append(systems, s.System)
		}
	}
	var series []Series
	for _, m := range []serve.Mode{serve.Mixed, serve.Serial} {
		vals := make([]float64, len(systems))
		any := false
		for i, sys := range systems {
			vals[i] = math.NaN()
			if s, ok := res.SaturationOf(sys, m); ok {
				vals[i], any = s.RPS, true
			}
		}
		if any {
			series = append(series, Series{Name: m.String(), Values: vals})
		}
	}
	return GroupedBar(BarSpec{
		Common: Common{ID: SanitizeID("serving_saturation" + sfx), Title: "Backlogged throughput",
			Subtitle: "requests always waiting; the paper: Mixed over Serial +10.3% (DASH), +12.6% (baselines); DASH +34.1-37.1% over the baselines", Height: "380px"},
		XName: "System", YName: "Throughput (requests/s)", Categories: systems, Series: series,
	})
}

// ServingCDFs draws the distributions of E2E latency and TPOT of runs (one
// line per run, named by its system) as empirical CDFs.
func ServingCDFs(runs []*serve.Run, title string) ([]Chart, error) {
	if len(runs) == 0 {
		return nil, errors.New("charts: ServingCDFs: no runs")
	}
	cdf := func(xs []float64) []Point {
		slices.Sort(xs)
		step := max(1, len(xs)/400)
		var pts []Point
		for i := 0; i < len(xs); i += step {
			pts = append(pts, Point{X: xs[i], Y: float64(i+1) / float64(len(xs))})
		}
		if n := len(xs); n > 0 && (n-1)%step != 0 {
			pts = append(pts, Point{X: xs[n-1], Y: 1})
		}
		return pts
	}
	var e2e, tpot []XYSeries
	for _, r := range runs {
		var a, b []float64
		for _, m := range r.Measured {
			a = append(a, m.E2E.Seconds())
			if m.Output > 1 {
				b = append(b, m.TPOT.Milliseconds())
			}
		}
		e2e = append(e2e, XYSeries{Name: SystemName(r.System), Points: cdf(a)})
		tpot = append(tpot, XYSeries{Name: SystemName(r.System), Points: cdf(b)})
	}
	c1, err := Lines(LineSpec{Common: Common{ID: SanitizeID("cdf_e2e_" + title), Title: "E2E latency CDF", Subtitle: title, Height: "380px"},
		XName: "E2E latency (s)", YName: "Fraction of requests", Series: e2e})
	if err != nil {
		return nil, err
	}
	c2, err := Lines(LineSpec{Common: Common{ID: SanitizeID("cdf_tpot_" + title), Title: "TPOT CDF", Subtitle: title, Height: "380px"},
		XName: "TPOT (ms)", YName: "Fraction of requests", Series: tpot})
	if err != nil {
		return nil, err
	}
	return []Chart{c1, c2}, nil
}

// ServingTimeSeries draws one run's iterations over time: batch occupancy
// (active requests) and queue length, and the busiest link's utilization
// (the run must have kept its series). At most about 1,500 points are drawn
// per line (every k-th iteration).
func ServingTimeSeries(run *serve.Run, title string) ([]Chart, error) {
	if run == nil || len(run.Iterations) == 0 {
		return nil, errors.New("charts: ServingTimeSeries: the run has no per-iteration series (Config.Series)")
	}
	step := max(1, len(run.Iterations)/1500)
	var active, waiting, util []Point
	for i := 0; i < len(run.Iterations); i += step {
		it := run.Iterations[i]
		t := it.Start.Seconds()
		active = append(active, Point{X: t, Y: float64(it.Active)})
		waiting = append(waiting, Point{X: t, Y: float64(it.Waiting)})
		util = append(util, Point{X: t, Y: 100 * it.LinkUtilization})
	}
	c1, err := Lines(LineSpec{Common: Common{ID: SanitizeID("occupancy_" + title), Title: "Batch occupancy and queue", Subtitle: title, Height: "360px"},
		XName: "Time (s)", YName: "Requests", Series: []XYSeries{{Name: "active (batch)", Points: active}, {Name: "waiting (queue)", Points: waiting}}})
	if err != nil {
		return nil, err
	}
	c2, err := Lines(LineSpec{Common: Common{ID: SanitizeID("linkutil_" + title), Title: "Busiest link's utilization per iteration", Subtitle: title, Height: "320px"},
		XName: "Time (s)", YName: "Utilization (%)", Series: []XYSeries{{Name: "busiest link", Points: util}}})
	if err != nil {
		return nil, err
	}
	return []Chart{c1, c2}, nil
}
