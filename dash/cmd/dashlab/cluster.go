package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference/clusters"
	_ "github.com/dashlab/dashlab/reference/clusters/clustersweep" // sweeps of kind cluster
)

func init() {
	register(&command{name: "cluster", summary: "DASH at cluster scale: expert, tensor, pipeline and data parallelism against HBM-only GPUs", run: runCluster})
}

const clusterUsage = `cluster <list|run|serve|compare|check> [flags]

  list     the cluster catalogue (reference/clusters) and the shipped comparisons
  run      a fixed batch on one instance (and its copies) of a layout
  serve    continuous-batching serving on the instances behind a router; --prefill-memory for
           prefill/decode disaggregation
  compare  GPUs needed per contender for the same throughput within a P90 TPOT target
           (a comparison file, or a shipped one: --id qwen3-235b)
  check    the external check: a comparison file's published measurements of HBM-only
           deployments beside the simulation of the same deployment and workload

A layout comes from --file (a cluster experiment file, see reference/clusters/file.go) or flags,
and --set sets any knob ('dashlab knobs'). Sweeps of cluster experiments (axes over GPUs,
parallelism, placement, interconnect, memory; shards, resume, Slurm) are 'dashlab sweep' specs
of kind cluster: reference/clusters/sweeps/layouts.yaml.`

func runCluster(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "Usage: dashlab "+clusterUsage)
		if len(args) == 0 {
			return fmt.Errorf("%w: a subcommand is needed", errUsage)
		}
		return errHelp
	}
	switch args[0] {
	case "list":
		return runClusterList(args[1:], stdout, stderr)
	case "run":
		return runClusterRun(args[1:], stdout, stderr)
	case "serve":
		return runClusterServe(args[1:], stdout, stderr)
	case "compare":
		return runClusterCompare(args[1:], stdout, stderr)
	case "sweep":
		return fmt.Errorf("%w: cluster sweeps are 'dashlab sweep --spec FILE' with kind: cluster (reference/clusters/sweeps/layouts.yaml)", errUsage)
	case "check":
		return runClusterCheck(args[1:], stdout, stderr)
	}
	return fmt.Errorf("%w: unknown cluster subcommand %q (list, run, serve, compare, check)", errUsage, args[0])
}

// layoutFlags are the flags that describe one layout.
type layoutFlags struct {
	file, cluster, memory, model, reading, placement, routing *string
	nodes, tp, ep, pp, dp, micro, slots                       *int
	zipfS                                                     *float64
	seed                                                      *uint64
	lookahead                                                 *bool
	set                                                       *settingsFlag
}

func addLayoutFlags(fs *flag.FlagSet, prefix string) layoutFlags {
	var l layoutFlags
	l.file = fs.String(prefix+"file", "", "cluster experiment file (YAML; the flags below override it; empty: flags only)")
	l.cluster = fs.String(prefix+"cluster", "hgx-h200", "catalogue cluster id (see 'dashlab cluster list')")
	l.nodes = fs.Int(prefix+"nodes", 0, "nodes of the cluster (0: the cluster's)")
	l.memory = fs.String(prefix+"memory", "", "the GPUs' memory system id (empty: the cluster's)")
	l.model = fs.String(prefix+"model", "qwen3-235b-a22b", "catalogue model id")
	l.tp = fs.Int(prefix+"tp", 1, "tensor-parallel degree")
	l.ep = fs.Int(prefix+"ep", 1, "expert-parallel degree (GPUs of a stage over which the routed experts are placed)")
	l.pp = fs.Int(prefix+"pp", 1, "pipeline stages")
	l.dp = fs.Int(prefix+"dp", 1, "instances behind the router")
	l.micro = fs.Int(prefix+"micro", 0, "micro-batches of a pass (0: as many as stages)")
	l.placement = fs.String(prefix+"placement", "contiguous", "expert placement: contiguous, popularity or replicated")
	l.slots = fs.Int(prefix+"slots", 0, "experts per GPU (0: routed experts / ep)")
	l.routing = fs.String(prefix+"routing", "balanced", "routing distribution: balanced or zipf")
	l.zipfS = fs.Float64(prefix+"zipf-s", 0, "Zipf exponent (routing zipf)")
	l.seed = fs.Uint64(prefix+"routing-seed", 1, "seed of the per-layer expert popularity (routing zipf)")
	l.reading = fs.String(prefix+"reading", "", "HBF reading of t_R: paper or physical (empty: the memory system's)")
	l.lookahead = fs.Bool(prefix+"lookahead", false, "early expert selection where the router allows (§V-C)")
	l.set = &settingsFlag{}
	fs.Var(l.set, prefix+"set", "set a knob, PATH=VALUE with its unit (repeatable), after the file's overrides: the cluster's (--set interconnect.scale_up.rate=900GB/s --set parallel.expert=8) or every GPU's (--set hbf.t_read=5us); 'dashlab knobs' lists them")
	return l
}

