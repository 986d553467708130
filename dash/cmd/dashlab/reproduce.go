package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dashlab/dashlab/reference/report"
	"github.com/dashlab/dashlab/reference/reproduce"
	"github.com/dashlab/dashlab/summary"
)

func init() {
	register(&command{name: "reproduce", summary: "run the engine behind every number the paper publishes and compare", run: runReproduce})
}

func runReproduce(args []string, _ io.Reader, stdout, stderr io.Writer) (err error) {
	fs := newFlags("reproduce", "reproduce [--only PREFIX] [--format table|json|csv] [--perf] [--workers N] [--out DIR [--assumptions]] [--quiet] [--no-cache]", stderr)
	only := fs.String("only", "", "reproduce only the ids that start with PREFIX (e.g. fig9, table2.)")
	format := fs.String("format", "table", "output format: table, json or csv (one row per paper id)")
	perf := fs.Bool("perf", false, "with --format json: add each group's wall time (elapsed_s), which differs from run to run")
	workers := fs.Int("workers", 0, "simulations run at once (0: one per CPU)")
	out := fs.String("out", "", "also write the HTML report, DIR/index.html: every figure, the full table and the timings, one offline page")
	assumptions := fs.Bool("assumptions", false, "with --out: also run the assumption study (the memory-system groups again with the HBM array rate and the TSV rate at half and twice their assumed values, under the paper reading) into the report's assumption table; several times the run's time")
	quiet := fs.Bool("quiet", false, "no progress on stderr (shown after two seconds otherwise)")
	noCache := fs.Bool("no-cache", false, "recompute, neither reading nor storing the result cache (a second run of the same command with the same binary prints the stored output; 'dashlab cache clear' empties it)")
	if err := parseNoArgs(fs, args, format); err != nil {
		return err
	}
	if err := checkWorkers(*workers); err != nil {
		return err
	}
	if *assumptions && *out == "" {
		return fmt.Errorf("reproduce: --assumptions draws the report's assumption table: give --out DIR too")
	}
	var cache *reproduceCache
	if !*noCache {
		cache = openReproduceCache(args, stderr)
		if cache.replay(*out, stdout, stderr) {
			return nil
		}
		stdout = cache.record(stdout)
	}
	defer limitMemory()()
	start := time.Now()
	opts := reproduce.Options{Only: *only, Workers: *workers, Figures: *out != "", Assumptions: *assumptions}
	var prog *reproduceProgress
	if !*quiet {
		prog = newReproduceProgress(stderr)
		opts.Progress, opts.SimProgress = prog.groupStarted, prog.simsDone
	}
	rep, err := reproduce.Run(opts)
	if prog != nil {
		prog.finish()
	}
	if err != nil && len(rep.Rows) == 0 {
		return err
	}
	if *out != "" {
		path, rerr := report.Write(*out, rep, report.Options{
			Command: strings.Join(append([]string{"dashlab reproduce"}, args...), " "),
			Elapsed: time.Since(start), Err: err,
		})
		if rerr != nil {
			return errors.Join(err, fmt.Errorf("writing the report: %w", rerr))
		}
		fmt.Fprintf(stderr, "dashlab reproduce: wrote %s\n", path)
		cache.addFile(path)
	}
	defer func() { cache.store(err, time.Since(start)) }()
	switch *format {
	case "json":
		if rep.Rows == nil {
			rep.Rows = []summary.Row{}
		}
		out := reproduceJSON{Rows: rep.Rows}
		if *perf {
			out.ElapsedS = map[string]float64{}
			for g, d := range rep.Elapsed {
				out.ElapsedS[g] = d.Seconds()
			}
		}
		return errors.Join(writeJSON(stdout, out), err)
	case "csv":
		var rows [][]string
		for _, r := range rep.Rows {
			sim, dev, pass := "", "", ""
			if r.Simulated != nil {
				sim = csvFloat(*r.Simulated)
			}
			if r.Deviation != nil {
				dev = csvFloat(*r.Deviation)
			}
			if r.Pass != nil {
				pass = fmt.Sprint(*r.Pass)
			}
			rows = append(rows, []string{r.ID, r.Unit, r.Section, csvFloat(r.Paper), sim, dev, csvFloat(r.Tolerance), pass, r.Reading, r.Detail})
		}
		return errors.Join(writeCSV(stdout, []string{"id", "unit", "section", "paper", "simulated", "deviation", "tolerance", "pass", "reading", "detail"}, rows), err)
	}
	t := &table{}
	t.add("id", "unit", "paper", "simulated", "deviation", "tolerance", "pass")
	for _, r := range rep.Rows {
		sim, dev, pass := "not simulated yet", "", ""
		if r.Simulated != nil {
			sim, pass = num(*r.Simulated), "reported"
			if r.Deviation != nil {
				dev = signed(*r.Deviation)
			}
			if r.SimulatedOnly {
				pass = "simulated"
			}
			if r.Pass != nil {
				pass = map[bool]string{true: "PASS", false: "FAIL"}[*r.Pass]
			}
		}
		tol := "±" + num(r.Tolerance)
		if r.AtMost != nil { // a bound: any value up to it passes, the paper's is a reference
			tol, dev = "<="+num(*r.AtMost), "(bound)"
		}
		paper := num(r.Paper)
		if r.SimulatedOnly {
			paper, tol = "-", "-"
		}
		t.add(r.ID, r.Unit, paper, sim, dev, tol, pass)
	}
	t.write(stdout)
	simulated, passed, pending := rep.Summary()
	beyond := summary.Tally(rep.Rows)[summary.StatusSimulated]
	fmt.Fprintf(stdout, "\n%d ids: %d simulated (%d pass, %d fail), %d not simulated yet, %d beyond the paper (simulated only, nothing to judge by); %d reported beside them (other readings of t_R and variants, not checked)\n",
		len(rep.Rows)-rep.Reported(), simulated, passed, simulated-passed, pending, beyond, rep.Reported())
	names := make([]string, 0, len(rep.Elapsed))
	for n := range rep.Elapsed {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(stdout, "  %s: %v\n", n, rep.Elapsed[n].Round(1e6))
	}
	return err
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

func signed(x float64) string {
	s := strconv.FormatFloat(x, 'g', 4, 64)
	if x >= 0 {
		s = "+" + s
	}
	return s
}

// reproduceJSON is the JSON result of reproduce: every row and, with --perf, each
// group's wall time.
type reproduceJSON struct {
	Rows     []summary.Row      `json:"rows"`
	ElapsedS map[string]float64 `json:"elapsed_s,omitempty"`
}
