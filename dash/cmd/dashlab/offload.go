package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/offload"
	"github.com/dashlab/dashlab/internal/safeio"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/reference/reproduce"
)

func init() {
	register(&command{name: "offload", summary: "CPU-GPU offloading vs DASH (Fig. 10): weight streaming, CPU compute, Hybrid oracle", run: runOffload})
}

// offloadJSON is `dashlab offload --format json`.
type offloadJSON struct {
	Model       string            `json:"model"`
	HostProfile string            `json:"host_profile"`
	Reading     string            `json:"reading"`
	Prompt      int               `json:"prompt_tokens"`
	Output      int               `json:"output_tokens"`
	Evaluations []offloadRowJSON  `json:"evaluations"`
	CoreCurve   []coreCurveJSON   `json:"core_curve"`
	CoreFits    []amdahlFitJSON   `json:"core_fits"`
	Notes       map[string]string `json:"notes"`
}

type offloadRowJSON struct {
	Batch                         int     `json:"batch"`
	Cores                         int     `json:"cores"`
	CoresModelled                 bool    `json:"cores_modelled"`
	ActiveExperts                 int     `json:"active_experts"`
	CachedFraction                float64 `json:"cached_fraction"`
	DASHTPOTMs                    float64 `json:"dash_tpot_ms"`
	NonExpertMsPerToken           float64 `json:"non_expert_ms_per_token"`
	CPULayerMs                    float64 `json:"cpu_layer_ms"`
	ExpertCopyMs                  float64 `json:"expert_copy_pinned_ms"`
	WeightStreamingTPOTMs         float64 `json:"weight_streaming_tpot_ms"`
	WeightStreamingPageableTPOTMs float64 `json:"weight_streaming_pageable_tpot_ms"`
	CPUComputeTPOTMs              float64 `json:"cpu_compute_tpot_ms"`
	HybridTPOTMs                  float64 `json:"hybrid_tpot_ms"`
	HybridGPUExperts              int     `json:"hybrid_gpu_experts"`
	HybridCPUExperts              int     `json:"hybrid_cpu_experts"`
	WeightStreamingSlowdown       float64 `json:"weight_streaming_slowdown_vs_dash_x"`
	CPUComputeSlowdown            float64 `json:"cpu_compute_slowdown_vs_dash_x"`
	HybridSlowdown                float64 `json:"hybrid_slowdown_vs_dash_x"`
	HybridReductionPct            float64 `json:"hybrid_reduction_pct"`
}

type coreCurveJSON struct {
	Batch     int     `json:"batch"`
	Cores     int     `json:"cores"`
	LatencyMs float64 `json:"latency_ms"`
	Modelled  bool    `json:"modelled"`
}

type amdahlFitJSON struct {
	Batch      int     `json:"batch"`
	SerialMs   float64 `json:"serial_ms"`
	ParallelMs float64 `json:"parallel_ms"`
	MaxErrPct  float64 `json:"max_err_pct"`
}

