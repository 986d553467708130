package charts

import (
	"errors"
	"fmt"
	"html/template"
	"math"

	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/summary"
)

// clusterColor gives contender i the palette's i-th colour.
func clusterColor(i int) string { return Palette[i%len(Palette)] }

// ClusterComparison draws the comparison users ask for at cluster scale
// (beyond the paper, whose Table I dismisses multi-GPU scaling in words):
// for each target output throughput the GPUs each contender needs with its
// P90 TPOT within the target (the break-even chart, log-log), each
// contender's tokens per second per GPU and per unit of price, and the
// capacity and provisioning tables. Prices are the comparison's
// (illustrative); the break-even price is where a contender's tokens per
// second per cost equal the reference's (the first contender's).
func ClusterComparison(cmp *cluster.Comparison, model string) (Figure, error) {
	if cmp == nil || len(cmp.Capacities) == 0 {
		return Figure{}, errors.New("charts: ClusterComparison: no contenders")
	}
	caps := cmp.Capacities
	sub := fmt.Sprintf("%s, P90 TPOT within %s", ShortModelName(model), Dur(cmp.TPOTTarget))
	var series []XYSeries
	for i, c := range caps {
		var pts []Point
		for _, p := range cmp.Provisions {
			if p.GPUs[i] > 0 {
				pts = append(pts, Point{X: p.TargetTokS, Y: float64(p.GPUs[i])})
			}
		}
		series = append(series, XYSeries{Name: c.Label, Points: pts, Color: clusterColor(i)})
	}
	fig := Figure{ID: "cluster_" + SanitizeID(model), Title: "DASH at cluster scale: GPUs for the same throughput",
		Caption: "Each contender is one instance layout (a GPU with its memory system, its parallelism); its capacity is the highest Poisson load " +
			"whose P90 TPOT meets the target (bisected, at most 95% of its backlogged rate), and a target throughput takes as many whole instances as it needs."}
	if len(cmp.Provisions) > 0 {
		gpus, err := Lines(LineSpec{Common: Common{ID: fig.ID + "_gpus", Title: "GPUs needed for a target output throughput", Subtitle: sub},
			XName: "Target output throughput (tokens/s)", YName: "GPUs", Series: series, LogX: true, LogY: true})
		if err != nil {
			return Figure{}, err
		}
		fig.Charts = append(fig.Charts, gpus)
	}
	var labels []string
	perGPU, perCost := make([]float64, len(caps)), make([]float64, len(caps))
	var absent []BarNote
	for i, c := range caps {
		labels = append(labels, c.Label)
		perGPU[i], perCost[i] = c.PerGPU, c.PerCost
		if c.TokensPerS <= 0 {
			perGPU[i], perCost[i] = math.NaN(), math.NaN()
			for _, s := range []string{"per GPU", "per unit of price"} {
				absent = append(absent, BarNote{Series: s, Category: c.Label, Text: "misses the target"})
			}
		}
	}
	bars, err := GroupedBar(BarSpec{Common: Common{ID: fig.ID + "_per_gpu", Title: "Output tokens per second per GPU and per unit of price", Subtitle: sub},
		XName: "Contender", YName: "Output tokens/s", Categories: labels, LabelRotate: 20, Absent: absent,
		Series: []Series{{Name: "per GPU", Values: perGPU}, {Name: "per unit of price", Values: perCost}}})
	if err != nil {
		return Figure{}, err
	}
	fig.Charts = append(fig.Charts, bars)
	var rows [][]string
	for _, c := range caps {
		rows = append(rows, []string{c.Label, fmt.Sprint(c.GPUs), trimF(c.Price, 2), trimF(c.Saturation, 3), trimF(c.RateRPS, 3),
			trimF(c.TokensPerS, 1), trimF(c.PerGPU, 1), trimF(c.P90TPOTms, 1), trimF(c.P90TTFTs, 2), trimF(c.JoulesPerToken, 2),
			fmt.Sprint(c.KVTokens), trimF(c.Headroom, 1), trimF(100*c.CommShare, 1), trimF(c.BreakEvenPrice, 2), c.Note})
	}
	fig.Tables = append(fig.Tables, HTMLTable("Capacity of one instance within the target",
		[]string{"contender", "GPUs", "price", "backlogged (req/s)", "within target (req/s)", "tokens/s", "tokens/s per GPU", "P90 TPOT (ms)",
			"P90 TTFT (s)", "J/token (board power)", "KV tokens", "KV headroom (x B_max)", "collectives (% of busy)", "break-even price", "note"}, rows))
	if len(cmp.Provisions) > 0 {
		head := []string{"target (tokens/s)"}
		for _, c := range caps {
			head = append(head, c.Label+": GPUs (cost)")
		}
		var prov [][]string
		for _, p := range cmp.Provisions {
			row := []string{trimF(p.TargetTokS, 0)}
			for i := range caps {
				if p.Instances[i] == 0 {
					row = append(row, "cannot")
					continue
				}
				row = append(row, fmt.Sprintf("%d (%s)", p.GPUs[i], trimF(p.Cost[i], 1)))
			}
			prov = append(prov, row)
		}
		fig.Tables = append(fig.Tables, HTMLTable("GPUs needed per target throughput (break-even table)", head, prov))
	}
	fig.Notes = append(fig.Notes,
		"Energy per token is every GPU's board power (TDP) over the throughput plus the interconnect's port energy; the memory systems' own energy (dash/energy) is not added.",
		fmt.Sprintf("Break-even price: with %s's GPU at price %s, a contender whose GPU costs less than its break-even price serves more tokens per second per unit of cost. Prices are illustrative, as the paper's r and δ (§VI-G).",
			caps[0].Label, trimF(caps[0].Price, 2)))
	return fig, nil
}

