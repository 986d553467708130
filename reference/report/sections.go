package report

import (
	"fmt"
	"strings"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference/reproduce"
	"github.com/dashlab/dashlab/summary"
)

// Each section draws one summary of the reproduction with its charts function, and
// draws nothing when the reproduction did not compute it.

// figureTo returns a function that adds a figure to the page, or returns the error it
// came with: figureTo(p)(charts.Fig1(c)).
func figureTo(p *charts.Page) func(charts.Figure, error) error {
	return func(f charts.Figure, err error) error {
		if err != nil {
			return err
		}
		p.Figure(f)
		return nil
	}
}

// readingsSection tallies, per id group, the ids each reading of t_R passes, and says
// which reading is checked and why.
func readingsSection(p *charts.Page, rep reproduce.Report) error {
	tally := summary.ReadingTally(rep.Rows)
	if len(tally) == 0 {
		return nil
	}
	var names []string
	for _, rd := range dash.Readings() {
		names = append(names, rd.String())
	}
	p.Section("Three readings of t_R", reproduce.CheckedReadingNote)
	p.HTML(charts.ReadingTallyTable("Paper ids computed under every reading of t_R: how many each reading passes (the checked reading's verdicts; "+
		"the others' values against the same tolerances)", names, tally))
	return nil
}

// assumptionSection draws the assumption table (reproduce --assumptions): which ids
// rest on the parameters the paper never states.
func assumptionSection(p *charts.Page, rep reproduce.Report) error {
	t := rep.Artifacts.Assumptions
	if t == nil || len(t.Rows) == 0 {
		return nil
	}
	var srcs []string
	for _, a := range t.Params {
		srcs = append(srcs, fmt.Sprintf("%s (%s, assumed %s: %s)", a.Label, a.Path, a.Default, a.Source))
	}
	p.Section("What the unstated parameters move",
		"The paper never states two rates the memory system needs: "+strings.Join(srcs, "; ")+". "+
			"Every memory-system id under the paper reading, rerun with each at half and at twice its assumed value, the ids that move most first; "+
			fmt.Sprintf("an asterisk marks a verdict that differs from the checked value's (%d of the table's cells).", t.VerdictChanges()))
	p.HTML(charts.AssumptionTable("Each id with the HBM array rate and the TSV rate at half and twice their assumed values (paper reading)", t))
	return nil
}

func catalogueSection(p *charts.Page, rep reproduce.Report) error {
	c := rep.Artifacts.Catalogue
	if len(c.Models) == 0 {
		return nil
	}
	if err := figureTo(p)(charts.Fig1(c)); err != nil {
		return err
	}
	return figureTo(p)(charts.Table2(c))
}

func gpuSection(p *charts.Page, rep reproduce.Report) error {
	if len(rep.Artifacts.GPU.Checks) == 0 {
		return nil
	}
	return figureTo(p)(charts.GPUTiming(rep.Artifacts.GPU))
}

func fig9Sections(p *charts.Page, rep reproduce.Report) error {
	if vals := reproduce.ReadingValues(rep.Rows, "fig9a.", "intro.b4.", "fig9b."); len(vals) > 0 && len(rep.Artifacts.Fig9Bounds) > 0 {
		if err := figureTo(p)(charts.Fig9Readings(rep.Artifacts.Fig9Bounds, vals)); err != nil {
			return err
		}
	}
	for _, fn := range []struct {
		sum  summary.Fig9
		draw func(summary.Fig9) (charts.Figure, error)
	}{{rep.Artifacts.Fig9[dash.ReadingPaper].A, charts.Fig9a}, {rep.Artifacts.Fig9[dash.ReadingPaper].B, charts.Fig9b}} {
		if len(fn.sum.Points) == 0 {
			continue
		}
		if err := figureTo(p)(fn.draw(fn.sum)); err != nil {
			return err
		}
	}
	return nil
}

func fig11Section(p *charts.Page, rep reproduce.Report) error {
	pairs := rep.Artifacts.Fig11[dash.ReadingPaper]
	if len(pairs) == 0 {
		return nil
	}
	return figureTo(p)(charts.Fig11(pairs))
}

