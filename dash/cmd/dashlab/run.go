package main

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/reference"
)

func init() {
	register(&command{name: "run", summary: "simulate one fixed-batch experiment", run: runRun})
}

func runRun(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("run", "run (--model ID --system ID [--batch B --prompt N --output N] | --file EXPERIMENT.yaml) [--gpu ID] [--set PATH=VALUE ...] [--format table|json|csv [--table classes|routes|links|hbf]] [--perf]", stderr)
	model := fs.String("model", "", "catalogue model id (see 'dashlab models')")
	system := fs.String("system", "dash", "named system (see 'dashlab systems'): dash, relay-only, direct-only, compact-dash, dash-N, ...")
	file := fs.String("file", "", "experiment YAML file (instead of --model/--system)")
	batch := fs.Int("batch", 4, "batch size B")
	prompt := fs.Int("prompt", 1024, "prompt tokens L_in")
	output := fs.Int("output", 128, "generated tokens L_out")
	gpuID := fs.String("gpu", reference.DefaultGPU, "GPU whose timings are used: h100-pcie (derived) or h200-sxm (measured)")
	sets := addSetFlag(fs)
	format := fs.String("format", "table", "output format: table, json (the whole result) or csv (one table of it, see --table)")
	tables := addTableFlag(fs, "classes", "routes", "links", "hbf")
	perf := fs.Bool("perf", false, "with --format json: add the simulation's wall time (wall_ns), which differs from run to run")
	sample := fs.Int("decode-sample", 0, "simulate one paged-KV block in N of a long decode and interpolate the rest (0: every block, exact; 16 suits 1M-token decodes)")
	maxEvents := fs.Int64("max-events", sim.DefaultMaxEvents, "event budget: the run stops with an error after this many events")
	maxWall := fs.Duration("max-wall", sim.DefaultMaxWall, "wall-clock budget: the run stops with an error after this long")
	if err := parseNoArgs(fs, args, format); err != nil {
		return err
	}
	if err := tables.check(); err != nil {
		return err
	}
	if *maxEvents <= 0 || *maxWall <= 0 {
		return fmt.Errorf("%w: --max-events = %d, --max-wall = %v: both must be positive", errUsage, *maxEvents, *maxWall)
	}
	if *file != "" {
		var clash []string
		for _, f := range setFlags(fs) {
			switch f {
			case "--model", "--system", "--batch", "--prompt", "--output", "--gpu":
				clash = append(clash, f)
			}
		}
		if len(clash) > 0 {
			return fmt.Errorf("%w: --file sets the whole experiment; %s cannot be combined with it (change the file, or --set a knob)",
				errUsage, strings.Join(clash, ", "))
		}
	}
	var exp dash.Experiment
	var err error
	switch {
	case *file != "":
		exp, err = reference.LoadExperiment(*file)
		if err == nil && len(sets.list) > 0 {
			exp, err = exp.Builder().Name(exp.Name()).With(sets.list...).Build()
		}
	case *model == "":
		return fmt.Errorf("%w: set --model (or --file)", errUsage)
	default:
		exp, err = reference.Experiment(*model, *system).GPU(*gpuID).Batch(*batch).Prompt(*prompt).Output(*output).With(sets.list...).Build()
	}
	if err != nil {
		return err
	}
	if *sample < 0 {
		return fmt.Errorf("%w: --decode-sample %d: must not be negative", errUsage, *sample)
	}
	res, err := sim.RunWith(exp, sim.Options{DecodeSample: *sample, MaxEvents: *maxEvents, MaxWall: *maxWall})
	if err != nil {
		return err
	}
	switch *format {
	case "json":
		if *perf {
			return writeJSON(stdout, struct {
				sim.Result
				WallNs int64 `json:"wall_ns"`
			}{res, res.Perf.Wall.Nanoseconds()})
		}
		return writeJSON(stdout, res)
	case "csv":
		return tables.pick(classTable(res), csvOf(res.Routes), csvOf(res.Links), csvOf(res.HBF)).write(stdout)
	}
	printResult(stdout, res)
	return nil
}

