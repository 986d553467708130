package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/reference"
)

func init() {
	register(&command{name: "serve", summary: "simulate continuous-batching serving (Poisson load or a trace)", run: runServe})
}

// serveOutput is the JSON form of a serve command.
type serveOutput struct {
	Model       string          `json:"model"`
	System      string          `json:"system"`
	Scheduler   serve.Scheduler `json:"scheduler"`
	Knobs       []dash.Setting  `json:"knobs,omitempty"`
	Trace       string          `json:"trace,omitempty"`
	Load        float64         `json:"load,omitempty"`
	Baseline    string          `json:"baseline,omitempty"`
	BaselineRPS float64         `json:"baseline_rps,omitempty"`
	RateRPS     float64         `json:"rate_rps,omitempty"`
	Approx      serve.Approx    `json:"approx"`
	Runs        []serveRun      `json:"runs"`
	Interrupted bool            `json:"interrupted"`
}

type serveRun struct {
	Seed        uint64            `json:"seed,omitempty"`
	Requests    int               `json:"requests"`
	Completed   int               `json:"completed"`
	Rejected    int               `json:"rejected"`
	Rejections  []serve.Rejection `json:"rejections,omitempty"`
	Summary     serve.Summary     `json:"summary"`
	Passes      int               `json:"passes"`
	Replays     int               `json:"replayed_passes"`
	SimTimeS    float64           `json:"sim_time_s"`
	WallS       float64           `json:"wall_s,omitempty"`
	Interrupted bool              `json:"interrupted"`
	// Routing is what per-token routing did (workload.routing kinds trace
	// and synthetic; absent for the formula kinds).
	Routing *sim.RoutingStats `json:"routing,omitempty" csv:"-"`
}

