package reproduce

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/dashlab/dashlab/charts"
	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/gpu"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// ReportOptions are what the HTML report shows beyond the reproduction itself.
type ReportOptions struct {
	// Traces are the traced runs drawn as route timelines; nil runs DefaultTraces.
	Traces []charts.NamedResult
	// Profile is the measured GPU profile of the timing-model figure; nil loads
	// reference.DefaultProfile (only when the report has the GPU validation).
	Profile *gpu.Profile
	// Command is the command line that made the report, shown on the page.
	Command string
	// Elapsed is the wall time of the whole reproduction (Report.Elapsed has it per group).
	Elapsed time.Duration
	// Err is the reproduction's error, if any (reproduce.Run returns rows and an error).
	Err error
}

// BuildReport assembles the reproduction report from the harness's rows and summaries
// (package charts supplies the page and draws the figures): a summary, every figure the
// reproduction's artifacts allow (Fig. 1, Table II, the GPU timing model, Fig. 9(a) and
// (b)), the route timelines of one traced layer, the full paper-vs-simulated table (ids
// not simulated yet listed as such) and the run's timings.
func BuildReport(rep Report, o ReportOptions) (*charts.Page, error) {
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
	timings := map[string]time.Duration{}

	// Summary by id prefix.
	type tally struct{ pass, fail, pending int }
	groups := map[string]*tally{}
	var order []string
	for _, r := range rep.Rows {
		g := r.ID
		if i := strings.IndexByte(g, '.'); i > 0 {
			g = g[:i]
		}
		if groups[g] == nil {
			groups[g] = &tally{}
			order = append(order, g)
		}
		switch charts.RowStatus(r) {
		case charts.Pass:
			groups[g].pass++
		case charts.Fail:
			groups[g].fail++
		case charts.Reported: // shown in the full table, not a verdict
		default:
			groups[g].pending++
		}
	}
	var srows [][]string
	for _, g := range order {
		t := groups[g]
		verdict := charts.Pass
		switch {
		case t.fail > 0:
			verdict = charts.Fail
		case t.pass == 0:
			verdict = charts.NotSimulated
		}
		srows = append(srows, []string{g, fmt.Sprint(t.pass), fmt.Sprint(t.fail), fmt.Sprint(t.pending), string(verdict)})
	}
	p.Section("Summary").HTML(charts.HTMLTable("Paper ids by group", []string{"Group", "Pass", "Fail", "Not simulated yet", "Verdict"}, srows))
	if note, err := ArrayBoundNote(); err == nil {
		p.Text(note)
	}

	if len(rep.Artifacts.Models) > 0 {
		f, err := charts.Fig1(rep.Artifacts.Models)
		if err != nil {
			return nil, err
		}
		p.Figure(f)
		t, err := charts.Table2(rep.Artifacts.Models)
		if err != nil {
			return nil, err
		}
		p.Figure(t)
	}
	if len(rep.Artifacts.GPUValidation) > 0 {
		start := time.Now()
		prof := o.Profile
		if prof == nil {
			var err error
			if prof, err = reference.LoadProfile(reference.DefaultProfile); err != nil {
				return nil, err
			}
		}
		checks, err := prof.HeldOutChecks()
		if err != nil {
			return nil, err
		}
		held, err := prof.HeldOut()
		if err != nil {
			return nil, err
		}
		byModel, _ := prof.HeldOutByModel() // a profile with one model's GEMMs has nothing to hold out
		sizes, err := prof.HeldOutSweep()
		if err != nil {
			return nil, err
		}
		jitter, err := prof.SweepJitter()
		if err != nil {
			return nil, err
		}
		h100, err := reference.Timing(reference.DefaultGPU)
		if err != nil {
			return nil, err
		}
		f, err := charts.GPUTiming(prof, checks, charts.GPUStats{LeaveOneOut: rep.Artifacts.GPUValidation, HeldOut: held, HeldOutByModel: byModel,
			HeldOutSizes: sizes, Repeats: prof.Repeats(), SizeJitter: jitter}, h100)
		if err != nil {
			return nil, err
		}
		p.Figure(f)
		timings["report: GPU held-out predictions"] = time.Since(start)
	}
	if vals := ReadingValues(rep.Rows, "fig9a.", "intro.b4.", "fig9b."); len(vals) > 0 {
		var bounds []summary.Fig9Bound
		for _, r := range dash.Readings() {
			b, err := ComputeFig9Bound(r)
			if err != nil {
				return nil, err
			}
			bounds = append(bounds, b)
		}
		f, err := charts.Fig9Readings(bounds, vals)
		if err != nil {
			return nil, err
		}
		p.Figure(f)
	}
	for _, fn := range []struct {
		sum   summary.Fig9
		build func(summary.Fig9) (charts.Figure, error)
	}{{rep.Artifacts.Fig9.A, charts.Fig9a}, {rep.Artifacts.Fig9.B, charts.Fig9b}} {
		if len(fn.sum.Points) == 0 {
			continue
		}
		f, err := fn.build(fn.sum)
		if err != nil {
			return nil, err
		}
		p.Figure(f)
	}
	if len(rep.Artifacts.Fig11) > 0 {
		f, err := charts.Fig11(rep.Artifacts.Fig11)
		if err != nil {
			return nil, err
		}
		p.Figure(f)
	}
	if rep.Artifacts.Fig12 != nil {
		f, err := charts.Fig12(rep.Artifacts.Fig12)
		if err != nil {
			return nil, err
		}
		p.Figure(f)
	}
	serving, err := servingFigures(rep)
	if err != nil {
		return nil, err
	}
	for _, f := range serving {
		p.Figure(f)
	}
	if err := addBeyondSections(p, rep.Artifacts); err != nil {
		return nil, err
	}
	traces := o.Traces
	if traces == nil {
		start := time.Now()
		var err error
		if traces, err = DefaultTraces(); err != nil {
			return nil, err
		}
		timings["report: traced runs"] = time.Since(start)
	}
	if len(traces) > 0 {
		f, err := charts.RouteFigure("route", traces)
		if err != nil {
			return nil, err
		}
		f.Caption = fmt.Sprintf("The same layer simulated on each system, traced: %s, B = %d, %d/%d tokens, pass %d (a decode step), layer %d. "+
			"Chunks of 4 MiB cross each link; DASH drains expert chunks over Direct and Relay at once.",
			traces[0].Result.Model, traces[0].Result.Batch, traces[0].Result.Prompt, traces[0].Result.Output,
			traces[0].Result.Timeline.Pass, traces[0].Result.Timeline.Layer)
		p.Figure(f)
	}

	p.Section("Paper vs simulated: every published number",
		"Each number of reference/paper.yaml with the engine's value; deviations are simulated minus paper, tolerances absolute. Ids no part of the engine simulates yet are listed as such.")
	p.HTML(charts.PaperTable("", rep.Rows))

	var trows [][]string
	names := make([]string, 0, len(rep.Elapsed))
	for n := range rep.Elapsed {
		names = append(names, n)
	}
	sort.Strings(names)
	var sum time.Duration
	for _, n := range names {
		trows = append(trows, []string{"reproduce group " + n, fmtDuration(rep.Elapsed[n])})
		sum += rep.Elapsed[n]
	}
	extra := make([]string, 0, len(timings))
	for n := range timings {
		extra = append(extra, n)
	}
	sort.Strings(extra)
	for _, n := range extra {
		trows = append(trows, []string{n, fmtDuration(timings[n])})
	}
	if o.Elapsed > 0 {
		trows = append(trows, []string{"reproduce, whole run", fmtDuration(o.Elapsed)})
	} else {
		trows = append(trows, []string{"reproduce groups, sum", fmtDuration(sum)})
	}
	p.Section("Run timings").HTML(charts.HTMLTable("Wall time", []string{"Step", "Time"}, trows))
	return p, p.Err()
}

func fmtDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	default:
		return fmt.Sprintf("%.1f ms", float64(d)/1e6)
	}
}

// WriteReport builds the report (BuildReport) and writes it to DIR/index.html, one
// self-contained offline page with the ECharts library inlined once. It returns the
// page's path.
func WriteReport(dir string, rep Report, o ReportOptions) (string, error) {
	if dir == "" {
		return "", errors.New("reproduce: WriteReport: empty directory")
	}
	p, err := BuildReport(rep, o)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "index.html")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return path, p.WriteFile(path)
}
