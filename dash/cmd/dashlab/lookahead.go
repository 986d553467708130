package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/lookahead"
	"github.com/dashlab/dashlab/reference"
)

func init() {
	register(&command{name: "lookahead", summary: "check that lookahead expert selection equals conventional routing (FP32)", run: runLookahead})
}

func runLookahead(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "check" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Fprintln(stderr, "Usage: dashlab lookahead check --model ID|all [--trials N] [--seed S] [--attn-width W] [--format table|json|csv] [--perf]")
			return errHelp
		}
		return fmt.Errorf("%w: usage: dashlab lookahead check --model ID|all [--trials N] [--seed S]", errUsage)
	}
	fs := newFlags("lookahead check", "lookahead check --model ID|all [--trials N] [--seed S] [--attn-width W] [--format table|json|csv] [--perf]", stderr)
	model := fs.String("model", "", "catalogue model id, or all")
	trials := fs.Int("trials", 10000, fmt.Sprintf("random tokens compared per model (1 to %d)", lookahead.MaxTokens))
	seed := fs.Uint64("seed", 1, "seed of the random draws")
	perDraw := fs.Int("tokens-per-draw", 1024, fmt.Sprintf("tokens that share one draw of the weights (1 to %d)", lookahead.MaxTokens))
	width := fs.Int("attn-width", 0, fmt.Sprintf("override the attention output width (0: the model's real heads x head_dim; at most %d, and one draw of FP32 weights, width x hidden x 4 bytes and more, within %d MiB)",
		dash.MaxWidth, lookahead.MaxWeightBytes>>20))
	format := fs.String("format", "table", "output format: table, json or csv (one row per model)")
	perf := fs.Bool("perf", false, "with --format json or csv: add each check's wall time (elapsed_s), which differs from run to run")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if *model == "" {
		return fmt.Errorf("%w: set --model (a catalogue id or all)", errUsage)
	}
	switch {
	case *trials < 1 || *trials > lookahead.MaxTokens:
		return fmt.Errorf("%w: --trials %d: want 1 to %d", errUsage, *trials, lookahead.MaxTokens)
	case *perDraw < 1 || *perDraw > lookahead.MaxTokens:
		return fmt.Errorf("%w: --tokens-per-draw %d: want 1 to %d", errUsage, *perDraw, lookahead.MaxTokens)
	case *width < 0 || *width > dash.MaxWidth:
		return fmt.Errorf("%w: --attn-width %d: want 0 (the model's) to %d", errUsage, *width, dash.MaxWidth)
	}
	ids := []string{*model}
	if *model == "all" {
		ids = reference.ModelIDs()
	}
	for _, id := range ids {
		m, err := reference.Model(id)
		if err != nil {
			return err
		}
		ow := m.OutputProjectionWidth()
		if *width > 0 {
			ow = *width
		}
		if b := lookahead.WeightBytes(m, ow); b > lookahead.MaxWeightBytes {
			return fmt.Errorf("%w: --attn-width %d: model %s (hidden %d, %d experts) would hold about %.3g bytes of FP32 weights per draw, more than the %d MiB a check may: give a smaller width",
				errUsage, ow, id, m.HiddenSize, m.FFN.RoutedExperts, b, lookahead.MaxWeightBytes>>20)
		}
	}
	var reps []lookahead.Report
	for _, id := range ids {
		m, err := reference.Model(id)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "lookahead check %s: %d tokens...\n", id, *trials)
		r, err := lookahead.Check(m, lookahead.Options{Tokens: *trials, Seed: *seed, TokensPerDraw: *perDraw, AttnWidth: *width})
		if err != nil {
			return err
		}
		reps = append(reps, r)
	}
	switch *format {
	case "json":
		for i := range reps {
			if !*perf {
				reps[i].ElapsedSeconds = 0 // left out: the same input gives the same bytes
			}
		}
		return writeJSON(stdout, reps)
	case "csv":
		t := csvOf(reps)
		if *perf {
			t.header = append(t.header, "elapsed_s")
			for i, r := range reps {
				t.rows[i] = append(t.rows[i], csvFloat(r.ElapsedSeconds))
			}
		}
		return t.write(stdout)
	}
	var t table
	t.add("model", "router", "selection", "hidden", "attn width", "experts", "tokens", "agree", "agree %", "near ties", "flips (near-tie/other)", "max rel. discrepancy", "time")
	for _, r := range reps {
		sel := "early"
		if !r.Eligible {
			sel = "late"
		}
		t.add(r.Model, r.Router, sel, fmt.Sprint(r.Hidden), fmt.Sprint(r.AttnWidth), fmt.Sprint(r.Experts), fmt.Sprint(r.Tokens),
			fmt.Sprint(r.Agree), fmt.Sprintf("%.3f", r.AgreementPct()), fmt.Sprint(r.NearTies),
			fmt.Sprintf("%d/%d", r.NearTieFlips, r.AlgebraicFlips), fmt.Sprintf("%.2g", r.MaxRelDiscrepancy), fmt.Sprintf("%.1fs", r.ElapsedSeconds))
	}
	t.write(stdout)
	for _, r := range reps {
		if r.Reason != "" {
			fmt.Fprintf(stdout, "\n%s: late selection: %s.\n  Had early selection been used, %d of %d selections would differ.\n",
				r.Model, r.Reason, r.Disagree, r.Tokens)
		}
		for _, f := range r.Flips {
			if !r.Eligible {
				break
			}
			fmt.Fprintf(stdout, "\n%s token %d: conventional %v, early %v, float64 %v; boundary gap %.3g vs FP32 discrepancy %.3g (%s)\n",
				r.Model, f.Token, f.Conventional, f.Early, f.Float64, f.BoundaryGap, f.Discrepancy, strings.TrimSpace(nearTie(f.NearTie)))
		}
	}
	return nil
}

func nearTie(b bool) string {
	if b {
		return "a near tie: FP32 rounding"
	}
	return "NOT a near tie"
}