// file merges the flags given into the file (or a fresh one).
func (l layoutFlags) fileOf(fs *flag.FlagSet, prefix string) (clusters.File, error) {
	var f clusters.File
	if *l.file != "" {
		var err error
		if f, err = clusters.LoadFile(*l.file); err != nil {
			return clusters.File{}, err
		}
	}
	set := map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { set[strings.TrimPrefix(fl.Name, prefix)] = true })
	use := func(name string) bool { return *l.file == "" || set[name] }
	if use("cluster") {
		f.Cluster, f.ClusterFile = *l.cluster, ""
	}
	if use("nodes") {
		f.Nodes = *l.nodes
	}
	if use("memory") {
		f.Memory = *l.memory
	}
	if use("model") {
		f.Model = *l.model
	}
	for _, d := range []struct {
		flag, knob string
		v          *int
		to         *int
	}{{"tp", "tensor", l.tp, &f.Parallel.Tensor}, {"ep", "expert", l.ep, &f.Parallel.Expert},
		{"pp", "pipeline", l.pp, &f.Parallel.Pipeline}, {"dp", "data", l.dp, &f.Parallel.Data}} {
		if !use(d.flag) {
			continue
		}
		if *d.v == 0 { // the file reads 0 as "left out": 1
			return clusters.File{}, clusters.ZeroDegreeError("parallel."+d.knob, "--"+prefix+d.flag+" 0: leave the flag out for 1")
		}
		*d.to = *d.v
	}
	if use("micro") {
		f.Parallel.MicroBatches = *l.micro
	}
	if use("placement") {
		f.Placement.Policy = *l.placement
	}
	if use("slots") {
		f.Placement.Slots = *l.slots
	}
	if use("routing") {
		f.Routing.Kind = *l.routing
	}
	if use("zipf-s") {
		f.Routing.ZipfS = *l.zipfS
	}
	if use("routing-seed") {
		f.Routing.Seed = *l.seed
	}
	if use("reading") {
		f.Reading = *l.reading
	}
	if use("lookahead") {
		f.Lookahead = *l.lookahead
	}
	return f.WithSettings(l.set.list...), nil
}

func runClusterList(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("cluster list", "cluster list [--format table|json]", stderr)
	format := fs.String("format", "table", "output format: table or json")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	specs, err := clusters.All()
	if err != nil {
		return err
	}
	if *format == "json" {
		return writeJSON(stdout, struct {
			Clusters    []cluster.Spec `json:"clusters"`
			Comparisons []string       `json:"comparisons"`
		}{specs, clusters.ComparisonIDs()})
	}
	if *format != "table" {
		return fmt.Errorf("%w: --format %q: want table or json", errUsage, *format)
	}
	var t table
	t.add("id", "GPUs", "GPU", "memory", "scale-up", "per GPU", "network", "name")
	for _, s := range specs {
		ic := s.Interconnect
		t.add(s.ID, fmt.Sprintf("%d x %d", s.Nodes, s.GPUsPerNode), s.GPU.Timing, s.GPU.Memory, ic.ScaleUp.Kind,
			ic.ScaleUp.Link.Rate.String(), fmt.Sprintf("%d x %v", ic.Network.NICsPerNode, ic.Network.Link.Rate), s.Name)
	}
	t.write(stdout)
	fmt.Fprintf(stdout, "\ncomparisons (dashlab cluster compare --id ID): %s\n", strings.Join(clusters.ComparisonIDs(), ", "))
	return nil
}