func fig12Section(p *charts.Page, rep reproduce.Report) error {
	if rep.Artifacts.Fig12 == nil {
		return nil
	}
	return figureTo(p)(charts.Fig12(rep.Artifacts.Fig12))
}

// servingSection draws the serving study under each reading it ran, with the rows of
// its table3.* and serving.* ids under that reading.
func servingSection(p *charts.Page, rep reproduce.Report) error {
	for _, rd := range dash.Readings() {
		res := rep.Artifacts.Serving[rd]
		if res == nil {
			continue
		}
		var rows []summary.Row
		for _, r := range rep.Rows {
			if (hasPrefix(r.ID, "table3.") || hasPrefix(r.ID, "serving.")) && readingOf(r) == rd {
				rows = append(rows, r)
			}
		}
		if err := figureTo(p)(charts.Table3(res, rows, reproduce.ReadingSuffix(rd))); err != nil {
			return err
		}
	}
	return nil
}

func fig10Section(p *charts.Page, rep reproduce.Report) error {
	f := rep.Artifacts.Fig10[dash.ReadingPaper]
	if f == nil {
		return nil
	}
	if err := figureTo(p)(charts.Fig10(f)); err != nil {
		return err
	}
	if m := rep.Artifacts.Fig10Measured; m != nil { // the measured host's, reported beside the checked values
		return figureTo(p)(charts.Fig10(m))
	}
	return nil
}

func costSection(p *charts.Page, rep reproduce.Report) error {
	if rep.Artifacts.Cost == nil {
		return nil
	}
	return figureTo(p)(charts.CostFigure(*rep.Artifacts.Cost))
}

func energySection(p *charts.Page, rep reproduce.Report) error {
	if len(rep.Artifacts.Energy) == 0 {
		return nil
	}
	return figureTo(p)(charts.EnergyFigure(rep.Artifacts.Energy))
}

// clusterSection draws each cluster study (beyond the paper: DASH GPUs
// against the HBM-only GPUs one would buy instead).
func clusterSection(p *charts.Page, rep reproduce.Report) error {
	for _, s := range rep.Artifacts.Cluster {
		if err := figureTo(p)(charts.ClusterFigure(s)); err != nil {
			return err
		}
	}
	return nil
}

// routingSection draws each routing study (beyond the paper: per-token
// routing, skew and the HBM expert cache against balanced routing).
func routingSection(p *charts.Page, rep reproduce.Report) error {
	for _, s := range rep.Artifacts.Routing {
		if err := figureTo(p)(charts.RoutingFigure(s)); err != nil {
			return err
		}
	}
	return nil
}

func enduranceSection(p *charts.Page, rep reproduce.Report) error {
	if rep.Artifacts.Endurance == nil {
		return nil
	}
	return figureTo(p)(charts.EnduranceFigure(rep.Artifacts.Endurance))
}

// routeSection draws the traced layer on each system.
func routeSection(p *charts.Page, rep reproduce.Report) error {
	traces := rep.Artifacts.Traces
	if len(traces) == 0 {
		return nil
	}
	runs := make([]charts.NamedResult, len(traces))
	for i, r := range traces {
		runs[i] = charts.NamedResult{Name: charts.SystemName(r.System), Result: r}
	}
	f, err := charts.RouteFigure("route", runs)
	if err != nil {
		return err
	}
	t := traces[0]
	f.Caption = fmt.Sprintf("The same layer simulated on each system, traced: %s, B = %d, %d/%d tokens, pass %d (a decode step), layer %d. "+
		"Chunks of 4 MiB cross each link; DASH drains expert chunks over Direct and Relay at once.",
		t.Model, t.Batch, t.Prompt, t.Output, t.Timeline.Pass, t.Timeline.Layer)
	p.Figure(f)
	return nil
}

func hasPrefix(s, p string) bool { return len(s) >= len(p) && s[:len(p)] == p }

// readingOf is the reading of t_R a row was computed under.
func readingOf(r summary.Row) dash.Reading {
	for _, rd := range dash.Readings() {
		if r.Reading == rd.String() {
			return rd
		}
	}
	return dash.ReadingPaper
}