func runServe(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("serve", "serve --model ID --system ID (--rate R | --load F | --trace FILE) [--requests N --warmup W --seeds K] [--mode mixed|serial] [--set PATH=VALUE ...] [--format table|json|csv]", stderr)
	model := fs.String("model", "qwen3-235b-a22b", "catalogue model id (see 'dashlab models')")
	system := fs.String("system", "dash", "named system: dash, relay-only, direct-only, compact-dash, ...")
	gpuID := fs.String("gpu", reference.DefaultGPU, "GPU whose timings are used")
	rate := fs.Float64("rate", 0, fmt.Sprintf("Poisson arrival rate in requests per second (2 x requests / %g s, so that every arrival falls within %g s, to %g)", serve.MaxArrivalSeconds, serve.MaxArrivalSeconds, serve.MaxRate))
	load := fs.Float64("load", 0, "offered load as a fraction of the baseline's Mixed backlogged throughput (above 0, at most 100; the rate it gives is bounded as --rate)")
	baseline := fs.String("baseline", "relay-only", "system whose backlogged throughput defines --load 1")
	trace := fs.String("trace", "", fmt.Sprintf("replay a trace file (.csv or .jsonl: arrival_s, prompt_tokens, output_tokens; at most %d requests, %d MiB)", serve.MaxRequests, serve.MaxTraceBytes>>20))
	requests := fs.Int("requests", 1152, fmt.Sprintf("requests per Poisson trace, warm-up included (warmup + 2 to %d over all seeds)", serve.MaxRequests))
	warmup := fs.Int("warmup", 128, "warm-up requests discarded from the metrics (0 to requests - 2)")
	seeds := fs.Int("seeds", 1, "Poisson traces (seeds 1..K, K from 1 to 1000)")
	prompt := fs.String("prompt", "4096", fmt.Sprintf("prompt tokens: N or MIN..MAX (uniform); prompt + output within the model's max_context and %d", serve.MaxTokens))
	output := fs.String("output", "128", fmt.Sprintf("output tokens: N or MIN..MAX (uniform); at most %d output tokens over all requests and seeds", serve.MaxGeneratedTokens))
	mode := fs.String("mode", "mixed", "schedule: mixed or serial")
	maxBatch := fs.Int("max-batch", 32, "B_max: most active requests (1 to 65536)")
	budget := fs.Int("budget", 8192, "token budget per iteration (above --max-batch, below 16Mi)")
	chunk := fs.Int("chunk", 512, "prefill chunk tokens (1 to --budget)")
	quantum := fs.Int("approx-kv-quantum", 0, fmt.Sprintf("optional approximation: round decode contexts to this many tokens (0: exact; at most %d)", serve.MaxTokens))
	format := fs.String("format", "table", "output format: table, json or csv")
	perf := fs.Bool("perf", false, "with --format json: add each run's wall time (wall_s), which differs from run to run")
	sets := addSetFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if *format != "table" && *format != "json" && *format != "csv" {
		return fmt.Errorf("%w: --format %q: want table, json or csv", errUsage, *format)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	sources := 0
	for _, n := range []string{"rate", "load", "trace"} {
		if set[n] {
			sources++
		}
	}
	if sources != 1 {
		return fmt.Errorf("%w: give exactly one of --rate, --load and --trace", errUsage)
	}
	if *trace != "" && (set["seeds"] || set["requests"] || set["prompt"] || set["output"]) {
		return fmt.Errorf("%w: --trace sets the requests: drop --seeds, --requests, --prompt and --output", errUsage)
	}
	if *seeds < 1 || *seeds > 1000 {
		return fmt.Errorf("%w: --seeds %d: want 1 to 1000", errUsage, *seeds)
	}
	if *warmup < 0 || *warmup > serve.MaxRequests {
		return fmt.Errorf("%w: --warmup %d: want 0 to %d", errUsage, *warmup, serve.MaxRequests)
	}
	if *trace == "" && (*requests < *warmup+2 || *requests > serve.MaxRequests / *seeds) {
		return fmt.Errorf("%w: --requests %d, --warmup %d, --seeds %d: want warmup + 2 <= requests (the offered rate needs two measured arrivals) and requests x seeds <= %d",
			errUsage, *requests, *warmup, *seeds, serve.MaxRequests)
	}
	if set["rate"] {
		if lo := serve.MinRate(*requests); !(*rate >= lo) || !(*rate <= serve.MaxRate) {
			return fmt.Errorf("%w: --rate %v: want %.3g to %g requests/s (%d requests arrive within %g s at the lower bound)", errUsage, *rate, lo, serve.MaxRate, *requests, serve.MaxArrivalSeconds)
		}
	}
	if set["load"] && (!(*load > 0) || *load > 100) {
		return fmt.Errorf("%w: --load %v: want a positive fraction of the baseline's throughput, at most 100", errUsage, *load)
	}
	m, err := serve.ParseMode(*mode)
	if err != nil {
		return fmt.Errorf("%w: --mode: %v", errUsage, err)
	}
	pl, err := parseLength(*prompt)
	if err != nil {
		return fmt.Errorf("%w: --prompt: %v", errUsage, err)
	}
	ol, err := parseLength(*output)
	if err != nil {
		return fmt.Errorf("%w: --output: %v", errUsage, err)
	}
	if *trace == "" {
		if g := float64(*seeds) * float64(*requests) * float64(max(ol.Min, ol.Max)); g > serve.MaxGeneratedTokens {
			return fmt.Errorf("%w: --seeds %d x --requests %d x --output %s: up to %.4g output tokens, more than the %d a serve run may generate (every inter-token gap is kept)",
				errUsage, *seeds, *requests, *output, g, serve.MaxGeneratedTokens)
		}
	}
	if *budget >= dash.MaxTokens {
		return fmt.Errorf("%w: --budget %d: want at most %d (the HBM workspace is sized for one pass of --budget prompt tokens and an output token)", errUsage, *budget, dash.MaxTokens-1)
	}
	sched := serve.Scheduler{MaxBatch: *maxBatch, TokenBudget: *budget, Chunk: *chunk, Mode: m}
	if err := sched.Validate(); err != nil {
		return fmt.Errorf("%w: --max-batch %d, --budget %d, --chunk %d: %v", errUsage, *maxBatch, *budget, *chunk, oneLineErr(err))
	}
	experiment := func(sys string, sets ...dash.Setting) (dash.Experiment, error) {
		return reference.Experiment(*model, sys).GPU(*gpuID).Batch(1).Prompt(*budget).Output(1).With(sets...).Build()
	}
	exp, err := experiment(*system, sets.list...) // the knobs change the system served, not the --load baseline
	if err != nil {
		return err
	}
	if mc := exp.Model().MaxContext; mc > 0 && *trace == "" && max(pl.Min, pl.Max)+max(ol.Min, ol.Max) > mc {
		return fmt.Errorf("%w: --prompt %s + --output %s: up to %d tokens, beyond model %s's max_context %d",
			errUsage, *prompt, *output, max(pl.Min, pl.Max)+max(ol.Min, ol.Max), exp.Model().ID, mc)
	}
	cfg := serve.Config{Experiment: exp, Scheduler: sched, Warmup: *warmup, Approx: serve.Approx{KVQuantum: *quantum}}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	out := serveOutput{Model: *model, System: *system, Knobs: sets.list, Scheduler: sched, Trace: *trace, Approx: cfg.Approx}
	prog := newServeProgress(stderr)
	defer prog.finish()

	var traces [][]serve.Request
	switch {
	case *trace != "":
		reqs, err := serve.ReadTrace(*trace)
		if err != nil {
			return err
		}
		if *warmup >= len(reqs)-1 {
			return fmt.Errorf("%w: --warmup %d: the trace has %d requests; at least two must be measured (the offered rate needs two arrivals)", errUsage, *warmup, len(reqs))
		}
		if first, last := reqs[*warmup].Arrival, reqs[len(reqs)-1].Arrival; last == first {
			return fmt.Errorf("%s: the %d measured requests all arrive at %v s: the offered rate is undefined (a burst is a backlog: measure it with --load, or spread the arrivals)",
				*trace, len(reqs)-*warmup, first.Seconds())
		}
		traces = append(traces, reqs)
	default:
		r := *rate
		if set["load"] {
			bexp, err := experiment(*baseline)
			if err != nil {
				return err
			}
			bs := sched
			bs.Mode = serve.Mixed
			prog.phase("saturation of " + *baseline)
			sat, err := serve.MeasureSaturation(ctx, serve.Config{Experiment: bexp, Scheduler: bs, Warmup: *warmup,
				Measure: *requests - *warmup, Approx: cfg.Approx}, pl, ol, 1)
			if err != nil {
				if ctx.Err() != nil {
					return errors.New("interrupted while measuring the baseline's saturation: nothing measured")
				}
				return err
			}
			out.Load, out.Baseline, out.BaselineRPS = *load, *baseline, sat.RPS
			r = *load * sat.RPS
			if lo := serve.MinRate(*requests); !(r >= lo) || !(r <= serve.MaxRate) {
				return fmt.Errorf("%w: --load %v of %s's %.4g requests/s is %.4g requests/s: want %.3g to %g (%d requests arrive within %g s at the lower bound)",
					errUsage, *load, *baseline, sat.RPS, r, lo, serve.MaxRate, *requests, serve.MaxArrivalSeconds)
			}
		}
		out.RateRPS = r
		for s := range *seeds {
			reqs, err := serve.Poisson(r, *requests, pl, ol, uint64(s+1))
			if err != nil {
				return fmt.Errorf("%w: %v", errUsage, err)
			}
			if first, last := reqs[*warmup].Arrival, reqs[len(reqs)-1].Arrival; last == first {
				return fmt.Errorf("%w: --rate %v: the measured requests of seed %d all arrive at %v s (arrivals are whole nanoseconds): lower the rate", errUsage, r, s+1, first.Seconds())
			}
			traces = append(traces, reqs)
		}
	}
	total := 0
	for _, t := range traces {
		total += len(t)
	}
	prog.phase("serving")
	prog.total(total)
	runs := make([]*serve.Run, len(traces))
	errs := make([]error, len(traces))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, reqs := range traces {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			runs[i], errs[i] = serve.Simulate(ctx, cfg, reqs, func(p serve.Progress) { prog.update(i, p) })
		})
	}
	wg.Wait()
	prog.finish()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	var notStarted []string
	out.Runs, notStarted, out.Interrupted = serveRows(runs, *trace != "")
	switch *format {
	case "json":
		if !*perf {
			for i := range out.Runs {
				out.Runs[i].WallS = 0
			}
		}
		err = writeJSON(stdout, out)
	case "csv":
		err = writeServeCSV(stdout, out)
	default:
		printServe(stdout, out)
	}
	if err == nil && out.Interrupted {
		msg := "interrupted: the numbers above cover the requests finished so far"
		if len(notStarted) > 0 {
			what := "seed"
			if len(notStarted) > 1 {
				what = "seeds"
			}
			msg += fmt.Sprintf("; %s %s never started and has no row", what, strings.Join(notStarted, ", "))
			if len(out.Runs) == 0 {
				msg = "interrupted before any run started: nothing measured"
			}
		}
		err = errors.New(msg)
	}
	return err
}

