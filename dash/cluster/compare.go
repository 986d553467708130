package cluster

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/dashlab/dashlab/dash/serve"
	"github.com/dashlab/dashlab/dash/unit"
)

// Contender is one way to buy serving capacity: an instance layout on a
// cluster (Data is ignored: capacity is bought in whole instances) and the
// price of one of its GPUs relative to the reference GPU.
type Contender struct {
	// ID is a short key ("dash-h100-pcie"); Label names the contender in
	// tables ("DASH, 1 GPU").
	ID    string `json:"id"`
	Label string `json:"label"`
	// Experiment is one instance.
	Experiment Experiment `json:"-"`
	// Price is one GPU's price in units of the reference GPU's (the
	// HBM-only GPU it would replace: 1). Illustrative, as the paper's r and
	// delta (§VI-G): see PriceRatio.
	Price float64 `json:"price"`
}

// CompareConfig is the comparison users ask for: the instances each
// contender needs for the same throughput with a P90 TPOT target.
type CompareConfig struct {
	// Contenders are the ways to buy capacity (at least one).
	Contenders []Contender
	// Scheduler is each attention group's scheduler (see ServeConfig).
	Scheduler serve.Scheduler
	// Prompt and Output are the request lengths.
	Prompt, Output serve.Length
	// TPOTTarget is the P90 TPOT each contender must meet.
	TPOTTarget unit.Duration
	// Targets are aggregate output throughputs (tokens/s) to provision,
	// the break-even table's rows.
	Targets []float64
	// Warmup and Measure are each trace's window, at least B_max and 2 x
	// B_max of the instance's scheduler; Seed its draw.
	Warmup, Measure int
	Seed            uint64
	// Steps is the bisection's steps over the load (0: 6).
	Steps int
	// Approx is serve's optional approximate pass model.
	Approx serve.Approx
}

// Capacity is what one instance of a contender serves within the target.
type Capacity struct {
	// ID, Label and Price are the contender's; GPUs one instance's GPUs.
	ID    string  `json:"id"`
	Label string  `json:"label"`
	Price float64 `json:"price"`
	GPUs  int     `json:"gpus"`
	// Saturation is the instance's backlogged throughput (requests/s).
	Saturation float64 `json:"saturation_rps"`
	// RateRPS is the highest load found whose P90 TPOT meets the target,
	// at most 95% of the backlogged rate (0: the target is missed at every
	// load tried); TokensPerS its output
	// tokens per second, PerGPU per GPU, PerCost per unit of price.
	RateRPS    float64 `json:"rate_rps"`
	TokensPerS float64 `json:"tokens_per_s"`
	PerGPU     float64 `json:"tokens_per_s_per_gpu"`
	PerCost    float64 `json:"tokens_per_s_per_price"`
	// P90TPOT and P90TTFT are the measured P90s at RateRPS.
	P90TPOTms float64 `json:"p90_tpot_ms"`
	P90TTFTs  float64 `json:"p90_ttft_s"`
	// JoulesPerToken is the GPUs' board power over the output tokens at
	// RateRPS, plus the interconnect's port energy.
	JoulesPerToken float64 `json:"joules_per_token"`
	// KVTokens is the KV capacity of one instance in tokens; Headroom the
	// concurrent requests of the workload it holds (KVTokens / (prompt +
	// output)) over the scheduler's batch limit.
	KVTokens int64   `json:"kv_tokens"`
	Headroom float64 `json:"kv_headroom"`
	// CommShare is the collectives' share of the instance's busy time.
	CommShare float64 `json:"comm_share"`
	// BreakEvenPrice is the GPU price at which the contender's tokens per
	// second per unit of cost equal the reference's (the first
	// contender's): a cheaper GPU wins (0 when either misses the target).
	BreakEvenPrice float64 `json:"break_even_price"`
	// Note says why a contender cannot meet the target, when it cannot.
	Note string `json:"note,omitempty"`
}

// Provision is one break-even row: the GPUs and cost each contender needs
// for a target throughput.
type Provision struct {
	// TargetTokS is the aggregate output throughput.
	TargetTokS float64 `json:"target_tok_s"`
	// Instances, GPUs and Cost are per contender (in Capacities' order);
	// 0 instances means the target cannot be met.
	Instances []int     `json:"instances"`
	GPUs      []int     `json:"gpus"`
	Cost      []float64 `json:"cost"`
}

