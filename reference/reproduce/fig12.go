package reproduce

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
)

// Fig. 12: sensitivity of DASH to the HBF parameters (§VI-F), Llama 4
// Maverick at B/L_in/L_out = 1/4K/1M with the asymmetric KV placement
// (prompt KV in HBF, decode KV in HBM up to the budget, then written back
// page wave by page wave). Four sweeps, each normalized as the paper does:
// page size (to 4 KiB; transfer regions scaled with the page wave, for this
// study only), t_R (to 3 µs), per-route D2D bandwidth (to 1.6 TB/s), and
// t_PROG, which reports program-busy time against the E2E-exposed write
// stall: E2E at that t_PROG less E2E of the same run with programs that
// take no time (the data still move). And the 4K/1M point of Fig. 9(b):
// DASH against RelayOnly. Every sweep runs under every reading of t_R.

// Fig12Model is the model of the study; Fig12Workload its workload.
const Fig12Model = "llama4-maverick"

// fig12Workload is B/L_in/L_out = 1/4K/1M.
var fig12Workload = llama4LongDecode

// The sweeps' values.
var (
	Fig12PageSizes = []unit.Bytes{4 * unit.KiB, 8 * unit.KiB, 16 * unit.KiB, 32 * unit.KiB}
	Fig12TReads    = []unit.Duration{1 * unit.Microsecond, 2 * unit.Microsecond, 3 * unit.Microsecond, 4 * unit.Microsecond,
		8 * unit.Microsecond, 16 * unit.Microsecond, 32 * unit.Microsecond}
	Fig12TProgs = []unit.Duration{100 * unit.Microsecond, 200 * unit.Microsecond, 500 * unit.Microsecond,
		1 * unit.Millisecond, 2 * unit.Millisecond, 5 * unit.Millisecond}
	Fig12Links = []unit.BytesPerSecond{0.4e12, 0.8e12, 1.6e12, 3.2e12}
)

// Fig12Setup is what a sensitivity study runs: the readings of t_R, the
// sweeps' values (a sweep with no values is skipped; each sweep's
// reference point is always run), the decode length and its sampling.
type Fig12Setup struct {
	Readings  []dash.Reading
	PageSizes []unit.Bytes
	TReads    []unit.Duration
	TProgs    []unit.Duration
	Links     []unit.BytesPerSecond
	// Knobs are set on every run first (a what-if of the system; nil: none).
	Knobs []dash.Setting
	// ProgramModels are the NAND program models whose write stalls run (at
	// Fig12ProgramTProgs, under the paper reading), besides the part's own.
	ProgramModels []string
	// Output is L_out (the paper: 1M); DecodeSample the decode sampling.
	Output, DecodeSample int
	// Progress, when set, is told how many of the study's simulations have
	// finished (done of total): once before the first starts, then as each
	// ends, from one goroutine at a time. A notebook shows it in the cell
	// (nb.CountProgress), the CLI on stderr.
	Progress func(done, total int)
}

// Fig12ProgramTProgs are the t_PROG of the paper's stall ids, at which every NAND
// program model runs.
var Fig12ProgramTProgs = []unit.Duration{500 * unit.Microsecond, 5 * unit.Millisecond}

// programModelKnobs are the settings of a NAND program model (dash.ProgramModels).
func programModelKnobs(model string) []dash.Setting {
	scope := dash.ProgramStack
	if model == "planes" {
		scope = dash.ProgramPlanes
	}
	return []dash.Setting{knob("hbf.program_scope", scope), knob("hbf.program_suspend", model == "suspend")}
}

// ProgramVariant is the id suffix of a write stall under a program model other
// than the part's ("program_stack", "program_suspend").
func ProgramVariant(model string) string { return "program_" + model }

// DefaultFig12Setup is the paper's study: every reading, every sweep, and the
// write stalls under every NAND program model.
func DefaultFig12Setup() Fig12Setup {
	return Fig12Setup{Readings: dash.Readings(), PageSizes: Fig12PageSizes, TReads: Fig12TReads, TProgs: Fig12TProgs,
		Links: Fig12Links, ProgramModels: dash.ProgramModels(), Output: fig12Workload.Output, DecodeSample: summary.Fig12DecodeSample}
}

type fig12Case struct {
	param summary.Fig12Param
	value float64
	label string
	knob  dash.Setting
}