// ClusterRuns draws fixed-batch cluster runs side by side: decode
// throughput per GPU and TPOT per layout, with the collectives' share of
// the time.
func ClusterRuns(id, title string, runs []cluster.Result) (Figure, error) {
	if len(runs) == 0 {
		return Figure{}, errors.New("charts: ClusterRuns: no runs")
	}
	var cats []string
	perGPU, tpot, comm := make([]float64, len(runs)), make([]float64, len(runs)), make([]float64, len(runs))
	var rows [][]string
	for i, r := range runs {
		c := fmt.Sprintf("%s %s\n%v, %d GPUs", r.Cluster, SystemName(r.Memory), r.Parallel, r.GPUs)
		cats = append(cats, c)
		perGPU[i], tpot[i], comm[i] = r.PerGPU, r.TPOT.Milliseconds(), 100*r.CommShare
		rows = append(rows, []string{r.Cluster, SystemName(r.Memory), r.Parallel.String(), fmt.Sprint(r.GPUs), fmt.Sprint(r.Batch),
			Dur(r.TTFT), Dur(r.TPOT), trimF(r.DecodeThroughput, 1), trimF(r.PerGPU, 1), trimF(100*r.CommShare, 1),
			fmt.Sprint(r.KV.Tokens), trimF(r.KV.Headroom, 1)})
	}
	sub := fmt.Sprintf("%s, B per instance", WorkloadLabel(SystemName(runs[0].Memory), runs[0].Batch, runs[0].Prompt, runs[0].Output))
	a, err := GroupedBar(BarSpec{Common: Common{ID: id + "_per_gpu", Title: "Decode throughput per GPU", Subtitle: sub, Height: "520px"},
		XName: "Layout", YName: "Output tokens/s per GPU", Categories: cats, LabelRotate: 30, Series: []Series{{Name: "per GPU", Values: perGPU}}})
	if err != nil {
		return Figure{}, err
	}
	b, err := GroupedBar(BarSpec{Common: Common{ID: id + "_tpot", Title: "TPOT and the collectives' share", Subtitle: sub, Height: "520px"},
		XName: "Layout", YName: "TPOT (ms) / collectives (% of time)", Categories: cats, LabelRotate: 30,
		Series: []Series{{Name: "TPOT (ms)", Values: tpot}, {Name: "collectives (%)", Values: comm}}})
	if err != nil {
		return Figure{}, err
	}
	return Figure{ID: id, Title: title, Charts: []Chart{a, b},
		Tables: []template.HTML{HTMLTable(title, []string{"cluster", "memory", "layout", "GPUs", "B", "TTFT", "TPOT", "decode tokens/s",
			"per GPU", "collectives (%)", "KV tokens", "KV headroom"}, rows)}}, nil
}

// trimF writes x with at most d decimals ("—" for NaN).
func trimF(x float64, d int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "—"
	}
	return fmt.Sprintf("%.*f", d, x)
}

// ClusterFigure draws one model's cluster study for the report: the
// comparison (ClusterComparison), the external check beside its
// simulation, and the study's cluster.* rows (simulated only).
func ClusterFigure(s summary.ClusterStudy) (Figure, error) {
	fig, err := ClusterComparison(s.Comparison, s.Model)
	if err != nil {
		return Figure{}, err
	}
	fig.Title = fmt.Sprintf("%s at cluster scale: DASH GPUs against HBM-only GPUs", ShortModelName(s.Model))
	for _, c := range s.Checks {
		fig.Tables = append(fig.Tables, HTMLTable("External check: "+c.Description,
			[]string{"", "output tokens/s", "mean TPOT (ms)", "mean TTFT (s)", "duration (s)"},
			[][]string{
				{"published", trimF(c.PublishedTokS, 1), trimF(c.PublishedTPOTms, 2), trimF(c.PublishedTTFTs, 2), trimF(c.PublishedDurS, 2)},
				{"simulated", trimF(c.SimulatedTokS, 1), trimF(c.SimulatedTPOTms, 2), trimF(c.SimulatedTTFTs, 2), trimF(c.SimulatedDurS, 2)},
			}))
		fig.Notes = append(fig.Notes, "Source of the external check: "+c.Source+".")
	}
	fig.Rows = s.Rows
	return fig, nil
}