func runOffload(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("offload", "offload [--batches 1,4,16,64] [--cores 32] [--prompt 1024] [--output 128] [--host xeon-8452y|h200-host-vm | --host-dir DIR] [--reading paper|physical] [--format table|json|csv [--table evaluations|core_curve|core_fits]]", stderr)
	batches := fs.String("batches", "1,4,16,64", "comma-separated batch sizes (each must have been measured on the host; at most 1000)")
	cores := fs.Int("cores", reproduce.Fig10Cores, "host core cap for CPU compute and the Hybrid, 1 to 4096 (core counts not measured come from the core-scaling model)")
	prompt := fs.Int("prompt", 1024, "prompt tokens L_in (prompt + output within the model's max_context)")
	output := fs.Int("output", 128, "output tokens L_out")
	hostID := fs.String("host", reference.PaperHost, "catalogue host (reference/hosts): "+strings.Join(reference.HostIDs(), ", ")+"; "+reference.PaperHost+", the paper's, is derived from the measured "+reference.MeasuredHost)
	hostDir := fs.String("host-dir", "", "directory with cpu_expert.csv and h2d.csv measured on your host (each at most 1 MiB; times 0.1 us to 1e10 us, copies 1 B to 1 TB at most 2 TB/s; replaces --host)")
	readingName := fs.String("reading", "paper", "reading of t_R for the engine's DASH run: paper or physical")
	format := fs.String("format", "table", "output format: table, json or csv (one table, see --table)")
	tables := addTableFlag(fs, "evaluations", "core_curve", "core_fits")
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
	reading, err := dash.ParseReading(*readingName)
	if err != nil {
		return fmt.Errorf("%w: --reading: %v", errUsage, err)
	}
	bs, err := parseInts("--batches", *batches)
	if err != nil {
		return err
	}
	if *cores < 1 || *cores > 4096 {
		return fmt.Errorf("%w: --cores %d: want 1 to 4096", errUsage, *cores)
	}
	host, err := reference.Host(*hostID)
	if err != nil {
		return fmt.Errorf("%w: --host: %v", errUsage, err)
	}
	if *hostDir != "" {
		host, err = offload.LoadHostProfile(os.DirFS(*hostDir), *hostDir, reference.HostOffloadShape)
	}
	if err != nil {
		return err
	}
	res, err := reproduce.Fig10Study(host, reproduce.OffloadOptions{Model: reproduce.Fig10Model, Batches: bs,
		Prompt: *prompt, Output: *output, Cores: []int{*cores}, Reading: reading})
	if err != nil {
		return err
	}
	out := offloadJSON{Model: reproduce.Fig10Model, HostProfile: host.Name, Reading: reading.String(), Prompt: *prompt, Output: *output,
		Notes: map[string]string{
			"cores_modelled":   "core caps the host did not measure come from a per-batch Amdahl fit T(c) = serial + parallel/c",
			"host":             hostNote(host),
			"weight_streaming": "uncached experts copied host->GPU over PCIe at the measured copy time, overlapped with GPU expert compute",
			"hybrid":           "best of every split of the active experts between GPU (cached first) and CPU, run concurrently",
		}}
	for _, e := range res.Evaluations {
		out.Evaluations = append(out.Evaluations, offloadRow(e))
	}
	for _, p := range res.Curve {
		out.CoreCurve = append(out.CoreCurve, coreCurveJSON{Batch: p.Batch, Cores: p.Cores, LatencyMs: p.Latency.Milliseconds(), Modelled: p.Modelled})
	}
	for _, f := range res.Fits {
		out.CoreFits = append(out.CoreFits, amdahlFitJSON{Batch: f.Batch, SerialMs: f.Serial.Milliseconds(), ParallelMs: f.Parallel.Milliseconds(), MaxErrPct: f.MaxErrPct})
	}
	if ok, err := writeData(stdout, *format, out, func() csvTable { return tables.pick(csvOf(out.Evaluations), csvOf(out.CoreCurve), csvOf(out.CoreFits)) }); ok {
		return err
	}
	writeOffloadTable(stdout, out)
	return nil
}

// hostNote says whether the host's layer times were measured or derived, and how.
func hostNote(h *offload.HostProfile) string {
	d := h.Derived
	if d == nil {
		return h.Name + ": measured"
	}
	return fmt.Sprintf("%s: derived, not measured, from the measured %s: T(c) = parallel x %.4f (base clocks %v / %v) / c + weights / %v (%d x DDR5-%d, the peak DRAM rate); copies as measured",
		h.Name, d.From.ID, d.ClockScale, d.From.BaseClock, d.To.BaseClock, d.Memory, d.To.MemoryChannels, d.To.MemoryMTs)
}

