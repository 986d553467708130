package report

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/reference/reproduce"
	"github.com/dashlab/dashlab/summary"
)

// Options are what the page shows beyond the reproduction itself.
type Options struct {
	// Command is the command line that made the report, shown on the page.
	Command string
	// Elapsed is the wall time of the whole reproduction (Report.Elapsed has it per group).
	Elapsed time.Duration
	// Err is the reproduction's error, if any (reproduce.Run returns rows and an error).
	Err error
}

// section adds one part of the page from the reproduction (nothing when the
// reproduction did not compute it).
type section func(p *charts.Page, rep reproduce.Report) error

// sections are the page's parts after the summary, in order.
var sections = []section{
	readingsSection, catalogueSection, gpuSection, fig9Sections, fig11Section, fig12Section, servingSection,
	fig10Section, costSection, energySection, enduranceSection, clusterSection, routingSection, assumptionSection, routeSection,
}

// Build lays the reproduction out on a page: a summary by id group, every figure the
// artifacts allow, the full paper-vs-simulated table (ids not simulated yet listed as
// such) and the run's timings.
func Build(rep reproduce.Report, o Options) (*charts.Page, error) {
	simulated, passed, pending := rep.Summary()
	intro := []string{
		fmt.Sprintf("%d numbers the paper publishes: %d simulated (%d pass, %d fail), %d not simulated yet. "+
			"Beyond Capacity: Scalable MoE LLM Inference via High-Bandwidth Flash with Direct GPU and HBM Paths (DASH), reproduced with the dashlab engine.",
			len(rep.Rows), simulated, passed, simulated-passed, pending),
	}
	if o.Command != "" {
		intro = append(intro, "Made by: "+o.Command)
	}
	p := charts.NewPage("DASH reproduction report", intro...)
	if o.Err != nil {
		p.Section("Errors", "The reproduction reported errors; the figures and rows below are what it produced:", o.Err.Error())
	}
	p.Section("Summary").HTML(charts.HTMLTable("Paper ids by group", []string{"Group", "Pass", "Fail", "Not simulated yet", "Verdict"}, groupRows(rep.Rows)))
	if rep.Artifacts.BoundNote != "" {
		p.Text(rep.Artifacts.BoundNote)
	}
	for _, s := range sections {
		if err := s(p, rep); err != nil {
			return nil, err
		}
	}
	p.Section("Paper vs simulated: every published number",
		"Each number of reference/paper.yaml with the engine's value; deviations are simulated minus paper, tolerances absolute. Ids no part of the engine simulates yet are listed as such.")
	p.HTML(charts.PaperTable("", rep.Rows))
	p.Section("Run timings").HTML(charts.HTMLTable("Wall time", []string{"Step", "Time"}, timingRows(rep, o.Elapsed)))
	return p, p.Err()
}

// groupRows tallies the rows' verdicts by id group (the id up to its first dot).
func groupRows(rows []summary.Row) [][]string {
	tallies := map[string]map[summary.Status]int{}
	var order []string
	for _, r := range rows {
		g := r.ID
		if i := strings.IndexByte(g, '.'); i > 0 {
			g = g[:i]
		}
		if tallies[g] == nil {
			tallies[g] = map[summary.Status]int{}
			order = append(order, g)
		}
		tallies[g][r.Status()]++
	}
	var out [][]string
	for _, g := range order {
		t := tallies[g]
		verdict := summary.StatusPass
		switch {
		case t[summary.StatusFail] > 0:
			verdict = summary.StatusFail
		case t[summary.StatusPass] == 0 && t[summary.StatusSimulated] > 0:
			verdict = summary.StatusSimulated // beyond the paper: nothing to judge by
		case t[summary.StatusPass] == 0:
			verdict = summary.StatusNotSimulated
		}
		// reported rows are in the full table, not a verdict
		out = append(out, []string{g, fmt.Sprint(t[summary.StatusPass]), fmt.Sprint(t[summary.StatusFail]),
			fmt.Sprint(t[summary.StatusNotSimulated] + t[summary.StatusWhatIf]), string(verdict)})
	}
	return out
}

// timingRows are the wall times of the groups, of what only the figures need, and of
// the whole run.
func timingRows(rep reproduce.Report, whole time.Duration) [][]string {
	var rows [][]string
	var sum time.Duration
	for _, n := range sortedKeys(rep.Elapsed) {
		rows = append(rows, []string{"reproduce group " + n, fmtDuration(rep.Elapsed[n])})
		sum += rep.Elapsed[n]
	}
	for _, n := range sortedKeys(rep.Artifacts.FigureTime) {
		rows = append(rows, []string{"figures: " + n, fmtDuration(rep.Artifacts.FigureTime[n])})
	}
	if whole > 0 {
		return append(rows, []string{"reproduce, whole run", fmtDuration(whole)})
	}
	return append(rows, []string{"reproduce groups, sum", fmtDuration(sum)})
}

func sortedKeys(m map[string]time.Duration) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func fmtDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	default:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
}

// Write builds the report (Build) and writes it to DIR/index.html, one self-contained
// offline page with the ECharts library inlined once. It returns the page's path.
func Write(dir string, rep reproduce.Report, o Options) (string, error) {
	if dir == "" {
		return "", errors.New("report: Write: empty directory")
	}
	p, err := Build(rep, o)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "index.html")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return path, p.WriteFile(path)
}