// serveRows turns the runs into rows, seeds numbered from 1 unless the runs
// replay a trace. A run interrupted before it did anything (a seed still
// waiting for a CPU when Ctrl-C came) has no numbers: it gets no row and is
// listed in notStarted instead, so that no row of zeros stands for it.
func serveRows(runs []*serve.Run, trace bool) (rows []serveRun, notStarted []string, interrupted bool) {
	for i, run := range runs {
		interrupted = interrupted || run.Interrupted
		if run.Interrupted && run.Iters == 0 && run.Completed == 0 && len(run.Rejections) == 0 {
			notStarted = append(notStarted, strconv.Itoa(i+1))
			continue
		}
		r := serveRun{Requests: run.Requests, Completed: run.Completed, Rejected: len(run.Rejections), Rejections: run.Rejections,
			Summary: run.Summarize(), Passes: run.Passes, Replays: run.Replays, SimTimeS: run.SimTime.Seconds(),
			WallS: run.Wall.Seconds(), Interrupted: run.Interrupted, Routing: run.Routing}
		if !trace {
			r.Seed = uint64(i + 1)
		}
		rows = append(rows, r)
	}
	return rows, notStarted, interrupted
}

// parseLength reads "N" or "MIN..MAX".
func parseLength(s string) (serve.Length, error) {
	lo, hi, ranged := strings.Cut(s, "..")
	a, err := strconv.Atoi(strings.TrimSpace(lo))
	if err != nil {
		return serve.Length{}, fmt.Errorf("%q: want N or MIN..MAX tokens", s)
	}
	if !ranged {
		return serve.Fixed(a), nil
	}
	b, err := strconv.Atoi(strings.TrimSpace(hi))
	if err != nil {
		return serve.Length{}, fmt.Errorf("%q: want N or MIN..MAX tokens", s)
	}
	return serve.Uniform(a, b), nil
}