func offloadRow(e offload.Evaluation) offloadRowJSON {
	s := e.Scenario
	return offloadRowJSON{Batch: s.Batch, Cores: s.Cores, CoresModelled: e.CPUModelled, ActiveExperts: e.ActiveExperts,
		CachedFraction: s.CachedFraction, DASHTPOTMs: s.DASHTPOT.Milliseconds(), NonExpertMsPerToken: s.NonExpertPerToken.Milliseconds(),
		CPULayerMs: e.CPULayer.Milliseconds(), ExpertCopyMs: e.ExpertCopy.Milliseconds(),
		WeightStreamingTPOTMs: e.Streaming.TPOT.Milliseconds(), WeightStreamingPageableTPOTMs: e.StreamingPageable.TPOT.Milliseconds(),
		CPUComputeTPOTMs: e.CPU.TPOT.Milliseconds(), HybridTPOTMs: e.Hybrid.TPOT.Milliseconds(),
		HybridGPUExperts: e.Hybrid.GPUExperts, HybridCPUExperts: e.Hybrid.CPUExperts,
		WeightStreamingSlowdown: e.Slowdown(e.Streaming), CPUComputeSlowdown: e.Slowdown(e.CPU), HybridSlowdown: e.Slowdown(e.Hybrid),
		HybridReductionPct: e.HybridReductionPct()}
}

func writeOffloadTable(w io.Writer, o offloadJSON) {
	fmt.Fprintf(w, "%s, L_in/L_out = %d/%d, host profile %s: TPOT (ms) and slowdown vs the engine's DASH\n\n", o.Model, o.Prompt, o.Output, o.HostProfile)
	var t table
	t.add("B", "cores", "DASH", "streaming", "(pageable)", "CPU", "Hybrid", "split GPU/CPU", "Hybrid/DASH", "Hybrid gain")
	for _, r := range o.Evaluations {
		cores := strconv.Itoa(r.Cores)
		if r.CoresModelled {
			cores += " (modelled)"
		}
		t.add(strconv.Itoa(r.Batch), cores, f2(r.DASHTPOTMs), f2(r.WeightStreamingTPOTMs), f2(r.WeightStreamingPageableTPOTMs), f2(r.CPUComputeTPOTMs),
			f2(r.HybridTPOTMs), fmt.Sprintf("%d/%d", r.HybridGPUExperts, r.HybridCPUExperts), fmt.Sprintf("%.2fx", r.HybridSlowdown), fmt.Sprintf("%.1f%%", r.HybridReductionPct))
	}
	t.write(w)
	fmt.Fprintf(w, "\nFig. 10(a): host expert-layer latency (ms) by core cap; * = modelled (Amdahl fit)\n\n")
	var c table
	head := []string{"B"}
	var cores []int
	for _, p := range o.CoreCurve {
		if !slices.Contains(cores, p.Cores) {
			cores = append(cores, p.Cores)
			head = append(head, strconv.Itoa(p.Cores))
		}
	}
	c.add(head...)
	byBatch := map[int][]string{}
	var order []int
	for _, p := range o.CoreCurve {
		if _, ok := byBatch[p.Batch]; !ok {
			order = append(order, p.Batch)
		}
		cell := f2(p.LatencyMs)
		if p.Modelled {
			cell += "*"
		}
		byBatch[p.Batch] = append(byBatch[p.Batch], cell)
	}
	for _, b := range order {
		c.add(append([]string{strconv.Itoa(b)}, byBatch[b]...)...)
	}
	c.write(w)
	fmt.Fprintf(w, "\nhost %s\n", o.Notes["host"])
}

func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

// parseInts reads a comma-separated list of positive integers.
func parseInts(flag, s string) ([]int, error) {
	var out []int
	fields := strings.Split(s, ",")
	if len(fields) > maxListValues {
		return nil, fmt.Errorf("%w: %s: %d values; at most %d", errUsage, flag, len(fields), maxListValues)
	}
	for _, f := range fields {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 1<<20 {
			return nil, fmt.Errorf("%w: %s %s: want whole numbers from 1 to %d separated by commas", errUsage, flag, safeio.Quote(f), 1<<20)
		}
		out = append(out, n)
	}
	return out, nil
}
