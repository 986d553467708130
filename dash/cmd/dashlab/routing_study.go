package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference/reproduce"
	"github.com/dashlab/dashlab/summary"
)

// studyRow is one case of routing study's result.
type studyRow struct {
	Case           string  `json:"case"`
	Label          string  `json:"label"`
	System         string  `json:"system"`
	TTFTms         float64 `json:"ttft_ms"`
	TPOTms         float64 `json:"tpot_ms"`
	StepP50ms      float64 `json:"step_p50_ms"`
	StepP99ms      float64 `json:"step_p99_ms"`
	DistinctMean   float64 `json:"distinct_experts_mean"`
	DirectBytes    int64   `json:"direct_bytes"`
	RelayBytes     int64   `json:"relay_bytes"`
	CachedBytes    int64   `json:"cached_bytes"`
	ImbalancePct   float64 `json:"imbalance_pct"`
	CacheHitPct    float64 `json:"cache_hit_pct"`
	CacheFills     int64   `json:"cache_fills"`
	KVBudgetGB     float64 `json:"kv_budget_gb"`
	DecodeTokS     float64 `json:"decode_tok_s"`
	TPOTVsBalanced float64 `json:"tpot_vs_balanced"`
}

func studyRows(s summary.RoutingStudy) []studyRow {
	var out []studyRow
	var ref float64
	for i, c := range s.Cases {
		r := c.Result
		row := studyRow{Case: c.ID, Label: c.Label, System: r.System, TTFTms: r.TTFT.Milliseconds(), TPOTms: r.TPOT.Milliseconds(),
			KVBudgetGB: float64(r.KV.BudgetHBM) / 1e9, DecodeTokS: r.DecodeThroughput}
		if i == 0 {
			ref = row.TPOTms
		}
		if ref > 0 {
			row.TPOTVsBalanced = row.TPOTms / ref
		}
		if g := r.Routing; g != nil {
			row.StepP50ms, row.StepP99ms = float64(g.StepP50)/1e6, float64(g.StepP99)/1e6
			row.DistinctMean, row.ImbalancePct = g.DistinctMean, 100*g.Imbalance
			row.DirectBytes, row.RelayBytes, row.CachedBytes = int64(g.DirectBytes), int64(g.RelayBytes), int64(g.CachedBytes)
			if g.Cache != nil {
				row.CacheHitPct, row.CacheFills = 100*g.Cache.HitRate, g.Cache.Fills
			}
		}
		out = append(out, row)
	}
	return out
}

