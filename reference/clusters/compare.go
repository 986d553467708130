package clusters

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/internal/safeio"
	"github.com/dashlab/dashlab/reference"
)

//go:embed compare/*.yaml
var compareFiles embed.FS

// CompareFile is a comparison file: contenders (cluster experiments with a
// GPU price), the serving workload and the P90 TPOT target.
//
//	model: qwen3-235b-a22b
//	tpot_target: 150ms
//	prompt: 4096
//	output: 128
//	scheduler: {max_batch: 32, token_budget: 8192, chunk_tokens: 512}
//	targets: [1000, 10000, 100000]   # output tokens/s to provision
//	warmup: 32
//	measure: 256
//	contenders:
//	  - {label: "HGX H200, EP8", price: 1, experiment: {cluster: hgx-h200, parallel: {expert: 8}}}
//	  - {label: "DASH, 1 GPU", price: 1, experiment: {cluster: hgx-h200, memory: dash}}
type CompareFile struct {
	ID         string            `yaml:"id,omitempty"`
	Model      string            `yaml:"model"`
	TPOTTarget unit.Duration     `yaml:"tpot_target"`
	Prompt     int               `yaml:"prompt"`
	Output     int               `yaml:"output"`
	Scheduler  SchedulerFile     `yaml:"scheduler"`
	Targets    []float64         `yaml:"targets"`
	Warmup     int               `yaml:"warmup"`
	Measure    int               `yaml:"measure"`
	Seed       uint64            `yaml:"seed,omitempty"`
	Steps      int               `yaml:"steps,omitempty"`
	KVQuantum  int               `yaml:"approx_kv_quantum,omitempty"`
	Contenders []ContenderFile   `yaml:"contenders"`
	Notes      string            `yaml:"notes,omitempty"`
	Sources    []string          `yaml:"sources,omitempty"`
	Published  []PublishedResult `yaml:"published,omitempty"`
}

// SchedulerFile is serve.Scheduler in a file (0 fields take the paper's).
type SchedulerFile struct {
	MaxBatch    int    `yaml:"max_batch,omitempty"`
	TokenBudget int    `yaml:"token_budget,omitempty"`
	Chunk       int    `yaml:"chunk_tokens,omitempty"`
	Mode        string `yaml:"mode,omitempty"`
}

// Scheduler is the file's scheduler with the paper's values where unset.
func (s SchedulerFile) Scheduler() (serve.Scheduler, error) {
	p := serve.PaperScheduler()
	if s.MaxBatch > 0 {
		p.MaxBatch = s.MaxBatch
	}
	if s.TokenBudget > 0 {
		p.TokenBudget = s.TokenBudget
	}
	if s.Chunk > 0 {
		p.Chunk = s.Chunk
	}
	if s.Mode != "" {
		m, err := serve.ParseMode(s.Mode)
		if err != nil {
			return serve.Scheduler{}, fmt.Errorf("scheduler.mode: %w", err)
		}
		p.Mode = m
	}
	return p, p.Validate()
}

// ContenderFile is one contender of a comparison file. ID keys its
// reproduce ids (cluster.<comparison>.<metric>.<id>); Report puts it in the
// reproduction's report (the others run with 'dashlab cluster compare').
type ContenderFile struct {
	ID         string  `yaml:"id"`
	Report     bool    `yaml:"report,omitempty"`
	Label      string  `yaml:"label"`
	Price      float64 `yaml:"price"`
	Experiment File    `yaml:"experiment"`
}

// PublishedResult is a published measurement of an HBM-only deployment of
// a catalogue model (the external check): its source, cited exactly, the
// deployment as a cluster experiment, the benchmark's workload (every
// request sent at once, as "vllm bench serve" does without a request rate)
// and what it measured. Check simulates the same.
type PublishedResult struct {
	// Source cites the measurement: document, version, section.
	Source string `yaml:"source"`
	// Description says what was measured, in the source's words.
	Description string `yaml:"description"`
	// Experiment is the deployment (cluster, memory, layout).
	Experiment File `yaml:"experiment"`
	// Scheduler is the serving engine's batching (its defaults, cited in
	// Source).
	Scheduler SchedulerFile `yaml:"scheduler"`
	// Requests, Prompt and Output are the benchmark's workload.
	Requests int `yaml:"requests"`
	Prompt   int `yaml:"prompt"`
	Output   int `yaml:"output"`
	// OutputTokS, MeanTPOTms, MeanTTFTs and DurationS are the published
	// output throughput, mean TPOT, mean TTFT and benchmark duration;
	// GeneratedTokens the tokens it generated (below requests x output when
	// requests stopped early).
	OutputTokS      float64 `yaml:"output_tok_s"`
	MeanTPOTms      float64 `yaml:"mean_tpot_ms"`
	MeanTTFTs       float64 `yaml:"mean_ttft_s"`
	DurationS       float64 `yaml:"duration_s"`
	GeneratedTokens int     `yaml:"generated_tokens"`
}