func fig12Cases(su Fig12Setup) []fig12Case {
	var cs []fig12Case
	for _, p := range withRef(su.PageSizes, 4*unit.KiB) {
		cs = append(cs, fig12Case{summary.Fig12PageSize, float64(p / unit.KiB), p.String(),
			knob("hbf.page_size", p)})
	}
	for _, t := range withRef(su.TReads, 3*unit.Microsecond) {
		cs = append(cs, fig12Case{summary.Fig12TRead, float64(t) / 1e3, t.String(),
			knob("hbf.t_read", t)})
	}
	for _, t := range withRef(su.TProgs, 100*unit.Microsecond) {
		cs = append(cs, fig12Case{summary.Fig12TProg, float64(t) / 1e3, t.String(),
			knob("hbf.t_prog", t)})
	}
	// The stall's reference: programs that take no array time.
	cs = append(cs, fig12Case{summary.Fig12TProg, 0, "0 (reference)",
		knob("hbf.t_prog", unit.Duration(1))})
	for _, l := range withRef(su.Links, 1.6e12) {
		cs = append(cs, fig12Case{summary.Fig12Link, float64(l) / 1e12, l.String(),
			knob("link.usable", l)})
	}
	return cs
}

// withRef returns xs with the reference value ref added, sorted.
func withRef[T ~int64 | ~float64](xs []T, ref T) []T {
	out := slices.Clone(xs)
	if !slices.Contains(out, ref) {
		out = append(out, ref)
	}
	slices.Sort(out)
	return out
}

// fig12Reference is each sweep's normalization point.
var fig12Reference = map[summary.Fig12Param]float64{summary.Fig12PageSize: 4, summary.Fig12TRead: 3, summary.Fig12TProg: 100, summary.Fig12Link: 1.6}

// Fig12Study runs a sensitivity study on workers goroutines (0: one per
// CPU).
func Fig12Study(su Fig12Setup, workers int) (*summary.Fig12Result, error) {
	return fig12Runs(su, workers, false)
}

