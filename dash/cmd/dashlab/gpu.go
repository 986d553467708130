package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/dash/gpu"
	"github.com/dashlab/dashlab/internal/safeio"
	"github.com/dashlab/dashlab/reference"
)

func init() {
	register(&command{
		name:    "gpu",
		summary: "GPU timing model: predict operator latencies, validate a profile",
		run:     runGPU,
	})
}

const gpuUsage = `Usage: dashlab gpu <subcommand> [flags]

Subcommands:
  predict   read operator shapes (CSV on stdin), write them with predicted_us
  validate  leave-one-out and held-out errors of a profile's timing model

Run 'dashlab gpu <subcommand> -h' for its flags.`

func runGPU(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: %s", errUsage, gpuUsage)
	}
	switch args[0] {
	case "predict":
		return gpuPredict(args[1:], stdin, stdout, stderr)
	case "validate":
		return gpuValidate(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprintln(stdout, gpuUsage)
		return nil
	}
	return fmt.Errorf("%w: unknown gpu subcommand %q\n\n%s", errUsage, args[0], gpuUsage)
}

// loadGPUProfile loads a shipped profile by name or a profile directory.
func loadGPUProfile(nameOrDir string) (*gpu.Profile, error) {
	if nameOrDir == "" {
		return nil, fmt.Errorf("%w: --profile is required (a shipped profile: %s; or a directory)", errUsage, strings.Join(reference.ProfileNames(), ", "))
	}
	return reference.LoadProfile(nameOrDir)
}

// derivedNote is printed whenever a model is derived rather than measured.
func derivedNote(m *gpu.Model) string {
	return fmt.Sprintf("note: %s is derived, not measured: latencies are the %s profile scaled by SM count x boost clock (compute) and HBM bandwidth (memory)",
		m.GPU().ID, m.ProfileGPU().ID)
}

func gpuPredict(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("gpu predict", fmt.Sprintf("gpu predict --profile NAME_OR_DIR --kind gemm|grouped|attn|misc [--gpu ID] [--detail] < shapes.csv  (sizes 1 to %d, at most %d MiB)", gpu.MaxProfileDim, gpu.MaxShapeBytes>>20), stderr)
	profile := fs.String("profile", reference.DefaultProfile, "shipped profile name ("+strings.Join(reference.ProfileNames(), ", ")+") or a directory with the same CSV files (each at most 1 MiB; sizes 1 to 16Mi, latencies 0.01 us to 1e9 us)")
	kind := fs.String("kind", "", "operator file kind: gemm, grouped, attn or misc (the input has that file's header)")
	gpuID := fs.String("gpu", "", "target GPU id (h200-sxm, h100-pcie); default: the profile's own GPU")
	detail := fs.Bool("detail", false, "also write compute_us, overhead_us and extrapolated")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected arguments %q (shapes are read from stdin)", errUsage, fs.Args())
	}
	if !slices.Contains(gpu.ProfileKinds, *kind) {
		return fmt.Errorf("%w: --kind %q: want one of %s", errUsage, *kind, strings.Join(gpu.ProfileKinds, ", "))
	}
	p, err := loadGPUProfile(*profile)
	if err != nil {
		return err
	}
	target := p.GPU()
	if *gpuID != "" && *gpuID != target.ID {
		if target, err = reference.GPU(*gpuID); err != nil {
			return fmt.Errorf("%w: --gpu: %v", errUsage, err)
		}
	}
	m, err := gpu.NewModel(p, target)
	if err != nil {
		return err
	}
	shapes, err := gpu.ReadShapes(stdin, "stdin", *kind)
	if err != nil {
		return err
	}
	if m.Derived() {
		fmt.Fprintln(stderr, derivedNote(m))
	}
	extra := []string{"predicted_us"}
	if *detail {
		extra = append(extra, "compute_us", "overhead_us", "extrapolated")
	}
	header := slices.Clone(shapes.Header)
	col := make([]int, len(extra)) // where each extra column goes
	for i, name := range extra {
		if j := slices.Index(header, name); j >= 0 {
			col[i] = j // replace a column of that name
		} else {
			col[i] = len(header)
			header = append(header, name)
		}
	}
	w := csv.NewWriter(stdout)
	if err := w.Write(header); err != nil {
		return err
	}
	us := func(d interface{ Microseconds() float64 }) string {
		return strconv.FormatFloat(d.Microseconds(), 'f', 3, 64)
	}
	for i, rec := range shapes.Records {
		out := make([]string, len(header))
		copy(out, rec)
		pr := m.Predict(shapes.Ops[i])
		if pr.OutOfRange {
			return fmt.Errorf("stdin:%d: %s: its time or bytes pass what the timing model represents (1e18 ns, about 31.7 years; 1 EB): the shape is out of range",
				shapes.Lines[i], safeio.Quote(strings.Join(rec, ",")))
		}
		vals := []string{us(pr.Latency), us(pr.Compute), us(pr.Overhead), strconv.FormatBool(pr.Extrapolated)}
		for j := range extra {
			out[col[j]] = vals[j]
		}
		if err := w.Write(out); err != nil {
			return err
		}
	}
	w.Flush()
	return w.Error()
}