func printServe(w io.Writer, o serveOutput) {
	fmt.Fprintf(w, "%s on %s, %v: B_max %d, budget %d, chunk %d", o.Model, o.System, o.Scheduler.Mode, o.Scheduler.MaxBatch, o.Scheduler.TokenBudget, o.Scheduler.Chunk)
	switch {
	case o.Trace != "":
		fmt.Fprintf(w, ", trace %s\n", o.Trace)
	case o.Baseline != "":
		fmt.Fprintf(w, ", load %.4g of %s's %.4g req/s = %.4g req/s\n", o.Load, o.Baseline, o.BaselineRPS, o.RateRPS)
	default:
		fmt.Fprintf(w, ", %.4g req/s\n", o.RateRPS)
	}
	if o.Approx.KVQuantum > 0 {
		fmt.Fprintf(w, "approximate passes: decode contexts rounded to %d tokens\n", o.Approx.KVQuantum)
	}
	t := &table{}
	t.add("seed", "done", "rejected", "TTFT p50/p90/p99 s", "TPOT p50/p90/p99 ms", "E2E p50/p90/p99 s", "queue mean s", "offered/completed req/s", "passes (replayed)", "wall")
	for _, r := range o.Runs {
		s := r.Summary
		seed := fmt.Sprint(r.Seed)
		if r.Seed == 0 {
			seed = "trace"
		}
		t.add(seed, fmt.Sprintf("%d/%d", r.Completed, r.Requests), fmt.Sprint(r.Rejected),
			fmt.Sprintf("%.3f/%.3f/%.3f", s.TTFTs.P50, s.TTFTs.P90, s.TTFTs.P99),
			fmt.Sprintf("%.1f/%.1f/%.1f", s.TPOTms.P50, s.TPOTms.P90, s.TPOTms.P99),
			fmt.Sprintf("%.3f/%.3f/%.3f", s.E2Es.P50, s.E2Es.P90, s.E2Es.P99),
			fmt.Sprintf("%.3f", s.Queues.Mean), fmt.Sprintf("%.4g/%.4g", s.OfferedRPS, s.ThroughputRPS),
			fmt.Sprintf("%d (%d)", r.Passes, r.Replays), fmt.Sprintf("%.2fs", r.WallS))
	}
	t.write(w)
	for _, r := range o.Runs {
		if r.Routing != nil {
			printRouting(w, r.Routing)
		}
	}
	for _, r := range o.Runs {
		for _, rj := range r.Rejections {
			fmt.Fprintf(w, "rejected request %d: %s\n", rj.ID, rj.Reason)
		}
	}
}

