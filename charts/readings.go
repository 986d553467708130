package charts

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/summary"
)

// Fig9Readings opens Fig. 9 with the bound argument and the readings of
// t_R side by side. A table gives, per reading, each stack's NAND array,
// TSV and link rates, the expert-delivery ceiling of every system (what
// binds it) and the ceiling that puts on DASH's paired speedups; two bar
// charts give every Fig. 9 id computed under several readings (speedups, then
// E2E reductions), one bar per reading, with the paper's values as ticks. It only draws: the
// bounds come from reproduce.ComputeFig9BoundOf, the values from the report's
// rows (reproduce.ReadingValues). When the bounds' parts are not the paper's
// (ComputeFig9BoundOf with a change), the caption and subtitles say so.
func Fig9Readings(bounds []summary.Fig9Bound, vals []summary.ReadingValue) (Figure, error) {
	if len(bounds) == 0 && len(vals) == 0 {
		return Figure{}, errors.New("charts: Fig9Readings: no bounds and no values")
	}
	var w summary.WhatIf
	for _, b := range bounds {
		w = w.Add(b.WhatIf...)
	}
	tbps := func(v float64) string {
		if math.IsInf(v, 1) {
			return "unbounded"
		}
		return fmt.Sprintf("%.2f TB/s", v/1e12)
	}
	fig := Figure{ID: "fig9_readings", Title: "Fig. 9 under the readings of t_R",
		Caption: "The paper states one 8 MiB page wave per t_R per stack (§VI-A; the physical reading) but treats t_R as a readiness latency overlapped by double " +
			"buffering (§II-B, §IV-A, §VI-E; the paper reading). The table computes, from the parts, how fast each system can deliver experts under each reading, " +
			"and the most DASH's paired speedup can be; the charts give every Fig. 9 number under each reading, the paper reading's being the checked one."}
	fig.Caption = WhatIfCaption(fig.Caption, w)
	if len(bounds) > 0 {
		head := []string{"reading", "array / stack", "TSV / stack", "link"}
		for _, s := range bounds[0].Systems {
			head = append(head, SystemName(s.System)+" experts")
		}
		head = append(head, "ceiling vs RelayOnly", "ceiling vs DirectOnly")
		var rows [][]string
		for _, b := range bounds {
			row := []string{b.Reading.String(), tbps(float64(b.Array)), tbps(float64(b.TSV)), tbps(float64(b.Link))}
			for _, s := range b.Systems {
				row = append(row, fmt.Sprintf("%s (%d x %s, %s-bound)", tbps(float64(s.Total)), s.Stacks, tbps(float64(s.PerStack)), s.Binding))
			}
			row = append(row, fmt.Sprintf("%.2fx", b.Ceiling("relay-only")), fmt.Sprintf("%.2fx", b.Ceiling("direct-only")))
			rows = append(rows, row)
		}
		fig.Tables = append(fig.Tables, HTMLTable("Expert-delivery ceilings from the parts", head, rows))
	}
	// the readings the values have, in dash.Readings' order: the paper reading is checked
	var readings []dash.Reading
	for _, rd := range dash.Readings() {
		for _, v := range vals {
			if _, ok := v.Values[rd]; ok {
				readings = append(readings, rd)
				break
			}
		}
	}
	var named []string
	for _, rd := range readings {
		role := "reported"
		if rd == dash.ReadingPaper {
			role = "checked"
		}
		named = append(named, fmt.Sprintf("%v reading (%s)", rd, role))
	}
	subtitle := strings.Join(named, " and ") + "; ticks: the paper"
	for _, group := range []struct {
		id, title, unit, yName string
	}{{"fig9_readings_speedup", "Throughput speedups of DASH", "x", "Speedup (x)"}, {"fig9_readings_e2e", "E2E reductions of DASH", "%", "Reduction (%)"}} {
		var cats []string
		var pub []float64
		byReading := make([][]float64, len(readings))
		for _, v := range vals {
			if v.Unit != group.unit {
				continue
			}
			cats = append(cats, idLabel(v.ID))
			pub = append(pub, v.Paper)
			for i, rd := range readings {
				x, ok := v.Values[rd]
				if !ok {
					x = math.NaN()
				}
				byReading[i] = append(byReading[i], x)
			}
		}
		if len(cats) == 0 {
			continue
		}
		var series, paper []Series
		for i, rd := range readings {
			series = append(series, Series{Name: rd.String() + " reading", Values: byReading[i]})
			paper = append(paper, Series{Name: rd.String() + " reading", Values: pub})
		}
		c, err := GroupedBar(BarSpec{
			Common: Common{ID: group.id, Title: group.title, Subtitle: WhatIfSubtitle(subtitle, w), Height: "460px"},
			XName:  "the paper's number", YName: group.yName, Categories: cats,
			Series: series, Paper: paper,
		})
		if err != nil {
			return Figure{}, err
		}
		fig.Charts = append(fig.Charts, c)
	}
	return fig, nil
}

// idLabel is a paper id as an axis label for a reader, one part a line:
// "fig9a.throughput_speedup_geomean.vs_relay_only" -> "Fig. 9(a)\nthroughput geomean\nvs RelayOnly".
func idLabel(id string) string {
	words := map[string]string{
		"intro": "§I", "throughput_speedup_geomean": "throughput geomean", "throughput_speedup": "throughput",
		"e2e_reduction_pct": "E2E reduction", "kv_cache_gb": "KV cache", "llama4_4k_1m": "Llama 4, 4K/1M",
	}
	parts := strings.Split(id, ".")
	for i, p := range parts {
		switch {
		case words[p] != "":
			parts[i] = words[p]
		case strings.HasPrefix(p, "vs_"):
			parts[i] = "vs " + SystemName(strings.ReplaceAll(strings.TrimPrefix(p, "vs_"), "_", "-"))
		case len(p) == 5 && strings.HasPrefix(p, "fig") && p[3] >= '0' && p[3] <= '9':
			parts[i] = fmt.Sprintf("Fig. %c(%c)", p[3], p[4])
		case len(p) > 1 && p[0] == 'b' && strings.Trim(p[1:], "0123456789") == "":
			parts[i] = "B = " + p[1:]
		default:
			parts[i] = strings.ReplaceAll(p, "_", " ")
		}
	}
	return strings.Join(parts, "\n")
}
