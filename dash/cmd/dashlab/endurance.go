package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference/reproduce"
)

func init() {
	register(&command{name: "endurance", summary: "HBF lifetime C_KV x E_SLC / (A_W x R_HBF x u) at the Table III workload (§VI-H)", run: runEndurance})
}

// enduranceJSON is `dashlab endurance --format json`.
type enduranceJSON struct {
	Formula            string              `json:"formula"`
	Model              string              `json:"model"`
	System             string              `json:"system"`
	Batch              int                 `json:"batch"`
	PromptTokens       int                 `json:"prompt_tokens"`
	OutputTokens       int                 `json:"output_tokens"`
	KVCapacityGB       float64             `json:"kv_capacity_gb"`
	WriteRateGBps      float64             `json:"write_rate_gb_per_s"`
	WriteRateSource    string              `json:"write_rate_source"`
	WriteAmplification float64             `json:"write_amplification"`
	WASource           string              `json:"write_amplification_source"`
	Lifetimes          []enduranceCellJSON `json:"lifetimes"`
}

type enduranceCellJSON struct {
	Utilization   float64 `json:"utilization"`
	PECycles      float64 `json:"pe_cycles"`
	LifetimeYears float64 `json:"lifetime_years"`
}

func runEndurance(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("endurance", "endurance [--pe LIST] [--loads LIST] [--wa X] [--system ID] [--batch N] [--prompt N] [--output N] [--reading paper|physical] [--format table|json|csv]", stderr)
	pe := fs.String("pe", "3000,10000,30000,50000,100000", "program/erase cycles E_SLC, comma-separated")
	loads := fs.String("loads", "0.5,0.75,0.9", "utilisations u in (0, 1], comma-separated")
	wa := fs.Float64("wa", reproduce.MeasureWA, "write amplification A_W (>= 1); default 0: measured by the engine's flash management in the full-load run")
	c := reproduce.EnduranceCase
	system := fs.String("system", c.System, "system id the write rate is measured on")
	batch := fs.Int("batch", c.Batch, "batch of the full-load run (Table III: B_max = 32)")
	prompt := fs.Int("prompt", c.Prompt, "prompt tokens")
	output := fs.Int("output", c.Output, "output tokens")
	readingName := fs.String("reading", "paper", "reading of t_R for the full-load run: paper or physical")
	format := fs.String("format", "table", "output format: table, json or csv (the lifetimes, one row per load and P/E cycles)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	pes, err := parseFloats("--pe", *pe)
	if err != nil {
		return err
	}
	us, err := parseFloats("--loads", *loads)
	if err != nil {
		return err
	}
	waSource := ""
	if *wa != reproduce.MeasureWA {
		waSource = "given with --wa"
	}
	reading, err := dash.ParseReading(*readingName)
	if err != nil {
		return fmt.Errorf("%w: --reading: %v", errUsage, err)
	}
	c = reproduce.Fig9Case(c.Model, *system, *batch, *prompt, *output, reading)
	res, err := reproduce.EnduranceStudy(c, *wa, waSource, us, pes)
	if err != nil {
		return err
	}
	m := res.Measurement
	out := enduranceJSON{Formula: "lifetime = C_KV x E_SLC / (A_W x R_HBF x u)", Model: c.Model, System: c.System,
		Batch: c.Batch, PromptTokens: c.Prompt, OutputTokens: c.Output, KVCapacityGB: m.KVCapacity.GB(), WriteRateGBps: m.WriteRate.GBps(),
		WriteRateSource: m.WriteRateSource, WriteAmplification: m.WriteAmplification, WASource: m.WASource}
	for i, u := range res.Loads {
		for j, e := range res.PECycles {
			out.Lifetimes = append(out.Lifetimes, enduranceCellJSON{Utilization: u, PECycles: e, LifetimeYears: jsonSafe(res.Years[i][j])})
		}
	}
	if ok, err := writeData(stdout, *format, out, func() csvTable { return csvOf(out.Lifetimes) }); ok {
		return err
	}
	fmt.Fprintf(stdout, "%s\n  C_KV  = %.1f GB (KV-owned HBF superblocks of the flash model)\n  R_HBF = %.3f GB/s (%s)\n  A_W   = %g (%s)\n\nLifetime in years (rows: load u; columns: P/E cycles)\n\n",
		out.Formula, out.KVCapacityGB, out.WriteRateGBps, out.WriteRateSource, out.WriteAmplification, out.WASource)
	var t table
	head := []string{"u \\ P/E"}
	for _, e := range res.PECycles {
		head = append(head, strconv.FormatFloat(e, 'g', -1, 64))
	}
	t.add(head...)
	for i, u := range res.Loads {
		row := []string{fmt.Sprintf("%g%%", 100*u)}
		for _, y := range res.Years[i] {
			row = append(row, fmt.Sprintf("%.2f", y))
		}
		t.add(row...)
	}
	t.write(stdout)
	return nil
}

// flagSet reports whether the flag was given on the command line.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// jsonSafe maps +Inf (nothing written: no wear) to the largest float, which
// JSON can carry.
func jsonSafe(x float64) float64 {
	if math.IsInf(x, 1) {
		return math.MaxFloat64
	}
	return x
}