func runRoutingStudy(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("routing study", "routing study [--model ID --systems A,B --batch B --prompt N --output N --trace FILE --zipf-s S,S --cache-budget BYTES --cache-policy P --set PATH=VALUE] [--format table|json|csv]", stderr)
	def, err := reproduce.RoutingStudies()
	if err != nil {
		return err
	}
	d := def[0]
	model := fs.String("model", d.Model, "catalogue model id")
	systems := fs.String("systems", strings.Join(d.Systems, ","), "comma-separated system ids; the first runs every case, the others the trace cases")
	batch := fs.Int("batch", d.Batch, "batch size B")
	prompt := fs.Int("prompt", d.Prompt, "prompt tokens L_in")
	output := fs.Int("output", d.Output, "generated tokens L_out")
	traceFile := fs.String("trace", reproduce.RoutingTraceName, "routing trace: a .jsonl, .parquet or .vllm.jsonl file or a shipped trace ('none': no trace case)")
	wrap := fs.Bool("wrap", false, "let the batch run past the trace (request i replays trace request i mod R, token t token t mod n)")
	skews := fs.String("zipf-s", "1.2", "comma-separated Zipf exponents of the synthetic cases ('none': no synthetic case)")
	budget := fs.String("cache-budget", d.Cache.Budget.String(), "HBM expert cache of the cached cases ('0': no cached case)")
	policy := fs.String("cache-policy", d.Cache.EffectivePolicy(), "expert cache policy: static, lru or lfu")
	format := fs.String("format", "table", "output format: table, json (every case's result) or csv (one row a case)")
	workers := fs.Int("workers", 0, "simulations at once (0: one per CPU)")
	var sets settingsFlag
	fs.Var(&sets, "set", "knob PATH=VALUE for every case (repeatable; see 'dashlab knobs')")
	if err := parseNoArgs(fs, args, format); err != nil {
		return err
	}
	if err := checkWorkers(*workers); err != nil {
		return err
	}
	c := reproduce.RoutingStudyConfig{ID: "cli", Model: *model, Batch: *batch, Prompt: *prompt, Output: *output, TraceWrap: *wrap, Knobs: sets.list}
	for _, s := range strings.Split(*systems, ",") {
		if s = strings.TrimSpace(s); s != "" {
			c.Systems = append(c.Systems, s)
		}
	}
	if len(c.Systems) == 0 {
		return fmt.Errorf("%w: --systems: no system named", errUsage)
	}
	if *traceFile != "none" {
		if c.Trace, err = loadTrace(*traceFile); err != nil {
			return err
		}
	}
	if *skews != "none" {
		for _, s := range strings.Split(*skews, ",") {
			z, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || !(z >= 0 && z <= 100) {
				return fmt.Errorf("%w: --zipf-s %q: want numbers from 0 to 100, or none", errUsage, s)
			}
			c.Skews = append(c.Skews, z)
		}
	}
	b, err := unit.ParseBytes(*budget)
	if err != nil {
		return fmt.Errorf("%w: --cache-budget: %v", errUsage, err)
	}
	c.Cache = dash.ExpertCacheSpec{Budget: b, Policy: *policy}
	ctx, stop := interruptible()
	defer stop()
	s, _, err := reproduce.RoutingStudy(ctx, c, *workers, nil)
	if err != nil {
		return err
	}
	rows := studyRows(s)
	switch *format {
	case "json":
		return writeJSON(stdout, struct {
			Model  string                `json:"model"`
			Batch  int                   `json:"batch"`
			Prompt int                   `json:"prompt"`
			Output int                   `json:"output"`
			Trace  string                `json:"trace,omitempty"`
			Cases  []studyRow            `json:"cases"`
			Runs   []summary.RoutingCase `json:"runs"`
		}{s.Model, s.Batch, s.Prompt, s.Output, s.Trace, rows, s.Cases})
	case "csv":
		return csvOf(rows).write(stdout)
	}
	fmt.Fprintf(stdout, "%s, B=%d, L_in/L_out = %d/%d", s.ModelName, s.Batch, s.Prompt, s.Output)
	if s.Trace != "" {
		fmt.Fprintf(stdout, ", trace %s", s.Trace)
	}
	fmt.Fprintln(stdout)
	var t table
	t.add("case", "TPOT", "x balanced", "step P50", "step P99", "distinct/layer", "imbalance", "cache hits", "decode KV budget")
	for _, r := range rows {
		dist, imb, hit, p50, p99 := "-", "-", "-", "-", "-"
		if r.DistinctMean > 0 {
			dist, p50, p99 = fmt.Sprintf("%.2f", r.DistinctMean), fmt.Sprintf("%.2f ms", r.StepP50ms), fmt.Sprintf("%.2f ms", r.StepP99ms)
			imb = fmt.Sprintf("%.1f%%", r.ImbalancePct)
		}
		if r.CacheFills > 0 || r.CacheHitPct > 0 {
			hit = fmt.Sprintf("%.1f%%", r.CacheHitPct)
		}
		t.add(r.Label, fmt.Sprintf("%.2f ms", r.TPOTms), fmt.Sprintf("%.3f", r.TPOTVsBalanced), p50, p99, dist, imb, hit, fmt.Sprintf("%.2f GB", r.KVBudgetGB))
	}
	t.write(stdout)
	fmt.Fprintln(stdout, "\nimbalance: max(T_Direct, T_Relay) of DASH's whole-expert assignment (§VI-E) over a perfect split of the same bytes, minus 1;")
	fmt.Fprintln(stdout, "distinct/layer: distinct experts a decode step reads per MoE layer (mean); cache hits: selected experts the HBM cache held")
	return nil
}