// fig12Runs runs the study; with nominalOnly, only the nominal DASH and
// RelayOnly runs (no sweep points, no KV trajectory).
func fig12Runs(su Fig12Setup, workers int, nominalOnly bool) (*summary.Fig12Result, error) {
	if len(su.Readings) == 0 || su.Output < 2 || su.DecodeSample < 0 {
		return nil, fmt.Errorf("reproduce: Fig12Study: need a reading, an output of at least 2 tokens and a non-negative sampling (got %d readings, %d, %d)",
			len(su.Readings), su.Output, su.DecodeSample)
	}
	readings := su.Readings
	w := Fig9bWorkload{Label: fmt.Sprintf("4K/%d", su.Output), Prompt: fig12Workload.Prompt, Output: su.Output}
	cs := fig12Cases(su)
	if nominalOnly {
		cs = slices.DeleteFunc(cs, func(c fig12Case) bool { return c.value != fig12Reference[c.param] })
	}
	var cases []summary.Case
	opts := sim.Options{DecodeSample: su.DecodeSample}
	// The nominal point of every sweep is the same run: simulate it once.
	idx := make([]int, len(cs)) // case of each sweep point within a reading
	nominal := -1
	var unique []fig12Case
	for i, c := range cs {
		if c.value == fig12Reference[c.param] {
			if nominal < 0 {
				nominal = len(unique)
				unique = append(unique, c)
			}
			idx[i] = nominal
			continue
		}
		idx[i] = len(unique)
		unique = append(unique, c)
	}
	// The write stalls under the other NAND program models (the part's own is the
	// t_PROG sweep's): each t_PROG and the zero-time reference, under the paper reading.
	exp0, err := Build(summary.Case{Model: Fig12Model, System: "dash", Batch: 1, Prompt: w.Prompt, Output: w.Output, Knobs: su.Knobs})
	if err != nil {
		return nil, err
	}
	own := exp0.System().HBF.ProgramModel()
	var models []string
	if !nominalOnly && slices.Contains(readings, dash.ReadingPaper) {
		for _, m := range su.ProgramModels {
			if m != own {
				models = append(models, m)
			}
		}
	}
	progT := append(slices.Clone(Fig12ProgramTProgs), 1)
	// The runs of a reading that differ only in the NAND program parameters
	// (the nominal run, the t_PROG sweep and its zero-time reference, the
	// program models) share their base decode steps, which program nothing
	// (sim.DecodeSamples): each is simulated once.
	sharesSamples := func(c fig12Case) bool { return c.param == summary.Fig12TProg || c.value == fig12Reference[c.param] }
	sharing := 0
	for _, c := range unique {
		if sharesSamples(c) {
			sharing++
		}
	}
	shared := map[dash.Reading]sim.Options{}
	for _, rd := range readings {
		n := sharing
		if rd == dash.ReadingPaper {
			n += len(models) * len(progT)
		}
		shared[rd] = sim.Options{DecodeSample: su.DecodeSample, Samples: sim.NewDecodeSamples(n)}
	}
	for _, rd := range readings {
		for _, c := range unique {
			o := opts
			if sharesSamples(c) {
				o = shared[rd]
			}
			cases = append(cases, summary.Case{Model: Fig12Model, System: "dash", Batch: 1, Prompt: w.Prompt, Output: w.Output,
				Reading: rd, Knobs: withKnobs(su.Knobs, []dash.Setting{knob("execution.lookahead", true), c.knob}), Sim: o})
		}
		cases = append(cases, summary.Case{Model: Fig12Model, System: "relay-only", Batch: 1, Prompt: w.Prompt, Output: w.Output, Reading: rd, Knobs: su.Knobs, Sim: opts})
	}
	nMain := len(cases)
	for _, m := range models {
		for _, tp := range progT {
			cases = append(cases, summary.Case{Model: Fig12Model, System: "dash", Batch: 1, Prompt: w.Prompt, Output: w.Output, Reading: dash.ReadingPaper,
				Knobs: withKnobs(su.Knobs, append([]dash.Setting{knob("execution.lookahead", true), knob("hbf.t_prog", tp)}, programModelKnobs(m)...)), Sim: shared[dash.ReadingPaper]})
		}
	}
	// Run order: each reading's runs, the paper reading's program models right
	// after its own, so that each reading's shared base steps are dropped
	// before the next reading's runs (points are in cases' order).
	var order []int
	per := len(unique) + 1
	for ri, rd := range readings {
		for k := range per {
			order = append(order, ri*per+k)
		}
		if rd == dash.ReadingPaper {
			for k := nMain; k < len(cases); k++ {
				order = append(order, k)
			}
		}
	}
	ordered := make([]summary.Case, len(order))
	for k, i := range order {
		ordered[k] = cases[i]
	}
	points := make([]summary.Point, len(cases))
	for k, p := range sweepWith(ordered, workers, su.Progress) {
		points[order[k]] = p
	}
	if err := summary.SweepErr(points); err != nil {
		return nil, err
	}
	progPoints := points[nMain:]
	points = points[:nMain]
	res := &summary.Fig12Result{Nominal: map[dash.Reading]sim.Result{}, RelayOnly: map[dash.Reading]sim.Result{}, DecodeSample: su.DecodeSample}
	if p := fig12Workload; w.Output != p.Output { // the study's design: a 1M-token decode
		res.WhatIf = res.WhatIf.Add(dash.Change{Field: "L_in/L_out", From: lengthsLabel(p.Prompt, p.Output), To: lengthsLabel(w.Prompt, w.Output)})
	}
	res.ModelName = exp0.Model().Name
	if !nominalOnly {
		if res.KV, err = sim.KVTrajectory(exp0, 200); err != nil {
			return nil, err
		}
	}
	for ri, rd := range readings {
		run := points[ri*per : (ri+1)*per]
		block := make([]summary.Point, len(cs))
		for i := range cs {
			block[i] = run[idx[i]]
		}
		block = append(block, run[len(unique)])
		if p := block[len(cs)]; p.Err != nil {
			return nil, fmt.Errorf("relay-only 4K/1M: %w", p.Err)
		}
		res.RelayOnly[rd] = block[len(cs)].Result
		ref := map[summary.Fig12Param]sim.Result{}
		var zeroProg sim.Result
		for i, c := range cs {
			if block[i].Err != nil {
				return nil, fmt.Errorf("%s = %s: %w", c.param, c.label, block[i].Err)
			}
			if c.value == fig12Reference[c.param] {
				ref[c.param] = block[i].Result
			}
			if c.param == summary.Fig12TProg && c.value == 0 {
				zeroProg = block[i].Result
			}
		}
		res.Nominal[rd] = ref[summary.Fig12TRead]
		if nominalOnly {
			continue
		}
		for i, c := range cs {
			if c.param == summary.Fig12TProg && c.value == 0 {
				continue
			}
			r := block[i].Result
			pt := summary.Fig12Point{Param: c.param, Value: c.value, Label: c.label, Reading: rd, Result: r,
				Normalized: r.E2E.Seconds() / ref[c.param].E2E.Seconds()}
			if c.param == summary.Fig12TProg {
				pt.ProgramBusy = r.Flash.ProgramBusy
				pt.Stall = max(0, r.E2E-zeroProg.E2E)
			}
			res.Points = append(res.Points, pt)
		}
	}
	if !nominalOnly {
		for _, p := range res.Sweep(summary.Fig12TProg, dash.ReadingPaper) { // the part's own model
			if slices.Contains(Fig12ProgramTProgs, unit.Duration(math.Round(p.Value*1e3))) {
				res.Programs = append(res.Programs, summary.Fig12Program{Model: own, Default: true, TProg: unit.Duration(math.Round(p.Value * 1e3)),
					Result: p.Result, ProgramBusy: p.ProgramBusy, Stall: p.Stall, Suspends: suspends(p.Result)})
			}
		}
		for i, m := range models {
			block := progPoints[i*len(progT) : (i+1)*len(progT)]
			zero := block[len(progT)-1].Result
			for k, tp := range Fig12ProgramTProgs {
				r := block[k].Result
				res.Programs = append(res.Programs, summary.Fig12Program{Model: m, TProg: tp, Result: r, ProgramBusy: r.Flash.ProgramBusy,
					Stall: max(0, r.E2E-zero.E2E), Suspends: suspends(r)})
			}
		}
		res.Rows = fig12Rows(res)
	}
	return res, nil
}