func printResult(w io.Writer, r sim.Result) {
	fmt.Fprintf(w, "%s on %s (GPU %s): B=%d, L_in=%d, L_out=%d\n", r.Model, r.System, r.GPU, r.Batch, r.Prompt, r.Output)
	tpot := r.TPOT.String()
	if r.Output < 2 {
		tpot = "n/a (L_out = 1: no decode step)"
	}
	fmt.Fprintf(w, "  TTFT %v   TPOT %s   E2E %v\n", r.TTFT, tpot, r.E2E)
	fmt.Fprintf(w, "  throughput %.1f tok/s (output tokens / E2E), decode %.1f tok/s\n", r.Throughput, r.DecodeThroughput)
	for _, ph := range []struct {
		name string
		p    sim.Phase
	}{{"prefill", r.Prefill}, {"decode", r.Decode}} {
		fmt.Fprintf(w, "\n%s (%v):\n", ph.name, ph.p.Duration)
		t := &table{}
		t.add("class", "ops", "time", "compute", "overhead", "stall")
		for _, c := range ph.p.Classes {
			if c.Ops == 0 {
				continue
			}
			t.add(c.Class.String(), fmt.Sprint(c.Ops), c.Time.String(), c.Compute.String(), c.Overhead.String(), c.Stall.String())
		}
		t.write(w)
	}
	fmt.Fprintln(w, "\nlinks:")
	t := &table{}
	t.add("pair", "link", "bytes", "busy", "utilization")
	for _, l := range r.Links {
		t.add(fmt.Sprint(l.Pair), l.Link, l.Bytes.String(), l.Busy.String(), fmt.Sprintf("%.1f%%", 100*l.Utilization))
	}
	t.write(w)
	fmt.Fprintln(w, "\nroutes:")
	t = &table{}
	t.add("route", "requested", "delivered")
	for _, rt := range r.Routes {
		t.add(rt.Route.String(), rt.Requested.String(), rt.Delivered.String())
	}
	t.write(w)
	if g := r.Routing; g != nil {
		printRouting(w, g)
	}
	if len(r.Extrapolated) > 0 {
		fmt.Fprintf(w, "\ntiming extrapolated beyond the measured profile for %d operator shapes, e.g. %s\n", len(r.Extrapolated), r.Extrapolated[0])
	}
	fmt.Fprintf(w, "\nsimulation: %d events, %d passes, %v wall\n", r.Perf.Events, r.Perf.Passes, r.Perf.Wall.Round(1e5))
}

// classTable is the per-class breakdown of both phases, with a phase column
// (prefill, decode) before the classes' own.
func classTable(r sim.Result) csvTable {
	t := csvTable{header: append([]string{"phase"}, csvOf([]sim.ClassTime(nil)).header...)}
	for _, ph := range []struct {
		name string
		p    sim.Phase
	}{{"prefill", r.Prefill}, {"decode", r.Decode}} {
		c := csvOf(ph.p.Classes)
		for _, row := range c.rows {
			t.rows = append(t.rows, append([]string{ph.name}, row...))
		}
		t.err = cmp.Or(t.err, c.err)
	}
	return t
}

// printRouting writes what per-token routing did (kinds trace and
// synthetic).
func printRouting(w io.Writer, g *sim.RoutingStats) {
	fmt.Fprintf(w, "\nrouting (%s, %s):\n", g.Kind, g.Source)
	fmt.Fprintf(w, "  distinct experts a decode layer reads: mean %.1f, median %d, %d to %d\n", g.DistinctMean, g.DistinctP50, g.DistinctMin, g.DistinctMax)
	fmt.Fprintf(w, "  selected experts over Direct %v, Relay %v, from the HBM cache %v\n", g.DirectBytes, g.RelayBytes, g.CachedBytes)
	if g.IdealTime > 0 {
		fmt.Fprintf(w, "  whole-expert assignment: T_Direct %v, T_Relay %v, max %v against %v split perfectly (%.1f%% imbalance)\n",
			g.DirectTime, g.RelayTime, g.MakespanTime, g.IdealTime, 100*g.Imbalance)
	}
	if g.StepMax > 0 { // the decode steps (serving: the passes that only decode)
		fmt.Fprintf(w, "  decode step P50 %v, P90 %v, P99 %v, max %v\n", g.StepP50, g.StepP90, g.StepP99, g.StepMax)
	}
	if c := g.Cache; c != nil {
		fmt.Fprintf(w, "  expert cache (%s, %v, %d experts): hit rate %.1f%%, %d fills (%v written)\n", c.Policy, c.Budget, c.Capacity, 100*c.HitRate, c.Fills, c.FillBytes)
	}
}