// Comparison is the outcome.
type Comparison struct {
	// TPOTTarget is the target met.
	TPOTTarget unit.Duration `json:"tpot_target_ns"`
	// Capacities are the contenders', in order.
	Capacities []Capacity `json:"capacities"`
	// Provisions are the break-even rows, one per target.
	Provisions []Provision `json:"provisions"`
}

// PriceRatio is the price of a GPU with memory system costing mem HBM
// stacks against one whose memory costs ref HBM stacks, the rest of the
// GPU (die, package, board) costing gpu HBM stacks: (gpu + mem) /
// (gpu + ref). §VI-G's DASH memory costs mem = 2 + 2r + delta stacks (two
// HBM stacks, two HBF stacks at r each and the integration cost delta); an
// H100's five HBM3 stacks give ref = 5. Every input is illustrative (no
// vendor prices are published).
func PriceRatio(gpu, mem, ref float64) float64 {
	if gpu+ref <= 0 {
		return math.NaN()
	}
	return (gpu + mem) / (gpu + ref)
}

// Compare measures every contender's capacity within the target and the
// instances each needs per target throughput.
func Compare(ctx context.Context, cfg CompareConfig, progress func(label string, step, steps int)) (*Comparison, error) {
	if len(cfg.Contenders) == 0 {
		return nil, errors.New("compare: no contenders")
	}
	if cfg.TPOTTarget <= 0 {
		return nil, fmt.Errorf("tpot_target = %v: must be positive", cfg.TPOTTarget)
	}
	if cfg.Measure < 1 || cfg.Warmup < 0 {
		return nil, fmt.Errorf("warmup = %d, measure = %d: need a measured window", cfg.Warmup, cfg.Measure)
	}
	for i, c := range cfg.Contenders {
		if !c.Experiment.Valid() {
			return nil, fmt.Errorf("contender %d (%s): experiment not built", i, c.Label)
		}
		if !(c.Price > 0) || math.IsInf(c.Price, 0) {
			return nil, fmt.Errorf("contender %d (%s): price = %v: must be positive", i, c.Label, c.Price)
		}
	}
	steps := cfg.Steps
	if steps <= 0 {
		steps = 6
	}
	out := &Comparison{TPOTTarget: cfg.TPOTTarget}
	for _, c := range cfg.Contenders {
		capy, err := capacityOf(ctx, cfg, c, steps, progress)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Label, err)
		}
		out.Capacities = append(out.Capacities, capy)
	}
	ref := out.Capacities[0]
	for i, c := range out.Capacities {
		if ref.PerGPU > 0 && c.PerGPU > 0 {
			out.Capacities[i].BreakEvenPrice = ref.Price * c.PerGPU / ref.PerGPU
		}
	}
	for _, target := range cfg.Targets {
		p := Provision{TargetTokS: target}
		for _, c := range out.Capacities {
			n := 0
			if c.TokensPerS > 0 {
				n = int(math.Ceil(target/c.TokensPerS - 1e-9))
			}
			p.Instances = append(p.Instances, n)
			p.GPUs = append(p.GPUs, n*c.GPUs)
			p.Cost = append(p.Cost, float64(n*c.GPUs)*c.Price)
		}
		out.Provisions = append(out.Provisions, p)
	}
	return out, nil
}

// maxExtra bounds the requests a backlogged run adds beyond its window to
// keep its queue full.
const maxExtra = 1024

// maxLoad is the highest load tried, as a fraction of the backlogged
// rate: below it the queue stays stable over a window.
const maxLoad = 0.95