// suspends counts a run's program suspensions.
func suspends(r sim.Result) int64 {
	var n int64
	for _, h := range r.HBF {
		n += h.Suspends
	}
	return n
}

// fig12Rows judges the study's numbers under the paper reading (none when it did not
// run under it): the KV split of the nominal run, the exposed write stalls and the
// 4K/1M comparison with RelayOnly; what-ifs when the study is not the paper's.
func fig12Rows(res *summary.Fig12Result) []summary.Row {
	nom, ok := res.Nominal[dash.ReadingPaper]
	if !ok {
		return nil
	}
	var rows []summary.Row
	add := func(id string, x float64) {
		if r, err := judge(id, dash.ReadingPaper, x, res.WhatIf); err == nil {
			rows = append(rows, r)
		}
	}
	add("fig12.kv_hbm_gb", nom.KV.HBM().GB())
	add("fig12.kv_hbf_gb", nom.KV.HBF().GB())
	add("fig9b.llama4_4k_1m.kv_cache_gb", nom.KV.Total().GB())
	for _, p := range res.Sweep(summary.Fig12TProg, dash.ReadingPaper) {
		if id := fig12StallIDs[p.Value]; id != "" {
			add(id, p.Stall.Seconds())
		}
	}
	if relay, ok := res.RelayOnly[dash.ReadingPaper]; ok && relay.DecodeThroughput > 0 {
		add("fig9b.llama4_4k_1m.throughput_speedup.vs_relay_only", nom.DecodeThroughput/relay.DecodeThroughput)
		add("fig9b.llama4_4k_1m.e2e_reduction_pct.vs_relay_only", summary.ReductionPct(nom.E2E.Seconds(), relay.E2E.Seconds()))
	}
	return rows
}

// KVStudy runs where a case's KV cache lives against generated tokens
// (sim.KVTrajectory at points samples) and judges the trajectory's last point against
// the paper's split at 1M tokens: what-ifs for a run that is not the paper's Fig. 12
// run (Fig12Changes).
func KVStudy(c summary.Case, points int) (summary.KVSplit, error) {
	exp, err := Build(c)
	if err != nil {
		return summary.KVSplit{}, err
	}
	traj, err := sim.KVTrajectory(exp, points)
	if err != nil {
		return summary.KVSplit{}, err
	}
	k := summary.KVSplit{Case: c, ModelName: exp.Model().Name, WhatIf: Fig12Changes(c, exp), Trajectory: traj}
	if len(traj) > 0 {
		last := traj[len(traj)-1]
		for id, x := range map[string]float64{"fig12.kv_hbm_gb": last.HBM.GB(), "fig12.kv_hbf_gb": last.HBF.GB()} {
			if r, err := judge(id, dash.ReadingPaper, x, k.WhatIf); err == nil { // placement: alike under every reading
				k.Rows = append(k.Rows, r)
			}
		}
		slices.SortFunc(k.Rows, func(a, b summary.Row) int { return strings.Compare(b.ID, a.ID) }) // HBM, then HBF
	}
	return k, nil
}

