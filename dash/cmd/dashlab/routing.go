package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/routing"
	"github.com/dashlab/dashlab/reference"
)

func init() {
	register(&command{name: "routing", summary: "recorded and synthetic MoE routing: analyze a trace, generate one, what skew does to DASH", run: runRouting})
}

const routingUsage = `routing <list|analyze|generate|study> [flags]

  list      the shipped routing traces (reference/routing)
  analyze   a trace's routing skew per MoE layer beside uniform routing's: the hottest
            expert's load, first-choice and any-expert repetition between consecutive
            tokens, next-layer predictability (a .jsonl, .parquet or .vllm.jsonl file, or a
            shipped trace by name)
  generate  draw a synthetic trace for a model (the generator's parameters, see
            'dashlab knobs workload.routing') into a .jsonl or .parquet file
  study     what skew does to DASH on a fixed batch: the paper's balanced routing against
            a trace and synthetic skews, with and without the HBM expert cache: TPOT,
            the decode-step tail, distinct experts per layer, Direct/Relay imbalance of
            the whole-expert assignment, cache hit rate`

func runRouting(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "Usage: dashlab "+routingUsage)
		if len(args) == 0 {
			return fmt.Errorf("%w: a subcommand is needed", errUsage)
		}
		return errHelp
	}
	switch args[0] {
	case "list":
		return runRoutingList(args[1:], stdout, stderr)
	case "analyze":
		return runRoutingAnalyze(args[1:], stdout, stderr)
	case "generate":
		return runRoutingGenerate(args[1:], stdout, stderr)
	case "study":
		return runRoutingStudy(args[1:], stdout, stderr)
	}
	return fmt.Errorf("%w: unknown routing subcommand %q (list, analyze, generate, study)", errUsage, args[0])
}

// traceInfo is a shipped trace's shape, for list.
type traceInfo struct {
	Name     string `json:"name"`
	Requests int    `json:"requests"`
	Tokens   int    `json:"tokens"`
	Layers   int    `json:"moe_layers"`
	TopK     int    `json:"top_k"`
	Experts  int    `json:"max_expert_id_plus_1"`
}

func infoOf(t *routing.Trace) traceInfo {
	n := 0
	for r := range t.Requests() {
		n += t.Tokens(r)
	}
	return traceInfo{Name: t.Name(), Requests: t.Requests(), Tokens: n, Layers: len(t.Layers()), TopK: t.TopK(), Experts: t.MaxExpert() + 1}
}

func runRoutingList(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("routing list", "routing list [--format table|json|csv]", stderr)
	format := fs.String("format", "table", "output format: table, json or csv")
	if err := parseNoArgs(fs, args, format); err != nil {
		return err
	}
	var infos []traceInfo
	for _, name := range reference.RoutingTraces() {
		t, err := reference.RoutingTrace(name)
		if err != nil {
			return err
		}
		infos = append(infos, infoOf(t))
	}
	switch *format {
	case "json":
		return writeJSON(stdout, infos)
	case "csv":
		return csvOf(infos).write(stdout)
	}
	var t table
	t.add("trace", "requests", "tokens", "MoE layers", "top-k", "experts")
	for _, i := range infos {
		t.add(i.Name, fmt.Sprint(i.Requests), fmt.Sprint(i.Tokens), fmt.Sprint(i.Layers), fmt.Sprint(i.TopK), fmt.Sprint(i.Experts))
	}
	t.write(stdout)
	fmt.Fprintln(stdout, "\nprovenance: reference/routing/README.md; use one as workload.routing: {kind: trace, file: NAME}")
	return nil
}

// loadTrace reads a trace file, or a shipped trace by name when no such
// file exists.
func loadTrace(path string) (*routing.Trace, error) {
	if _, err := os.Stat(path); err != nil && filepath.Base(path) == path && slices.Contains(reference.RoutingTraces(), path) {
		return reference.RoutingTrace(path)
	}
	return routing.Read(path)
}

// layerStats is one MoE layer of analyze's result.
type layerStats struct {
	Layer       int     `json:"layer"`
	HotLoad     float64 `json:"hot_expert_load"`
	FirstRepeat float64 `json:"first_choice_repeat"`
	AnyRepeat   float64 `json:"any_expert_repeat"`
	NextLayer   float64 `json:"next_layer_prediction"`
}