// capacityOf bisects the load of one instance for the highest rate whose
// P90 TPOT meets the target.
func capacityOf(ctx context.Context, cfg CompareConfig, c Contender, steps int, progress func(string, int, int)) (Capacity, error) {
	e := c.Experiment
	e.parallel.Data = 1
	kv := e.KVOf()
	capy := Capacity{ID: c.ID, Label: c.Label, Price: c.Price, GPUs: e.parallel.InstanceGPUs(), KVTokens: kv.Tokens}
	// A window must outlast the instance's batch, or it measures a burst
	// the instance absorbs, not a rate it sustains: at least B_max
	// requests of warm-up and 2 x B_max measured.
	bmax := (ServeConfig{Experiment: e, Scheduler: cfg.Scheduler}).InstanceScheduler().MaxBatch
	cfg.Warmup, cfg.Measure = max(cfg.Warmup, bmax), max(cfg.Measure, 2*bmax)
	shared := &sharedPasses{} // every run of the search shares its passes
	sc := ServeConfig{Experiment: e, Scheduler: cfg.Scheduler, Warmup: cfg.Warmup, Measure: cfg.Measure, Approx: cfg.Approx, shared: shared}
	mean := float64(cfg.Prompt.Min+max(cfg.Prompt.Min, cfg.Prompt.Max)) / 2
	meanOut := float64(cfg.Output.Min+max(cfg.Output.Min, cfg.Output.Max)) / 2
	if per := mean + meanOut; per > 0 {
		capy.Headroom = float64(kv.Tokens) / per / float64(sc.InstanceScheduler().MaxBatch)
	}
	report := func(k int) {
		if progress != nil {
			progress(c.Label, k, steps+1)
		}
	}
	// Saturation: every request waiting from time zero (the queue kept full
	// by up to 2 x B_max more, at most maxExtra).
	n := cfg.Warmup + cfg.Measure + min(2*sc.InstanceScheduler().MaxBatch, maxExtra)
	back, err := serve.Backlogged(n, cfg.Prompt, cfg.Output, cfg.Seed)
	if err != nil {
		return Capacity{}, err
	}
	sat, err := Serve(ctx, ServeConfig{Experiment: e, Scheduler: cfg.Scheduler, Approx: cfg.Approx, shared: shared}, back)
	if err != nil {
		return Capacity{}, err
	}
	report(0)
	capy.Saturation = saturationRPS(sat, cfg.Warmup, cfg.Measure)
	if capy.Saturation <= 0 {
		capy.Note = "no request completed"
		return capy, nil
	}
	try := func(f float64) (*Serving, error) {
		reqs, err := serve.Poisson(f*capy.Saturation, cfg.Warmup+cfg.Measure, cfg.Prompt, cfg.Output, cfg.Seed)
		if err != nil {
			return nil, err
		}
		return Serve(ctx, sc, reqs)
	}
	target := cfg.TPOTTarget.Milliseconds()
	lo, hi := 0.0, maxLoad
	var best *Serving
	bestF := 0.0
	for k := range steps {
		f := (lo + hi) / 2
		if k == 0 {
			f = hi // the highest load first: a system that meets the target there needs no search
		}
		s, err := try(f)
		if err != nil {
			return Capacity{}, err
		}
		report(k + 1)
		if s.Summary.TPOTms.P90 <= target && s.Rejected == 0 {
			best, bestF = s, f
			lo = f
			if k == 0 {
				break
			}
		} else {
			hi = f
		}
	}
	if best == nil {
		s, err := try(lo + (hi-lo)/2)
		if err != nil {
			return Capacity{}, err
		}
		capy.P90TPOTms = s.Summary.TPOTms.P90
		capy.Note = fmt.Sprintf("P90 TPOT %.1f ms above the %.0f ms target even at %.1f%% of the backlogged rate", s.Summary.TPOTms.P90, target, 100*(lo+(hi-lo)/2))
		return capy, nil
	}
	capy.RateRPS = bestF * capy.Saturation
	capy.TokensPerS = best.TokensPerS
	capy.PerGPU = capy.TokensPerS / float64(capy.GPUs)
	capy.PerCost = capy.PerGPU / c.Price
	capy.P90TPOTms = best.Summary.TPOTms.P90
	capy.P90TTFTs = best.Summary.TTFTs.P90
	if busy := best.Stats.GPUTime + best.Stats.CommTime; busy > 0 {
		capy.CommShare = best.Stats.CommTime.Seconds() / busy.Seconds()
	}
	if capy.TokensPerS > 0 {
		ports := 0.0
		for _, p := range best.Stats.Ports {
			ports += p.Energy
		}
		var tokens int64
		for _, r := range best.Instances {
			for _, m := range r.Measured {
				tokens += int64(m.Output)
			}
		}
		if tokens > 0 {
			capy.JoulesPerToken = float64(e.spec.GPU.Power)*float64(capy.GPUs)/capy.TokensPerS + ports/float64(tokens)
		}
	}
	return capy, nil
}

// saturationRPS is the backlogged rate: the measured completions after
// the warm-up over their span (as serve.MeasureSaturation).
func saturationRPS(s *Serving, warmup, measure int) float64 {
	var fin []unit.Duration
	for _, m := range s.Measured {
		fin = append(fin, m.Arrival+m.E2E)
	}
	if len(fin) < warmup+measure || measure < 1 {
		return 0
	}
	sortDurations(fin)
	var t0 unit.Duration
	if warmup > 0 {
		t0 = fin[warmup-1]
	}
	w := fin[warmup+measure-1] - t0
	if w <= 0 {
		return 0
	}
	return float64(measure) / w.Seconds()
}