// fig12StallIDs are the paper ids of the exposed write stall by t_PROG (µs).
var fig12StallIDs = map[float64]string{500: "fig12.write_stall_s.tprog500us", 5000: "fig12.write_stall_s.tprog5ms"}

func init() {
	register(group{name: "fig12", prefixes: []string{"fig12."}, run: runFig12})
	register(group{name: "fig9b-llama4-1m", prefixes: []string{"fig9b.llama4_4k_1m."}, run: runLlama4LongDecode})
}

// runLlama4LongDecode sets Fig. 9(b)'s 4K/1M speedup of DASH over
// RelayOnly, from the Fig. 12 study's nominal runs when it ran, else from
// its own four runs (two systems, under each reading).
func runLlama4LongDecode(opts Options, art *Artifacts) (values, error) {
	var v values
	res := art.Fig12
	if res == nil {
		su := DefaultFig12Setup()
		su.PageSizes, su.TReads, su.TProgs, su.Links = nil, nil, nil, nil
		su.Readings, su.Knobs = opts.readings(), opts.Knobs
		su.Progress = opts.simProgress("fig9b-llama4-1m")
		var err error
		if res, err = fig12Runs(su, opts.Workers, true); err != nil {
			return v, err
		}
	}
	for _, rd := range opts.readings() {
		nom, relay := res.Nominal[rd], res.RelayOnly[rd]
		if nom.E2E == 0 || relay.E2E == 0 {
			continue
		}
		d := fmt.Sprintf("%v reading, decode sampled 1 block in %d: DASH E2E %v, RelayOnly %v", rd, summary.Fig12DecodeSample, nom.E2E, relay.E2E)
		sfx := ReadingSuffix(rd)
		v.Set("fig9b.llama4_4k_1m.throughput_speedup.vs_relay_only"+sfx, nom.DecodeThroughput/relay.DecodeThroughput, d)
		v.Set("fig9b.llama4_4k_1m.e2e_reduction_pct.vs_relay_only"+sfx, summary.ReductionPct(nom.E2E.Seconds(), relay.E2E.Seconds()), d)
	}
	return v, nil
}

func runFig12(opts Options, art *Artifacts) (values, error) {
	var v values
	su := DefaultFig12Setup()
	su.Progress = opts.simProgress("fig12")
	su.Readings, su.Knobs = opts.readings(), opts.Knobs
	if len(opts.Knobs) > 0 { // a what-if of the system: only the runs behind the paper's ids
		su.PageSizes, su.TReads, su.Links, su.TProgs, su.ProgramModels = nil, nil, nil, Fig12ProgramTProgs, nil
	}
	res, err := Fig12Study(su, opts.Workers)
	if err != nil {
		return v, err
	}
	art.Fig12 = res
	for _, rd := range su.Readings {
		sfx := ReadingSuffix(rd)
		kv := res.Nominal[rd].KV
		how := fmt.Sprintf("Llama 4 Maverick 1/4K/1M on dash, %v reading: decode KV in HBM up to the planner's budget %v (HBM less the replicated weights and the workspace), %d page waves written back from step %d",
			rd, kv.BudgetHBM, kv.WritebackWaves, kv.FirstWritebackStep)
		v.Set("fig12.kv_hbm_gb"+sfx, kv.HBM().GB(), how)
		v.Set("fig12.kv_hbf_gb"+sfx, kv.HBF().GB(), how+fmt.Sprintf("; prompt KV %v + written-back decode KV %v", kv.PrefillHBF, kv.DecodeHBF))
		for _, p := range res.Sweep(summary.Fig12TProg, rd) {
			if id := fig12StallIDs[p.Value]; id != "" {
				v.Set(id+sfx, p.Stall.Seconds(), fmt.Sprintf("%v reading, program model %s, t_PROG %s: program busy %v over the stacks, E2E %v against %v with programs taking no time",
					rd, res.OwnModel(), p.Label, p.ProgramBusy, p.Result.E2E, p.Result.E2E-p.Stall))
			}
		}
	}
	for _, p := range res.Programs {
		if id := fig12StallIDs[float64(p.TProg)/1e3]; id != "" && !p.Default {
			v.Set(id+"."+ProgramVariant(p.Model), p.Stall.Seconds(), fmt.Sprintf("paper reading, program model %s, t_PROG %v: program busy %v over the stacks, %d suspensions, E2E %v against %v with programs taking no time",
				p.Model, p.TProg, p.ProgramBusy, p.Suspends, p.Result.E2E, p.Result.E2E-p.Stall))
		}
	}
	return v, nil
}