// analysis is analyze's result: the trace, the measures' means over
// the layers, their values under uniform routing and every layer's.
type analysis struct {
	Trace             traceInfo    `json:"trace"`
	Model             string       `json:"model,omitempty"`
	Experts           int          `json:"experts"`
	HotLoadMean       float64      `json:"hot_expert_load_mean"`
	HotLoadMax        float64      `json:"hot_expert_load_max"`
	HotLoadCap        float64      `json:"hot_expert_load_cap"`
	FirstRepeatMean   float64      `json:"first_choice_repeat_mean"`
	FirstRepeatRandom float64      `json:"first_choice_repeat_uniform"`
	AnyRepeatMean     float64      `json:"any_expert_repeat_mean"`
	AnyRepeatRandom   float64      `json:"any_expert_repeat_uniform"`
	NextLayerMean     float64      `json:"next_layer_prediction_mean"`
	Layers            []layerStats `json:"layers"`
}

func analyzeTrace(t *routing.Trace, model string, experts int) analysis {
	st := routing.Analyze(t, experts)
	a := analysis{Trace: infoOf(t), Model: model, Experts: experts, FirstRepeatRandom: st.FirstRepeatRandom,
		AnyRepeatRandom: st.AnyRepeatRandom, HotLoadCap: float64(experts) / float64(max(1, st.TopK))}
	n := len(st.Layers)
	for i, l := range st.Layers {
		a.Layers = append(a.Layers, layerStats{Layer: l, HotLoad: st.HotLoad[i], FirstRepeat: st.FirstRepeat[i], AnyRepeat: st.AnyRepeat[i], NextLayer: st.NextLayer[i]})
		a.HotLoadMean += st.HotLoad[i] / float64(n)
		a.HotLoadMax = max(a.HotLoadMax, st.HotLoad[i])
		a.FirstRepeatMean += st.FirstRepeat[i] / float64(n)
		a.AnyRepeatMean += st.AnyRepeat[i] / float64(n)
		if i > 0 {
			a.NextLayerMean += st.NextLayer[i] / float64(n-1)
		}
	}
	return a
}

func runRoutingAnalyze(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("routing analyze", "routing analyze [--model ID] [--format table|json|csv] TRACE", stderr)
	model := fs.String("model", "", "catalogue model id to check the trace against (layers, top-k, expert ids; empty: the trace's own largest expert id + 1 experts)")
	format := fs.String("format", "table", "output format: table (summary and every layer), json or csv (one row a layer)")
	args, pos := splitPositional(args)
	if err := parse(fs, args); err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want one trace (a file or a shipped trace: 'dashlab routing list'), got %d", errUsage, len(pos))
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	t, err := loadTrace(pos[0])
	if err != nil {
		return err
	}
	experts := t.MaxExpert() + 1
	if *model != "" {
		m, err := reference.Model(*model)
		if err != nil {
			return err
		}
		rm := m.RoutingModel()
		if err := t.Check(rm); err != nil {
			return err
		}
		experts = rm.Experts
	}
	a := analyzeTrace(t, *model, experts)
	switch *format {
	case "json":
		return writeJSON(stdout, a)
	case "csv":
		return csvOf(a.Layers).write(stdout)
	}
	i := a.Trace
	fmt.Fprintf(stdout, "trace %s: %d requests, %d tokens, %d MoE layers, top-%d of %d experts", i.Name, i.Requests, i.Tokens, i.Layers, i.TopK, experts)
	if *model != "" {
		fmt.Fprintf(stdout, " (checked against %s)", *model)
	}
	fmt.Fprintln(stdout)
	var s table
	s.add("measure", "trace (mean of layers)", "uniform routing", "source of the measure")
	s.add("hottest expert's load (x balanced share)", fmt.Sprintf("%.2f (max %.2f, cap %.2f)", a.HotLoadMean, a.HotLoadMax, a.HotLoadCap), "1 (as tokens grow)", "DeepSeek-V3 arXiv:2412.19437 Fig. 9")
	s.add("first choice repeats the previous token's", fmt.Sprintf("%.3f", a.FirstRepeatMean), fmt.Sprintf("%.3f", a.FirstRepeatRandom), "Mixtral arXiv:2401.04088 Table 5")
	s.add("an expert shared with the previous token", fmt.Sprintf("%.3f", a.AnyRepeatMean), fmt.Sprintf("%.3f", a.AnyRepeatRandom), "Mixtral arXiv:2401.04088 Table 5")
	s.add("first choice predicted by the previous layer's", fmt.Sprintf("%.3f", a.NextLayerMean), fmt.Sprintf("%.3f (as tokens grow)", 1/float64(experts)), "ExFlow arXiv:2401.08383")
	s.write(stdout)
	fmt.Fprintln(stdout)
	var l table
	l.add("layer", "hot load", "first repeat", "any repeat", "next layer")
	for _, x := range a.Layers {
		l.add(fmt.Sprint(x.Layer), fmt.Sprintf("%.2f", x.HotLoad), fmt.Sprintf("%.3f", x.FirstRepeat), fmt.Sprintf("%.3f", x.AnyRepeat), fmt.Sprintf("%.3f", x.NextLayer))
	}
	l.write(stdout)
	return nil
}