// clusterRunJSON is one fixed-batch cluster run.
type clusterRunJSON struct {
	cluster.Result
	TTFTms float64 `json:"ttft_ms"`
	TPOTms float64 `json:"tpot_ms"`
	E2Es   float64 `json:"e2e_s"`
}

type clusterRunRow struct {
	Name                 string  `json:"name"`
	GPUs                 int     `json:"gpus"`
	Batch                int     `json:"batch"`
	TTFTms               float64 `json:"ttft_ms"`
	TPOTms               float64 `json:"tpot_ms"`
	E2Es                 float64 `json:"e2e_s"`
	DecodeThroughputTokS float64 `json:"decode_throughput_tok_s"`
	PerGPUTokS           float64 `json:"decode_throughput_per_gpu_tok_s"`
	CommShare            float64 `json:"comm_share"`
	KVTokens             int64   `json:"kv_tokens"`
	KVHeadroom           float64 `json:"kv_headroom"`
	CollectivesSimulated int     `json:"collectives_simulated"`
	CollectivesTotal     int     `json:"collectives"`
	DispatchedPairs      int64   `json:"dispatched_pairs"`
}

func runClusterRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("cluster run", "cluster run [layout flags] [--batch B --prompt L_in --output L_out] [--format table|json|csv]", stderr)
	l := addLayoutFlags(fs, "")
	batch := fs.Int("batch", 0, "requests per instance (0: the file's, or 4 per attention group)")
	prompt := fs.Int("prompt", 1024, "prompt tokens L_in")
	output := fs.Int("output", 128, "output tokens L_out")
	format := fs.String("format", "table", "output format: table, json or csv")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	f, err := l.fileOf(fs, "")
	if err != nil {
		return err
	}
	b := f.Builder()
	if f.Workload == nil || *batch > 0 {
		b = b.Prompt(*prompt).Output(*output)
		if *batch > 0 {
			b = b.Batch(*batch)
		}
	}
	e, err := b.Build()
	if err != nil {
		return err
	}
	start := time.Now()
	r, err := cluster.Run(e)
	if err != nil {
		return err
	}
	row := clusterRunRow{Name: r.Name, GPUs: r.GPUs, Batch: r.Batch, TTFTms: r.TTFT.Milliseconds(), TPOTms: r.TPOT.Milliseconds(),
		E2Es: r.E2E.Seconds(), DecodeThroughputTokS: r.DecodeThroughput, PerGPUTokS: r.PerGPU, CommShare: r.CommShare,
		KVTokens: r.KV.Tokens, KVHeadroom: r.KV.Headroom, CollectivesSimulated: r.Stats.Simulated, CollectivesTotal: r.Stats.Collectives,
		DispatchedPairs: r.Stats.DispatchPairs}
	out := clusterRunJSON{Result: r, TTFTms: row.TTFTms, TPOTms: row.TPOTms, E2Es: row.E2Es}
	if ok, err := writeData(stdout, *format, out, func() csvTable { return csvOf([]clusterRunRow{row}) }); ok {
		return err
	}
	fmt.Fprintf(stdout, "%s\n%d GPUs, B = %d per instance, %d/%d tokens\n", r.Name, r.GPUs, r.Batch, r.Prompt, r.Output)
	printWhatIfs(stdout, clusters.WhatIfs(f, e))
	fmt.Fprintln(stdout)
	var t table
	t.add("TTFT", "TPOT", "E2E", "decode tok/s (all)", "per GPU", "comm share", "KV tokens", "KV headroom")
	t.add(r.TTFT.String(), r.TPOT.String(), r.E2E.String(), fmt.Sprintf("%.1f", r.DecodeThroughput), fmt.Sprintf("%.1f", r.PerGPU),
		fmt.Sprintf("%.1f%%", 100*r.CommShare), fmt.Sprint(r.KV.Tokens), fmt.Sprintf("%.1fx", r.KV.Headroom))
	t.write(stdout)
	fmt.Fprintf(stdout, "\ninterconnect per instance:")
	for _, p := range r.Stats.Ports {
		fmt.Fprintf(stdout, " %s %v (busy %v);", p.Kind, p.Bytes, p.Busy)
	}
	fmt.Fprintf(stdout, "\n%d collective phases, %d simulated message by message; %d token-expert pairs dispatched (%d rows sent), %d local; simulated in %v\n",
		r.Stats.Collectives, r.Stats.Simulated, r.Stats.DispatchPairs, r.Stats.DispatchRows, r.Stats.LocalPairs, time.Since(start).Round(time.Millisecond))
	if r.Stats.MeanRows > 0 {
		fmt.Fprintf(stdout, "expert load imbalance (the most loaded GPU's rows over the mean) %.3f", float64(r.Stats.StragglerRows)/r.Stats.MeanRows)
		if r.Stats.CachedExperts > 0 {
			fmt.Fprintf(stdout, "; %d expert reads from the GPUs' HBM expert caches", r.Stats.CachedExperts)
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

func interruptible() (context.Context, func()) {
	return signal.NotifyContext(context.Background(), os.Interrupt)
}

func runClusterServe(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("cluster serve", "cluster serve [layout flags] (--rate R) [--requests N --warmup W] [--prefill-memory ID ...] [--format table|json]", stderr)
	l := addLayoutFlags(fs, "")
	p := addLayoutFlags(fs, "prefill-")
	rate := fs.Float64("rate", 1, "Poisson arrival rate, requests/s")
	n := fs.Int("requests", 160, "requests in the trace (warm-up included)")
	warmup := fs.Int("warmup", 32, "warm-up requests, not measured")
	prompt := fs.Int("prompt-tokens", 4096, "prompt tokens per request")
	output := fs.Int("output-tokens", 128, "output tokens per request")
	seed := fs.Uint64("seed", 1, "trace seed")
	router := fs.String("router", cluster.RouteRoundRobin, "router: round-robin or least-work")
	quantum := fs.Int("approx-kv-quantum", 0, "serve's approximate pass model: decode contexts rounded to this many tokens (0: exact)")
	maxBatch := fs.Int("max-batch", 32, "B_max per attention group")
	budget := fs.Int("token-budget", 8192, "iteration token budget per attention group")
	chunk := fs.Int("chunk", 512, "prefill chunk tokens")
	disagg := fs.Bool("disagg", false, "prefill/decode disaggregation: the prefill-* flags describe the prefill pool")
	format := fs.String("format", "table", "output format: table or json")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if *format != "table" && *format != "json" {
		return fmt.Errorf("%w: --format %q: want table or json", errUsage, *format)
	}
	sc := serve.Scheduler{MaxBatch: *maxBatch, TokenBudget: *budget, Chunk: *chunk, Mode: serve.Mixed}
	f, err := l.fileOf(fs, "")
	if err != nil {
		return err
	}
	e, err := f.Builder().Build()
	if err != nil {
		return err
	}
	reqs, err := serve.Poisson(*rate, *n, serve.Fixed(*prompt), serve.Fixed(*output), *seed)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	ctx, stop := interruptible()
	defer stop()
	dc := cluster.ServeConfig{Experiment: e, Scheduler: sc, Router: *router, Warmup: *warmup, Approx: serve.Approx{KVQuantum: *quantum}}
	var res *cluster.Serving
	extra := ""
	if *disagg {
		pf, err := p.fileOf(fs, "prefill-")
		if err != nil {
			return err
		}
		if pf.Model == "" || !isSet(fs, "prefill-model") {
			pf.Model = f.Model
		}
		pe, err := pf.Builder().Build()
		if err != nil {
			return fmt.Errorf("prefill pool: %w", err)
		}
		pc := dc
		pc.Experiment = pe
		d, err := cluster.ServeDisaggregated(ctx, cluster.DisaggConfig{Prefill: pc, Decode: dc, Warmup: *warmup}, reqs)
		if err != nil {
			return err
		}
		res = &d.Serving
		extra = fmt.Sprintf("KV moved %v, transfer mean %v, longest %v", d.KVBytes, d.TransferMean, d.TransferMax)
	} else if res, err = cluster.Serve(ctx, dc, reqs); err != nil {
		return err
	}
	if *format == "json" {
		return writeJSON(stdout, res)
	}
	s := res.Summary
	fmt.Fprintf(stdout, "%s\n%d GPUs, %d requests at %.3f req/s (%d measured)\n", res.Name, res.GPUs, res.Requests, *rate, len(res.Measured))
	printWhatIfs(stdout, clusters.WhatIfs(f, e))
	fmt.Fprintln(stdout)
	var t table
	t.add("metric", "mean", "P50", "P90", "P99")
	for _, d := range []struct {
		name string
		d    serve.Dist
	}{{"TTFT (s)", s.TTFTs}, {"TPOT (ms)", s.TPOTms}, {"E2E (s)", s.E2Es}, {"queue (s)", s.Queues}} {
		t.add(d.name, fmt.Sprintf("%.3f", d.d.Mean), fmt.Sprintf("%.3f", d.d.P50), fmt.Sprintf("%.3f", d.d.P90), fmt.Sprintf("%.3f", d.d.P99))
	}
	t.write(stdout)
	fmt.Fprintf(stdout, "\nthroughput %.1f output tokens/s (%.1f per GPU); %d rejected%s\n", res.TokensPerS, res.PerGPU, res.Rejected, map[bool]string{true: "; interrupted"}[res.Interrupted])
	if extra != "" {
		fmt.Fprintln(stdout, extra)
	}
	return nil
}

// printWhatIfs writes "what-if: scale-up 450 -> 900 GB/s, t_R 3 -> 5 µs"
// when the experiment is off the catalogue.
func printWhatIfs(w io.Writer, changes []dash.Change) {
	if len(changes) == 0 {
		return
	}
	parts := make([]string, len(changes))
	for i, c := range changes {
		parts[i] = c.String()
	}
	fmt.Fprintf(w, "what-if: %s\n", strings.Join(parts, ", "))
}

func isSet(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	return found
}

func runClusterCompare(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("cluster compare", "cluster compare (--id ID | --file FILE) [--tpot 150ms] [--measure N] [--format table|json|csv [--table capacity|provision]]", stderr)
	id := fs.String("id", "qwen3-235b", "a shipped comparison (see 'dashlab cluster list')")
	file := fs.String("file", "", "a comparison file (empty: --id)")
	tpot := fs.String("tpot", "", "P90 TPOT target, e.g. 150ms (empty: the file's)")
	measure := fs.Int("measure", 0, "measured requests per trace (0: the file's)")
	format := fs.String("format", "table", "output format: table, json or csv (one table, see --table)")
	quiet := fs.Bool("quiet", false, "no progress on stderr")
	tables := addTableFlag(fs, "capacity", "provision")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if err := tables.check(); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	var cf clusters.CompareFile
	var err error
	if *file != "" {
		cf, err = clusters.LoadCompare(*file)
	} else {
		cf, err = clusters.Comparison(*id)
	}
	if err != nil {
		return err
	}
	if *tpot != "" {
		d, err := unit.ParseDuration(*tpot)
		if err != nil {
			return fmt.Errorf("%w: --tpot: %v", errUsage, err)
		}
		cf.TPOTTarget = d
	}
	if *measure > 0 {
		cf.Measure = *measure
	}
	cfg, err := cf.Config()
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	start := time.Now()
	var prog func(string, int, int)
	if !*quiet {
		prog = func(label string, k, n int) {
			if time.Since(start) > 2*time.Second {
				fmt.Fprintf(stderr, "\rcompare: %s, %d of %d runs (%v)   ", label, k, n, time.Since(start).Round(time.Second))
			}
		}
	}
	cmp, err := cluster.Compare(ctx, cfg, prog)
	if prog != nil && time.Since(start) > 2*time.Second {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return err
	}
	rows := cmp.Capacities
	type provRow struct {
		TargetTokS float64 `json:"target_tok_s"`
		Label      string  `json:"label"`
		Instances  int     `json:"instances"`
		GPUs       int     `json:"gpus"`
		Cost       float64 `json:"cost"`
	}
	var prov []provRow
	for _, p := range cmp.Provisions {
		for i, c := range cmp.Capacities {
			prov = append(prov, provRow{p.TargetTokS, c.Label, p.Instances[i], p.GPUs[i], p.Cost[i]})
		}
	}
	if ok, err := writeData(stdout, *format, cmp, func() csvTable { return tables.pick(csvOf(rows), csvOf(prov)) }); ok {
		return err
	}
	fmt.Fprintf(stdout, "%s: P90 TPOT within %v, %d/%d-token requests\n\n", cf.Model, cmp.TPOTTarget, cf.Prompt, cf.Output)
	var t table
	t.add("contender", "GPUs", "tok/s", "tok/s/GPU", "P90 TPOT ms", "J/token", "KV tokens", "break-even price", "note")
	for _, r := range rows {
		t.add(r.Label, fmt.Sprint(r.GPUs), fmt.Sprintf("%.1f", r.TokensPerS), fmt.Sprintf("%.1f", r.PerGPU), fmt.Sprintf("%.1f", r.P90TPOTms),
			fmt.Sprintf("%.2f", r.JoulesPerToken), fmt.Sprint(r.KVTokens), fmt.Sprintf("%.2f", r.BreakEvenPrice), r.Note)
	}
	t.write(stdout)
	fmt.Fprintln(stdout, "\nGPUs needed per target (output tokens/s):")
	var u table
	head := []string{"target"}
	for _, c := range cmp.Capacities {
		head = append(head, c.Label)
	}
	u.add(head...)
	for _, p := range cmp.Provisions {
		row := []string{fmt.Sprintf("%.0f", p.TargetTokS)}
		for i := range p.GPUs {
			row = append(row, fmt.Sprint(p.GPUs[i]))
		}
		u.add(row...)
	}
	u.write(stdout)
	fmt.Fprintf(stdout, "\nbreak-even price: the GPU price (reference GPU = %s's) at which a contender's tokens/s per cost equals the reference's; prices are illustrative\n", cmp.Capacities[0].Label)
	return nil
}

func runClusterCheck(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("cluster check", "cluster check [--id ID | --file FILE] [--format table|json]", stderr)
	id := fs.String("id", "qwen3-235b", "a shipped comparison")
	file := fs.String("file", "", "a comparison file (empty: --id)")
	format := fs.String("format", "table", "output format: table or json")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if *format != "table" && *format != "json" {
		return fmt.Errorf("%w: --format %q: want table or json", errUsage, *format)
	}
	var cf clusters.CompareFile
	var err error
	if *file != "" {
		cf, err = clusters.LoadCompare(*file)
	} else {
		cf, err = clusters.Comparison(*id)
	}
	if err != nil {
		return err
	}
	if len(cf.Published) == 0 {
		return fmt.Errorf("comparison %s: no published measurement", cf.ID)
	}
	ctx, stop := interruptible()
	defer stop()
	var out []clusters.CheckResult
	for _, p := range cf.Published {
		r, err := clusters.Check(ctx, p, cf.Model)
		if err != nil {
			return err
		}
		out = append(out, r)
	}
	if *format == "json" {
		return writeJSON(stdout, out)
	}
	for _, r := range out {
		p := r.Published
		fmt.Fprintf(stdout, "%s\nsource: %s\n\n", p.Description, p.Source)
		var t table
		t.add("", "output tok/s", "mean TPOT ms", "mean TTFT s", "duration s")
		t.add("published", fmt.Sprintf("%.1f", p.OutputTokS), fmt.Sprintf("%.2f", p.MeanTPOTms), fmt.Sprintf("%.2f", p.MeanTTFTs), fmt.Sprintf("%.2f", p.DurationS))
		t.add("simulated", fmt.Sprintf("%.1f", r.OutputTokS), fmt.Sprintf("%.2f", r.MeanTPOTms), fmt.Sprintf("%.2f", r.MeanTTFTs), fmt.Sprintf("%.2f", r.DurationS))
		t.write(stdout)
		fmt.Fprintf(stdout, "\nsimulated / published output throughput: %.2f\n\n", r.Ratio)
	}
	return nil
}