// CheckResult is a published measurement beside the simulation of the same
// deployment and workload.
type CheckResult struct {
	Published PublishedResult `json:"published"`
	// OutputTokS is the simulated output throughput: the tokens generated
	// over the time from the first arrival to the last completion (the
	// benchmark's definition); MeanTPOTms, MeanTTFTs and DurationS as
	// published.
	OutputTokS float64 `json:"output_tok_s"`
	MeanTPOTms float64 `json:"mean_tpot_ms"`
	MeanTTFTs  float64 `json:"mean_ttft_s"`
	DurationS  float64 `json:"duration_s"`
	// Ratio is simulated over published output throughput.
	Ratio float64 `json:"ratio"`
}

// Check simulates a published measurement's deployment and workload.
func Check(ctx context.Context, p PublishedResult, model string) (CheckResult, error) {
	x := p.Experiment
	if x.Model == "" {
		x.Model = model
	}
	e, err := x.Builder().Build()
	if err != nil {
		return CheckResult{}, err
	}
	sc, err := p.Scheduler.Scheduler()
	if err != nil {
		return CheckResult{}, err
	}
	reqs, err := serve.Backlogged(p.Requests, serve.Fixed(p.Prompt), serve.Fixed(p.Output), 1)
	if err != nil {
		return CheckResult{}, err
	}
	s, err := cluster.Serve(ctx, cluster.ServeConfig{Experiment: e, Scheduler: sc}, reqs)
	if err != nil {
		return CheckResult{}, err
	}
	r := CheckResult{Published: p}
	var end unit.Duration
	tokens := 0
	for _, m := range s.Measured {
		end = max(end, m.Arrival+m.E2E)
		tokens += m.Output
	}
	if end > 0 {
		r.DurationS = end.Seconds()
		r.OutputTokS = float64(tokens) / r.DurationS
	}
	r.MeanTPOTms, r.MeanTTFTs = s.Summary.TPOTms.Mean, s.Summary.TTFTs.Mean
	if p.OutputTokS > 0 {
		r.Ratio = r.OutputTokS / p.OutputTokS
	}
	return r, nil
}

// DecodeCompare reads a comparison file.
func DecodeCompare(r io.Reader, source string) (CompareFile, error) {
	var f CompareFile
	if err := dash.DecodeStrict(r, source, &f); err != nil {
		return CompareFile{}, err
	}
	return f, nil
}

// LoadCompare reads a comparison file from disk.
func LoadCompare(file string) (CompareFile, error) {
	data, err := safeio.ReadFile(file)
	if err != nil {
		return CompareFile{}, err
	}
	return DecodeCompare(bytes.NewReader(data), file)
}

// Comparison returns a shipped comparison (reference/clusters/compare).
func Comparison(id string) (CompareFile, error) {
	data, err := compareFiles.ReadFile(path.Join("compare", id+".yaml"))
	if err != nil {
		return CompareFile{}, &reference.UnknownError{Kind: "comparison", ID: id, Known: ComparisonIDs()}
	}
	return DecodeCompare(bytes.NewReader(data), "reference/clusters/compare/"+id+".yaml")
}

// ComparisonIDs lists the shipped comparisons.
func ComparisonIDs() []string {
	entries, _ := compareFiles.ReadDir("compare")
	var ids []string
	for _, e := range entries {
		ids = append(ids, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	slices.Sort(ids)
	return ids
}

// ForReport is the file with only the contenders marked report (the
// first is the reference).
func (f CompareFile) ForReport() CompareFile {
	c := f
	c.Contenders = nil
	for _, x := range f.Contenders {
		if x.Report {
			c.Contenders = append(c.Contenders, x)
		}
	}
	return c
}

// Config builds every contender and returns the comparison's
// configuration. Each contender's experiment takes the file's model when
// it names none.
func (f CompareFile) Config() (cluster.CompareConfig, error) {
	sc, err := f.Scheduler.Scheduler()
	if err != nil {
		return cluster.CompareConfig{}, err
	}
	cfg := cluster.CompareConfig{Scheduler: sc, Prompt: serve.Fixed(f.Prompt), Output: serve.Fixed(f.Output),
		TPOTTarget: f.TPOTTarget, Targets: f.Targets, Warmup: f.Warmup, Measure: f.Measure, Seed: f.Seed,
		Steps: f.Steps, Approx: serve.Approx{KVQuantum: f.KVQuantum}}
	if len(f.Contenders) == 0 {
		return cluster.CompareConfig{}, fmt.Errorf("contenders: none")
	}
	for i, c := range f.Contenders {
		x := c.Experiment
		if x.Model == "" {
			x.Model = f.Model
		}
		e, err := x.Builder().Build()
		if err != nil {
			return cluster.CompareConfig{}, fmt.Errorf("contenders[%d] (%s): %w", i, c.Label, err)
		}
		price := c.Price
		if price == 0 {
			price = 1
		}
		cfg.Contenders = append(cfg.Contenders, cluster.Contender{ID: c.ID, Label: c.Label, Experiment: e, Price: price})
	}
	return cfg, nil
}