// splitPositional moves positional arguments out of args so that flags
// may follow them ("analyze FILE --format json").
func splitPositional(args []string) (flags, pos []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flags, append(pos, args[i+1:]...)
		case len(a) > 1 && a[0] == '-':
			flags = append(flags, a)
			if !bytes.Contains([]byte(a), []byte("=")) && i+1 < len(args) && !isBoolFlag(a) {
				i++
				flags = append(flags, args[i])
			}
		default:
			pos = append(pos, a)
		}
	}
	return flags, pos
}

// isBoolFlag names the routing commands' boolean flags (which take no
// separate value).
func isBoolFlag(a string) bool {
	switch a {
	case "-h", "--help", "-help", "--wrap", "-wrap":
		return true
	}
	return false
}

func runRoutingGenerate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("routing generate", "routing generate --model ID --out FILE [generator flags]", stderr)
	model := fs.String("model", "", "catalogue model id (its MoE layers, experts and top-k)")
	out := fs.String("out", "", "output file: .jsonl or .parquet")
	requests := fs.Int("requests", 8, "requests")
	tokens := fs.Int("tokens", 512, "tokens a request (prompt and generated alike)")
	seed := fs.Int64("seed", 1, "seed")
	skew := fs.Float64("zipf-s", 0, "per-layer popularity skew: Zipf exponent (0: uniform)")
	repeat := fs.Float64("repeat", routing.MixtralRepeat, "temporal locality: probability a slot repeats the previous token's expert")
	corr := fs.Float64("layer-corr", 0, "cross-layer correlation: probability a slot follows the previous layer's path")
	tasks := fs.Int("tasks", 1, "tasks in the request mix")
	overlap := fs.Float64("task-overlap", 1, "share of a task's popularity common to all tasks")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if *model == "" || *out == "" {
		return fmt.Errorf("%w: --model and --out are needed", errUsage)
	}
	if f := routing.FormatOf(*out); f != routing.FormatJSONL && f != routing.FormatParquet {
		return fmt.Errorf("%w: --out %q: want a .jsonl or .parquet file", errUsage, *out)
	}
	if *requests < 1 || *requests > 1<<16 || *tokens < 1 || *tokens > 1<<20 || int64(*requests)*int64(*tokens) > 1<<22 {
		return fmt.Errorf("%w: --requests %d x --tokens %d: want 1..65536 requests of 1..1048576 tokens, at most 4194304 tokens in all", errUsage, *requests, *tokens)
	}
	m, err := reference.Model(*model)
	if err != nil {
		return err
	}
	spec := dash.RoutingSpec{Kind: dash.RoutingSynthetic, Seed: *seed, ZipfS: *skew, Repeat: *repeat, LayerCorr: *corr, Tasks: *tasks, TaskOverlap: *overlap}
	syn := spec.Synthetic()
	if err := syn.Validate(); err != nil {
		return err
	}
	t, err := routing.Generate(syn, m.RoutingModel(), *requests, *tokens)
	if err != nil {
		return err
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if routing.FormatOf(*out) == routing.FormatParquet {
		err = routing.EncodeParquet(f, t)
	} else {
		err = routing.EncodeJSONL(f, t)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", *out, err)
	}
	i := infoOf(t)
	fmt.Fprintf(stdout, "wrote %s: %d requests of %d tokens, %d MoE layers, top-%d (%s)\n", *out, i.Requests, *tokens, i.Layers, i.TopK, *model)
	return nil
}