func writeServeCSV(w io.Writer, o serveOutput) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"model", "system", "mode", "seed", "rate_rps", "requests", "completed", "rejected",
		"ttft_p50_s", "ttft_p90_s", "ttft_p99_s", "tpot_p50_ms", "tpot_p90_ms", "tpot_p99_ms",
		"e2e_p50_s", "e2e_p90_s", "e2e_p99_s", "queue_mean_s", "offered_rps", "throughput_rps", "interrupted"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 8, 64) }
	for _, r := range o.Runs {
		s := r.Summary
		cw.Write([]string{o.Model, o.System, o.Scheduler.Mode.String(), fmt.Sprint(r.Seed), f(o.RateRPS), fmt.Sprint(r.Requests),
			fmt.Sprint(r.Completed), fmt.Sprint(r.Rejected), f(s.TTFTs.P50), f(s.TTFTs.P90), f(s.TTFTs.P99),
			f(s.TPOTms.P50), f(s.TPOTms.P90), f(s.TPOTms.P99), f(s.E2Es.P50), f(s.E2Es.P90), f(s.E2Es.P99),
			f(s.Queues.Mean), f(s.OfferedRPS), f(s.ThroughputRPS), strconv.FormatBool(r.Interrupted)})
	}
	cw.Flush()
	return cw.Error()
}

// serveProgress draws a progress bar on stderr once a run has taken two
// seconds: requests done, simulated time, rate and ETA.
type serveProgress struct {
	mu      sync.Mutex
	w       io.Writer
	start   time.Time
	name    string
	n       int
	done    map[int]int
	simTime map[int]float64
	bar     *progressbar.ProgressBar
}

func newServeProgress(w io.Writer) *serveProgress {
	return &serveProgress{w: w, start: time.Now(), done: map[int]int{}, simTime: map[int]float64{}}
}

func (p *serveProgress) phase(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.name = name
	if p.bar == nil && time.Since(p.start) > 2*time.Second {
		fmt.Fprintf(p.w, "%s...\n", name)
	}
}

func (p *serveProgress) total(n int) { p.mu.Lock(); p.n = n; p.mu.Unlock() }

func (p *serveProgress) update(run int, pr serve.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done[run], p.simTime[run] = pr.Done, pr.SimTime.Seconds()
	if p.bar == nil {
		if time.Since(p.start) < 2*time.Second {
			return
		}
		p.bar = progressbar.NewOptions(p.n, progressbar.OptionSetWriter(p.w), progressbar.OptionShowCount(),
			progressbar.OptionShowIts(), progressbar.OptionSetItsString("req"), progressbar.OptionSetPredictTime(true),
			progressbar.OptionThrottle(200*time.Millisecond), progressbar.OptionClearOnFinish())
	}
	done, sim := 0, 0.0
	for k, d := range p.done {
		done += d
		sim += p.simTime[k]
	}
	p.bar.Describe(fmt.Sprintf("%s: %.0f s simulated", p.name, sim))
	p.bar.Set(done)
}

func (p *serveProgress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		fmt.Fprintln(p.w)
		p.bar = nil
	}
}