func gpuValidate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("gpu validate", "gpu validate --profile NAME_OR_DIR [--format table|json|csv]", stderr)
	profile := fs.String("profile", reference.DefaultProfile, "shipped profile name ("+strings.Join(reference.ProfileNames(), ", ")+") or a directory with the same CSV files (each at most 1 MiB; sizes 1 to 16Mi, latencies 0.01 us to 1e9 us)")
	format := fs.String("format", "table", "output format: table, json or csv (one row per validation set and kind)")
	if err := parseNoArgs(fs, args, format); err != nil {
		return err
	}
	p, err := loadGPUProfile(*profile)
	if err != nil {
		return err
	}
	loo, err := p.LeaveOneOut()
	if err != nil {
		return err
	}
	held, err := p.HeldOut()
	if err != nil {
		return err
	}
	byModel, err := p.HeldOutByModel()
	if err != nil {
		byModel = nil // a profile with one model's GEMMs has nothing to hold out
	}
	sizes, err := p.HeldOutSweep()
	if err != nil {
		return err
	}
	jitter, err := p.SweepJitter()
	if err != nil {
		return err
	}
	repeats := p.Repeats()
	out := gpuValidateJSON{Profile: *profile, GPU: p.GPU().ID, Env: gpuEnvJSON(p.Env),
		LeaveOneOut: errorStatsOf(loo), HeldOutFamilies: errorStatsOf(held), HeldOutModels: errorStatsOf(byModel),
		HeldOutSizes: errorStatsOf(sizes), Repeats: errorStatsOf(repeats), SizeJitter: sweepJitterOf(jitter)}
	if ok, err := writeData(stdout, *format, out, func() csvTable { return out.csv() }); ok {
		return err
	}
	g := p.GPU()
	fmt.Fprintf(stdout, "profile %s: %s (%s, %d SMs), measured %s, torch %s, CUDA %s\n",
		*profile, g.ID, p.Env.GPU, p.Env.SMs, orDash(p.Env.Date), orDash(p.Env.Torch), orDash(p.Env.CUDA))
	section := func(title string, stats []gpu.ErrorStats) {
		if len(stats) == 0 {
			return
		}
		fmt.Fprintf(stdout, "\n%s\n", title)
		var t table
		t.add("kind", "points", "median", "p90")
		for _, s := range stats {
			t.add(s.Kind, strconv.Itoa(s.Count), fmt.Sprintf("%.2f%%", s.MedianPct), fmt.Sprintf("%.2f%%", s.P90Pct))
		}
		t.write(stdout)
	}
	section("leave-one-out: each measurement predicted from all the others (relative error of the median latency)", loo)
	section("held out: each shape family predicted from the other families (MLA decode and routing have one family each)", held)
	section("held out by model: every GEMM shape of one model predicted from the other models'", byModel)
	section("held out by size: every measurement of one M (rows per expert, KV length) predicted from the other sizes, where it lies between them", sizes)
	fmt.Fprintf(stdout, "\nwhat the profile allows: no model predicts a measurement better than a second measurement of it does\n")
	section("repeated shapes: each measurement of a shape measured twice (shared by two models) predicted by the other", repeats)
	if len(jitter) > 0 {
		fmt.Fprintf(stdout, "\nsize jitter: each interior size's departure from the straight line through its neighbours (log latency over roofline,\n"+
			"in log size), scaled to one measurement's share; the held-out-by-size error of a model that knew the smooth curve exactly.\n"+
			"lag-1: correlation of neighbouring departures, -0.67 if every size departs independently, near +1 for a curve the roofline misses\n")
		var t table
		t.add("kind", "sizes", "median", "p90", "lag-1")
		for _, s := range jitter {
			t.add(s.Kind, strconv.Itoa(s.Count), fmt.Sprintf("%.2f%%", s.MedianPct), fmt.Sprintf("%.2f%%", s.P90Pct), fmt.Sprintf("%.2f", s.Lag1))
		}
		t.write(stdout)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// gpuValidateJSON is `dashlab gpu validate --format json`: the relative
// errors of the timing model's predictions in three validations.
type gpuValidateJSON struct {
	Profile string     `json:"profile"`
	GPU     string     `json:"gpu"`
	Env     gpuEnvJSON `json:"env"`
	// LeaveOneOut predicts each measurement from all the others;
	// HeldOutFamilies each shape family from the other families;
	// HeldOutModels each model's GEMM shapes from the other models';
	// HeldOutSizes each size (M, rows per expert, KV length) from the others.
	LeaveOneOut     []errorStatsJSON `json:"leave_one_out"`
	HeldOutFamilies []errorStatsJSON `json:"held_out_families"`
	HeldOutModels   []errorStatsJSON `json:"held_out_models"`
	HeldOutSizes    []errorStatsJSON `json:"held_out_sizes"`
	// Repeats and SizeJitter are what the profile's own noise allows
	// (gpu.Profile.Repeats, gpu.Profile.SweepJitter): each measurement of a
	// repeated shape predicted by the other, and the estimated floor of
	// HeldOutSizes.
	Repeats    []errorStatsJSON  `json:"repeats"`
	SizeJitter []sweepJitterJSON `json:"size_jitter"`
}

// sweepJitterJSON is gpu.SweepJitter: the estimated jitter of each interior
// size, in percent, and the lag-1 correlation of the departures (null when
// too few).
type sweepJitterJSON struct {
	errorStatsJSON
	Lag1Corr *float64 `json:"lag1_corr"`
}

func sweepJitterOf(js []gpu.SweepJitter) []sweepJitterJSON {
	out := []sweepJitterJSON{}
	for _, j := range js {
		s := sweepJitterJSON{errorStatsJSON: errorStatsOf([]gpu.ErrorStats{j.ErrorStats})[0]}
		if !math.IsNaN(j.Lag1) {
			s.Lag1Corr = &j.Lag1
		}
		out = append(out, s)
	}
	return out
}

// gpuEnvJSON is gpu.Env with snake_case keys (env.json spells some with
// capitals: copy_bw_GBps_read_plus_write).
type gpuEnvJSON struct {
	GPU           string  `json:"gpu"`
	SMs           int     `json:"sms"`
	MemGB         float64 `json:"mem_gb"`
	Torch         string  `json:"torch"`
	CUDA          string  `json:"cuda"`
	DType         string  `json:"dtype"`
	Date          string  `json:"date"`
	Method        string  `json:"method"`
	CopyGBps      float64 `json:"copy_bw_gbps_read_plus_write"`
	MatmulTFLOPs  float64 `json:"bf16_matmul_tflops_8192"`
	TinyKernelUs  float64 `json:"tiny_kernel_us"`
	MaxSMClockMHz float64 `json:"max_sm_clock_mhz"`
	L2Bytes       int64   `json:"l2_bytes"`
}

// errorStatsJSON is one kind's relative errors, in percent.
type errorStatsJSON struct {
	Kind         string  `json:"kind"`
	Points       int     `json:"points"`
	MedianErrPct float64 `json:"median_err_pct"`
	P90ErrPct    float64 `json:"p90_err_pct"`
}

func errorStatsOf(stats []gpu.ErrorStats) []errorStatsJSON {
	out := []errorStatsJSON{}
	for _, s := range stats {
		out = append(out, errorStatsJSON{Kind: s.Kind, Points: s.Count, MedianErrPct: s.MedianPct, P90ErrPct: s.P90Pct})
	}
	return out
}

// csv is one row per validation set and kind.
func (o gpuValidateJSON) csv() csvTable {
	t := csvTable{header: []string{"set", "kind", "points", "median_err_pct", "p90_err_pct", "lag1_corr"}}
	for _, set := range []struct {
		name  string
		stats []errorStatsJSON
	}{{"leave_one_out", o.LeaveOneOut}, {"held_out_families", o.HeldOutFamilies}, {"held_out_models", o.HeldOutModels},
		{"held_out_sizes", o.HeldOutSizes}, {"repeats", o.Repeats}} {
		for _, s := range set.stats {
			t.rows = append(t.rows, []string{set.name, s.Kind, strconv.Itoa(s.Points), csvFloat(s.MedianErrPct), csvFloat(s.P90ErrPct), ""})
		}
	}
	for _, s := range o.SizeJitter {
		lag := ""
		if s.Lag1Corr != nil {
			lag = csvFloat(*s.Lag1Corr)
		}
		t.rows = append(t.rows, []string{"size_jitter", s.Kind, strconv.Itoa(s.Points), csvFloat(s.MedianErrPct), csvFloat(s.P90ErrPct), lag})
	}
	return t
}
