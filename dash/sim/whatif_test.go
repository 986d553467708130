package sim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
)

// Invariants on random what-ifs (issue 21).
//
// A seeded generator draws a memory system and the knobs of a run: 1 to 8
// stack pairs of one or two HBM stacks (or an HBM-only package), each path
// present or absent where the GPU still reaches both memories, every link
// (by kind, and single links) and the HBM array and TSV at 0.01x to 10x
// the paper's rate, t_R 0.1 to 100 µs, t_PROG 10 µs to 10 ms, pages 2 to
// 64 KiB, 1 to 4 SRAM regions, either reading of t_R, lookahead on or off,
// any catalogue model that fits, B 1 to 256, and a fixed batch or a short
// serving trace of mixed passes. On each what-if the checks below hold
// (checkWhatIf); TestRandomWhatIfs runs a few hundred seeds in the
// ordinary test run and FuzzWhatIf any number more.

// whatIf is one drawn experiment.
type whatIf struct {
	seed                  uint64
	model                 string
	system                dash.SystemSpec
	batch, prompt, output int
	lookahead             bool
	serve                 bool
	desc                  []string
	// deadline, when set, bounds the wall time of all the what-if's runs:
	// a run past it stops with a BudgetError and the what-if is skipped
	// (FuzzWhatIf: the fuzzer kills a worker whose input takes 10 s of
	// wall time, golang/go#56238, which a loaded machine reaches).
	deadline time.Time
}

func (w whatIf) String() string {
	return fmt.Sprintf("seed %d: %s B=%d %d/%d lookahead=%v serve=%v; %s", w.seed, w.model, w.batch, w.prompt, w.output,
		w.lookahead, w.serve, strings.Join(w.desc, ", "))
}

// logUniform draws from [lo, hi] uniformly in log.
func logUniform(r *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + r.Float64()*(math.Log(hi)-math.Log(lo)))
}

// drawSystem draws a memory system over DASH's parts.
func drawSystem(r *rand.Rand) (dash.SystemSpec, []string) {
	s := reference.MustSystem("dash")
	var desc []string
	t := &s.Topology
	t.Pairs = []int{1, 1, 2, 2, 2, 3, 4, 8}[r.IntN(8)]
	switch x := r.Float64(); {
	case x < 0.1:
		t.HBMOnly, t.GPUHBF, t.HBMHBF = true, false, false
		t.Pairs = 1 + r.IntN(8)
		desc = append(desc, fmt.Sprintf("HBM only x%d", t.Pairs))
	case x < 0.3:
		t.HBMPerPair = 2
	}
	if !t.HBMOnly {
		paths := [][2]bool{{true, true}, {true, true}, {false, true}, {true, false}}[r.IntN(4)]
		t.GPUHBF, t.HBMHBF = paths[0], paths[1]
		desc = append(desc, t.Name())
	}
	s.Link.GTPerSecond *= 25 // raw headroom for the 10x links, made 2x faster
	rate := func(base unit.BytesPerSecond) unit.BytesPerSecond {
		return unit.BytesPerSecond(float64(base) * logUniform(r, 0.01, 10))
	}
	t.GPUHBMUsable, t.GPUHBFUsable, t.HBMHBFUsable = rate(s.Link.Usable), rate(s.Link.Usable), rate(s.Link.Usable)
	if r.IntN(3) == 0 { // single links of their own
		rates := map[string]unit.BytesPerSecond{}
		for _, name := range t.LinkNames() {
			if r.IntN(2) == 0 {
				rates[name] = rate(s.Link.Usable)
			}
		}
		t.LinkUsable = dash.WithLinkUsable(rates)
		desc = append(desc, fmt.Sprintf("%d links of their own rate", len(rates)))
	}
	s.HBM.ArrayBandwidth = rate(s.HBM.ArrayBandwidth)
	s.HBF.TSVBandwidth = rate(s.HBF.TSVBandwidth)
	s.HBF.TRead = unit.Duration(logUniform(r, 100, 100_000)) // 0.1 .. 100 µs
	s.HBF.TProg = unit.Duration(logUniform(r, 10_000, 10_000_000))
	s.SetPageSize(unit.Bytes(2<<r.IntN(6)) * unit.KiB) // 2 .. 64 KiB
	s.HBF.SRAM.Regions, s.HBM.RelaySRAM.Regions = 1+r.IntN(4), 1+r.IntN(4)
	s.HBF.ReadWavesInFlight = []dash.WaveDepth{dash.ReadWavesUnbounded, 1}[r.IntN(2)] // the paper and physical readings
	s.HBF.CacheRead = r.IntN(4) != 0
	desc = append(desc, fmt.Sprintf("links %.3g/%.3g/%.3g TB/s, HBM %.3g, TSV %.3g TB/s, t_R %v, t_PROG %v, page %v, SRAM %dx%v, relay %dx%v, waves %d, cache read %v",
		t.GPUHBMUsable.TBps(), t.GPUHBFUsable.TBps(), t.HBMHBFUsable.TBps(), s.HBM.ArrayBandwidth.TBps(), s.HBF.TSVBandwidth.TBps(),
		s.HBF.TRead, s.HBF.TProg, s.HBF.PageSize, s.HBF.SRAM.Regions, s.HBF.SRAM.RegionSize,
		s.HBM.RelaySRAM.Regions, s.HBM.RelaySRAM.RegionSize, s.HBF.ReadWavesInFlight, s.HBF.CacheRead))
	return s, desc
}

// drawWhatIf draws the what-if of a seed: a system and the first catalogue
// model (in a random order) that fits it.
func drawWhatIf(seed uint64) (whatIf, dash.Experiment, error) {
	r := rand.New(rand.NewPCG(seed, 0x21))
	w := whatIf{seed: seed}
	w.system, w.desc = drawSystem(r)
	w.batch = int(logUniform(r, 1, 256.99))
	w.prompt = int(logUniform(r, 16, 512))
	w.output = 2 + r.IntN(4)
	w.lookahead = r.IntN(2) == 0
	w.serve = r.IntN(4) == 0
	models := reference.ModelIDs()
	r.Shuffle(len(models), func(i, j int) { models[i], models[j] = models[j], models[i] })
	var last error
	for _, m := range models {
		w.model = m
		exp, err := w.builder().Build()
		var ce *dash.CapacityError
		if err == nil {
			return w, exp, nil
		}
		if !errors.As(err, &ce) {
			return w, dash.Experiment{}, err
		}
		last = err
	}
	return w, dash.Experiment{}, last
}

func (w whatIf) builder() dash.ExperimentBuilder {
	return reference.Experiment(w.model, "dash").System(w.system).Batch(w.batch).Prompt(w.prompt).Output(w.output).Lookahead(w.lookahead)
}

// outcome is what a what-if measured: E2E (the serving trace's total time)
// and the first token's time.
type outcome struct {
	e2e, ttft, tpot Time
	routes          []RouteStats
}

// serveRows is the short serving trace: passes of mixed prefill chunks and
// decode rows over the what-if's prompt length.
func (w whatIf) serveRows() [][]Row {
	p := w.prompt
	half := max(1, p/2)
	return [][]Row{
		{{Tokens: half, Cached: 0, Prompt: p}, {Tokens: p, Cached: 0, Prompt: p}},
		{{Tokens: p - half, Cached: half, Prompt: p}, {Tokens: 1, Cached: p, Prompt: p}},
		{{Tokens: 1, Cached: p, Prompt: p}, {Tokens: 1, Cached: p + 1, Prompt: p}, {Tokens: p, Cached: 0, Prompt: p}},
		{{Tokens: 1, Cached: p + 1, Prompt: p}, {Tokens: 1, Cached: p + 2, Prompt: p}, {Tokens: 1, Cached: p, Prompt: p}},
	}
}

// runWhatIf runs the what-if's experiment (fixed batch, or the serving
// trace on a Passer) under opts.
func (w whatIf) run(exp dash.Experiment, opts Options) (outcome, error) {
	opts.MaxEvents, opts.MaxWall = 20_000_000, time.Minute
	if !w.deadline.IsZero() {
		opts.MaxWall = time.Until(w.deadline)
		if opts.MaxWall <= 0 {
			return outcome{}, &BudgetError{Budget: "wall clock", Limit: "the what-if's deadline"}
		}
	}
	if !w.serve {
		r, err := RunWith(exp, opts)
		return outcome{e2e: r.E2E, ttft: r.TTFT, tpot: r.TPOT, routes: r.Routes}, err
	}
	p, err := NewPasser(exp, opts)
	if err != nil {
		return outcome{}, err
	}
	var o outcome
	for k, rows := range w.serveRows() {
		res, err := p.Run(rows)
		if err != nil {
			return o, err
		}
		if res.Duration <= 0 {
			return o, fmt.Errorf("pass %d took %v", k, res.Duration)
		}
		if k == 0 {
			o.ttft = p.Now()
		}
	}
	o.e2e, o.tpot = p.Now(), (p.Now()-o.ttft)/3
	for rt := range numRoutes {
		if p.e.st.requested[rt] > 0 {
			o.routes = append(o.routes, RouteStats{Route: rt, Requested: p.e.st.requested[rt], Delivered: p.e.st.delivered[rt]})
		}
	}
	return o, nil
}

// faster is one part of the system made faster (or a latency shorter), for
// the monotonicity check.
type faster struct {
	what   string
	modify func(*dash.SystemSpec)
}

func fasterParts(s dash.SystemSpec) []faster {
	x := 2.0
	out := []faster{
		{"GPU-HBM links", func(s *dash.SystemSpec) {
			s.Topology.GPUHBMUsable *= unit.BytesPerSecond(x)
			scaleLinks(s, dash.LinkGPUHBM, x)
		}},
		{"HBM arrays", func(s *dash.SystemSpec) { s.HBM.ArrayBandwidth *= unit.BytesPerSecond(x) }},
	}
	if s.Topology.HBMOnly {
		return out
	}
	out = append(out,
		faster{"TSVs", func(s *dash.SystemSpec) { s.HBF.TSVBandwidth *= unit.BytesPerSecond(x) }},
		faster{"t_R", func(s *dash.SystemSpec) { s.HBF.TRead = max(dash.MinTRead, s.HBF.TRead/2) }},
		faster{"t_PROG", func(s *dash.SystemSpec) { s.HBF.TProg = max(unit.Nanosecond, s.HBF.TProg/2) }},
		faster{"HBF SRAM", func(s *dash.SystemSpec) { s.HBF.SRAM.Regions++ }},
		faster{"relay SRAM", func(s *dash.SystemSpec) { s.HBM.RelaySRAM.Regions++ }},
	)
	if s.Topology.GPUHBF {
		out = append(out, faster{"GPU-HBF links", func(s *dash.SystemSpec) {
			s.Topology.GPUHBFUsable *= unit.BytesPerSecond(x)
			scaleLinks(s, dash.LinkGPUHBF, x)
		}})
	}
	if s.Topology.HBMHBF {
		out = append(out, faster{"HBM-HBF links", func(s *dash.SystemSpec) {
			s.Topology.HBMHBFUsable *= unit.BytesPerSecond(x)
			scaleLinks(s, dash.LinkHBMHBF, x)
		}})
	}
	return out
}

// scaleLinks multiplies the rates of the single links of a kind.
func scaleLinks(s *dash.SystemSpec, kind dash.LinkKind, x float64) {
	rates, _ := s.Topology.SingleLinks()
	for name, r := range rates {
		if linkKindOf(name) == kind {
			rates[name] = unit.BytesPerSecond(float64(r) * x)
		}
	}
	s.Topology.LinkUsable = dash.WithLinkUsable(rates)
}

// linkKindOf is the kind of a link by its name ("gpu-hbm0", "hbm1-hbf0").
func linkKindOf(name string) dash.LinkKind {
	switch {
	case strings.HasPrefix(name, "gpu-hbm"):
		return dash.LinkGPUHBM
	case strings.HasPrefix(name, "gpu-hbf"):
		return dash.LinkGPUHBF
	}
	return dash.LinkHBMHBF
}

// Tolerances of the relative checks, measured (see the closing note of
// issue 21 and TestWhatIfSweep for the distribution). The strict checks
// (bytes, rates, times, the shortcuts) have none. A part made faster or a
// path added can lengthen a run a little through the engine's scheduling,
// which is greedy and works in whole chunks and whole experts: a faster
// resource changes the order in which chunks reach the FIFO servers
// downstream (list-scheduling anomalies), a program that goes first holds
// the array for t_PROG whenever it becomes ready, and a path much slower
// than the others adds a chunk or an expert that ends after the rest.
// Measured on the 10,000 what-ifs of seeds 30000-40000 (main b39aee0,
// 9,996 run, 4 over the wall budget, 0 failed; four parts of 2,500):
// a part faster, 9,734 comparisons, 331 longer, p99 +0.11..+0.19% and
// p99.9 +2.8..+4.8% in each part, max +10.5% (32823: GPU-HBM links 31 ->
// 62 GB/s draw whole experts onto the Relay set, decode TPOT 35.8 ->
// 39.6 ms; 32227, +10.2%: t_R halved, the prefill KV programs, 1 ms each,
// land on other reads); three paths against a subset, 8,920 comparisons,
// 1,347 longer, p99 +5.2..+6.9% and p99.9 +12.7..+17.2% in each part, max
// +23.0% (36427, 38547 +21.6%, 33206 +17.3%: a transfer SRAM of two
// regions, one or both held by chunks of a Relay or Direct route of 23 to
// 39 GB/s while they cross its link, the fast route left one region or
// none; 36188, +21.3%: the prefill KV's program, 5.4 ms, starts when its
// data are in SRAM, over Direct before the output projection's weights
// are issued, over Relay under the expert compute). The tolerances are
// those maxima, rounded up to the next percent. They are not bounds: fresh
// seeds 40100-50000 on c86e25f (9,898 run) found four what-ifs beyond them,
// three of them engine bugs since fixed (see TestWhatIfRegressions: 40509,
// a KV write given the transfer SRAM ahead of the running operator's read;
// 49905, the HBM-only rule's start-up costed with a whole chunk; 47867, the
// split blind to programs committed ahead of the HBF reads) and one a
// whole-expert effect (40309, faster GPU-HBF links +11.5%: the stacks' TSV
// binds every route set alike, so the assignment's tie-break by each set's
// own time puts one expert in seven on a 16 GB/s Relay set). Fresh seeds
// 50000-60000 on cae9085 (9,999 run, two parts of 5,000 at GOMAXPROCS=1,
// 946 + 1,004 s) found one: 54175, t_PROG halved +12.2% (llama4-maverick,
// a transfer SRAM of two 4 MiB chunk slots that Relay chunks crossing a
// 19.6 GB/s link hold 214 us each, so that a different phase of the
// interleave at the experts' start leaves the 163 GB/s Direct route one
// slot or none: the experts of a prefill layer 130 -> 179 ms; the same
// before the split counted programs). A part faster: 9,736 comparisons, 259
// longer, p99 +0.05..+0.07%, max +12.17% (54175) then +8.27% (57557);
// three paths against a subset: 9,130 comparisons, 1,351 longer, p99
// +5.8..+6.0%, max +22.47% (58243). Both are list scheduling of whole
// chunks and experts, not physics; a pick rule that keeps a transfer-SRAM
// slot for the fast route would address 54175 and moves the paper's point
// (issue 21). Fresh seeds 60000-70000 on 9ea0214 (10,000 run, 843 s a part
// of 5,000): three beyond, 60123 (t_R halved +12.9%: Compact-DASH, a 128
// MiB transfer SRAM of two 64 MiB slots that Direct chunks crossing a 42
// GB/s link hold 1.6 ms each), 60957 (three paths +25.5%, fixed since: a
// 64 MiB Direct chunk leading an 18 MiB Relay part, see
// TestWhatIfRegressions) and 68574 (three paths +25.3%, +19.1% since the
// whole-expert ties go by the leximin order); a part faster p99 +0.08..
// +0.09%, subsets p99 +5.8..+6.8%. Fresh seeds 70000-80000 on e991bb9
// (9,997 run, 821 + 1,533 s, the second beside other work): three
// beyond, 74687 (one more HBF SRAM region +21.3%: the prefill KV write,
// held out of the larger SRAM, programs under the experts' reads), 77627
// (three paths +40.5% over no GPU-HBF links: Direct chunks of 16 MiB over
// a 17 GB/s link filling a two-slot SRAM) and 78859 (HBM arrays twice as
// fast +35.8%: Relay chunks waiting in a two-slot HBF SRAM for a one-slot
// relay SRAM while the 40 GB/s Direct run waits for a slot; it passed
// before the leads followed Johnson's rule, and 54175 and 60123 fail as
// before); a part faster p99 +0.09..+0.14%, max as listed; subsets p99
// +4.8..+5.4%, p99.9 +11.6..+12.4%. The class left is the two-slot
// transfer SRAM that one slow-draining route fills: the interleave's
// weights are fluid rates, blind to the slots. Counting, in the split and
// the expert assignment, the regions a prefill KV write holds while its
// program waits for reads (the paper's reading) fixed 77627 (+40.5% ->
// +2.8%) and 78859 and was reverted: where the write's program started
// before the reads (the array idle when it landed) the regions were not
// held, and 95219 got 33% slower (7.93 -> 10.53 s). Fresh seeds
// 90000-95000 on 97777cb (5,000 run, 1,255 s at GOMAXPROCS=1 beside the
// CI run): two beyond, both as before the commit: 91597 (t_PROG halved
// +20.1%, the physical reading, a two-slot transfer SRAM: the class above)
// and, a second class, 94654 (one
// more relay SRAM region +86.5%: an HBF stack shared by two HBM stacks
// whose two 24.9 GB/s HBM-HBF links then carry the experts one after the
// other, 662 ms, instead of at once, 329 ms); a part faster p99 +0.12%,
// subsets p99 +4.3%, max +17.3%. That second class, and 74687, 77627 and
// 78859 above, were one engine bug: a pending program whose written data
// left the sensed reads too few transfer-SRAM regions waited for them
// while they left a route at a time (programStuck now lets it go first;
// no id of the reproduction moved). Fresh seeds 100000-110000 on 2f7da31
// (10,000 run, 786 + 799 s at GOMAXPROCS=1, two parts at once): two
// beyond, 107269 (faster GPU-HBF links +16.9%, a transfer SRAM of two 32
// MiB slots: the class above) and 108542 (one more relay SRAM region
// +15.4%: one Relay route whose chunks filled and drained one after the
// other through the one region a pending program's data left; fixed since
// by counting the region the TSV fills, which moved Fig. 12's write stall
// at 500 us from 3.625 to 3.489 s and at 5 ms from 49.11 to 48.97 s); a
// part faster p99 +0.10..+0.18%, max +5.7% besides those two; subsets p99
// +4.9%, p99.9 +10.8..+12.3%, max +20.7% (106986). Fresh seeds
// 110000-120000 on b578290 (10,000 run, 664 + 678 s, two parts at once):
// one beyond, 114262 (faster GPU-HBF links +11.9%: a transfer SRAM of two
// 4 MiB slots shared by the Direct route and two Relay routes, the class
// above, the same before both commits); a part faster p99 +0.11..+0.12%,
// max +6.6% besides it; subsets p99 +4.4..+6.0%, p99.9 +10.9..+15.6%, max
// +23.5% (115820). In 107269 of that class the faster links drew one
// expert in eight onto Direct (one more route on the two slots: 19.2 ->
// 22.8 ms a decode layer), and in 91597, with t_PROG halved, the prefill
// KV write gathered its wave under the experts' reads, a region held per
// chunk, instead of ending before them (89 -> 163 ms a prefill layer).
// Both are fixed since: assignExperts opens at most as many route sets as
// a stack's transfer SRAM has chunk slots (107269 +16.9% -> 0, 114262
// +11.9% -> 0, 81596 +28.5% -> +3.9%, 36427 +29.6% -> +9.6%), and a write
// whose whole wave fits in the SRAM goes first (writeFirst: 54175 +16.4%
// -> 0, 91597 +20.1% -> 0); 11 ids of the reproduction moved, none across
// pass/fail, Fig. 12's main write stall ids unchanged. Fresh seeds
// 120000-130000 on that engine (10,000 run, 849 + 847 s at GOMAXPROCS=1,
// two parts at once): none beyond; a part faster 9,748 comparisons, p99
// +0.09..+0.16%, p99.9 +2.2%, max +10.2% (125363); three paths against a
// subset 9,046 comparisons, p99 +4.7..+5.2%, p99.9 +11.2%, max +19.0%
// (125603).
const (
	// monotoneTol bounds how much longer E2E may get when a part gets
	// faster (0.12 until b39aee0: 38843 at +13.0%).
	monotoneTol = 0.11
	// subsetTol bounds how much longer a topology with more paths may take
	// than one with a subset of them and the same parts (0.40 before the
	// expert sets counted their chunks' lag: 46% to 57% then).
	subsetTol = 0.24
)

// checkWhatIf runs one what-if and checks its invariants; deep adds the
// checks that rerun it (event by event, with a part faster, with fewer
// paths). It returns the what-if and an error naming the first violation.
func checkWhatIf(seed uint64, deep bool) (whatIf, error) {
	return checkWhatIfWithin(seed, deep, nil, time.Time{})
}

// excess collects what the relative checks measured: how much longer E2E
// got (relative, 0 when not longer) when a part got faster, and with all
// three paths against each subset, and the seed of each.
type excess struct {
	monotone, subset   []float64
	monoSeed, subSeeds []uint64
}

func checkWhatIfInto(seed uint64, deep bool, m *excess) (whatIf, error) {
	return checkWhatIfWithin(seed, deep, m, time.Time{})
}

// checkWhatIfWithin is checkWhatIfInto with the what-if's runs bounded by
// deadline (zero: a minute a run); a what-if that does not finish within
// it is skipped (its model left empty).
func checkWhatIfWithin(seed uint64, deep bool, m *excess, deadline time.Time) (whatIf, error) {
	return checkWhatIfRuns(seed, deep, true, m, deadline)
}

// checkWhatIfRuns is checkWhatIfWithin with the event-by-event rerun
// (NoJump) left out when eventByEvent is false: a what-if whose run event
// by event outlasts the budget keeps its other checks.
func checkWhatIfRuns(seed uint64, deep, eventByEvent bool, m *excess, deadline time.Time) (whatIf, error) {
	w, exp, err := drawWhatIf(seed)
	w.deadline = deadline
	if err != nil {
		var ce *dash.CapacityError
		if errors.As(err, &ce) {
			return w, nil // nothing in the catalogue fits: no what-if
		}
		return w, fmt.Errorf("build: %w", err)
	}
	a := &auditor{}
	o, err := w.run(exp, Options{audit: a})
	var be *BudgetError
	if errors.As(err, &be) {
		w.model = "" // too large to check within the test's budget
		return w, nil
	}
	if err != nil {
		return w, fmt.Errorf("run: %w", err)
	}
	if err := a.Err(); err != nil {
		return w, fmt.Errorf("physics: %w", err)
	}
	if err := sane(o); err != nil {
		return w, err
	}
	if err := inventoryMatches(exp, w); err != nil {
		return w, err
	}
	if !deep {
		return w, nil
	}
	// Event by event: the shortcuts change nothing, and every operator
	// receives each byte it needs from the memory that holds it.
	if eventByEvent {
		a = &auditor{}
		slow, err := w.run(exp, Options{NoJump: true, audit: a})
		if errors.As(err, &be) {
			w.model = ""
			return w, nil // the event-by-event run is too long for the test's budget
		}
		if err != nil {
			return w, fmt.Errorf("run (NoJump): %w", err)
		}
		if err := a.Err(); err != nil {
			return w, fmt.Errorf("physics (NoJump): %w", err)
		}
		if slow.e2e != o.e2e || slow.ttft != o.ttft || !slices.Equal(slow.routes, o.routes) {
			return w, fmt.Errorf("NoJump: E2E %v, TTFT %v; with shortcuts %v, %v", slow.e2e, slow.ttft, o.e2e, o.ttft)
		}
	}
	// A faster part never makes the run longer.
	parts := fasterParts(w.system)
	f := parts[int(seed%uint64(len(parts)))]
	v := w
	f.modify(&v.system)
	got, err := v.outcome()
	if errors.As(err, &be) {
		w.model = ""
		return w, nil
	}
	if err != nil {
		return w, fmt.Errorf("faster %s: %w", f.what, err)
	}
	if m != nil {
		m.monotone = append(m.monotone, max(0, float64(got.e2e)/float64(o.e2e)-1))
		m.monoSeed = append(m.monoSeed, seed)
	}
	if float64(got.e2e) > float64(o.e2e)*(1+monotoneTol) {
		return w, fmt.Errorf("faster %s: E2E %v, longer than %v (%+.3f%%)", f.what, got.e2e, o.e2e, 100*(float64(got.e2e)/float64(o.e2e)-1))
	}
	// More paths never slower than a subset of them with the same parts.
	t := w.system.Topology
	if t.GPUHBF && t.HBMHBF {
		for _, drop := range []string{"gpu_hbf", "hbm_hbf"} {
			v := w
			if drop == "gpu_hbf" {
				v.system.Topology.GPUHBF = false
			} else {
				v.system.Topology.HBMHBF = false
			}
			all, _ := w.system.Topology.SingleLinks()
			keep := map[string]unit.BytesPerSecond{}
			for _, name := range v.system.Topology.LinkNames() {
				if r, ok := all[name]; ok {
					keep[name] = r
				}
			}
			v.system.Topology.LinkUsable = dash.WithLinkUsable(keep)
			got, err := v.outcome()
			if errors.As(err, &be) {
				w.model = ""
				return w, nil
			}
			if err != nil {
				return w, fmt.Errorf("without %s: %w", drop, err)
			}
			if m != nil {
				m.subset = append(m.subset, max(0, float64(o.e2e)/float64(got.e2e)-1))
				m.subSeeds = append(m.subSeeds, seed)
			}
			if float64(o.e2e) > float64(got.e2e)*(1+subsetTol) {
				return w, fmt.Errorf("all three paths: E2E %v, longer than without %s (%v, %+.3f%%)", o.e2e, drop, got.e2e, 100*(float64(o.e2e)/float64(got.e2e)-1))
			}
		}
	}
	return w, nil
}

// outcome builds and runs a variant of the what-if.
func (w whatIf) outcome() (outcome, error) {
	exp, err := w.builder().Build()
	if err != nil {
		return outcome{}, err
	}
	return w.run(exp, Options{})
}

// sane checks that the times are positive and finite and every route
// delivered what it was asked.
func sane(o outcome) error {
	if o.ttft <= 0 || o.e2e < o.ttft || o.tpot <= 0 || o.e2e > MaxTime {
		return fmt.Errorf("times: TTFT %v, TPOT %v, E2E %v", o.ttft, o.tpot, o.e2e)
	}
	for _, rt := range o.routes {
		if rt.Requested != rt.Delivered {
			return fmt.Errorf("route %s: requested %v, delivered %v", rt.Route, rt.Requested, rt.Delivered)
		}
	}
	return nil
}

// inventoryMatches checks that the operators of a prefill and a decode
// pass read, layer by layer, the bytes the model's inventory holds (the
// weights the layer's operators use, shared and selected experts) and the
// KV their spans cover.
func inventoryMatches(exp dash.Experiment, w whatIf) error {
	pb := newProgramBuilder(exp)
	m := exp.Model()
	lw := exp.Inventory().Layers(m)
	kv := exp.Footprint().KVBytesPerTokenPerLayer
	derived := unit.Bytes(0)
	if pb.lookahead {
		derived = dash.LookaheadRouterBytes(m)
	}
	for _, decode := range []bool{false, true} {
		ctx := w.prompt + 1
		if !decode {
			ctx = w.prompt
		}
		p := pb.build(decode, ctx, 1)
		tokens := w.batch
		if !decode {
			tokens *= w.prompt
		}
		weights := map[int]unit.Bytes{}
		kvRead := map[int]unit.Bytes{}
		routed := map[int]unit.Bytes{}
		for _, op := range p.ops {
			weights[op.layer] += op.weights + unit.Bytes(op.sharedN)*op.sharedBytes
			routed[op.layer] += unit.Bytes(op.routedN) * op.expertSize
			kvRead[op.layer] += op.kvHBM + op.kvHBF
		}
		for i, l := range lw {
			want := l.Attention + l.Norms + l.Router + l.DenseFFN + l.SharedExperts
			if l.MoE {
				want += derived
				active := min(m.FFN.RoutedExperts, tokens*m.FFN.TopK)
				if routed[i] != unit.Bytes(active)*l.RoutedExpert {
					return fmt.Errorf("layer %d (decode %v): %v of selected experts, want %d x %v", i, decode, routed[i], active, l.RoutedExpert)
				}
			}
			if weights[i] != want {
				return fmt.Errorf("layer %d (decode %v): operators read %v of weights, the inventory has %v", i, decode, weights[i], want)
			}
			span := roundUp(m.AttentionSpan(i, ctx), exp.Execution().BlockTokens())
			if want := unit.Bytes(w.batch) * unit.Bytes(span) * kv; decode && kvRead[i] != want {
				return fmt.Errorf("layer %d: KV read %v, want %v", i, kvRead[i], want)
			}
		}
	}
	return nil
}

// TestRandomWhatIfs checks the invariants on a few hundred seeded
// what-ifs: each run, every fourth also event by event, with a faster
// part and without each of its paths.
func TestRandomWhatIfs(t *testing.T) {
	n := 240
	if testing.Short() {
		n = 40
	}
	ran := 0
	for seed := range uint64(n) {
		w, err := checkWhatIf(seed, seed%4 == 0)
		if err != nil {
			t.Errorf("%v\n  %v", w, err)
			continue
		}
		if w.model != "" {
			ran++
		}
	}
	t.Logf("%d what-ifs checked", ran)
}

// TestWhatIfRegressions are the what-ifs that found engine bugs, checked
// in full: a program waiting for the array while written KV filled the
// transfer SRAM and sensed data waited for a region (a deadlock: 93, 188,
// 192); a slow route fed as many chunks as the others and holding them
// back in SRAM (124, 20, 772); the HBM-only rule for small tensors timed
// by the slowest HBF route (772); an interleave by run size that the
// periodic jumps could not repeat (499, 363, 744, 936); expert sets
// chosen without the transfer SRAM they share (1120); a run that drained
// first leaving the others of its group with the credits they built up
// against it, so that the run with the most took all its chunks before a
// slow relay route got any (66: t_R halved, E2E +28%); sensed data
// dropped for a program put back as one read group, so that the selected
// experts of a later operator, interleaved with the running operator's
// data, took every transfer-SRAM region waiting for their operator to
// start (a deadlock: 31929, 34675, 31319, 33598, 33634); a written chunk
// that took the transfer SRAM's last region from the sensed data a
// pending program waited for, with nothing left to look again (a
// deadlock in RelayOnly: 32086, 31476, 35347); selected experts put on a
// Relay set whose stack parts were a chunk or less, costed at its slowest
// link's rate while a chunk crosses its links one after the other (all
// three paths 46% to 57% longer than without hbm_hbf: 32145, 32814,
// 32818, 39437); a prefill KV write held out of the transfer SRAM by the
// reads sensed ahead for later operators until they stopped, so that its
// program landed on a later operator's reads, or, with more SRAM, did not
// (faster GPU-HBF links +28.6%, t_R +16.4%, HBF SRAM +12.5%: 30940, 37902,
// 37274); an expert set of one chunk a stack on a slow Relay route sensed
// a third of the way through the Direct run's chunks, when the round
// robin's credit of its tiny weight had grown to the others', and a picked
// chunk that did not fit the page wave losing its turn, so that the
// second Relay route's chunk waited a whole round (faster HBM-HBF links
// +13.0%: 38843; all three paths +14.6% over no HBM-HBF links: 30057);
// a Relay run that led the interleave without paying for its chunk, so
// that its second chunk took the other region of a two-region transfer
// SRAM while its first still crossed a 28 GB/s link, stopping the Direct
// run (+28.5%: 32862); a KV write given the one-region transfer SRAM
// ahead of the running operator's own sensed chunk, so that it waited for
// every program of the write (all three paths +44.9%: 40509); the HBM-only
// rule for small tensors costing the HBF start-up with a whole transfer
// chunk (32 MiB relay regions) where the part was 2.6 MB, so that a 2x
// faster HBM array drew the projections off HBF (+38.8%: 49905), which
// put 21-byte norm parts on Relay in 31476 and showed that a stream's
// operator, which orders a write's claim on the transfer SRAM
// (writeFirst), was neither in the shortcuts' keys nor renumbered by a
// layer jump (TTFT 0.3 ms off NoJump; bytes lost with segments replayed);
// the split of replicated weights blind to the programs committed ahead
// of the HBF reads, so that the output projection's small Direct share
// waited for a 150 ms prefill KV write the subset without GPU-HBF links
// never waited for (all three paths +32.4%: 47867); and that split blind
// to the KV write the attention issues after the output projection's reads
// were sensed ahead, so that more transfer SRAM let the write's programs
// in ahead of them (HBF SRAM +16.2%: 37274); and whole experts assigned,
// when a resource every route set loads binds (eight TSVs of 53 GB/s), by
// each set's own time, so that one expert in seven went to a Relay set of
// 16 GB/s links (faster GPU-HBF links +11.5%: 40309; now by the next level
// of the leximin order, the other resources' ends); and a fresh Direct run
// whose 64 MiB chunk, 0.49 ms on a 136 GB/s TSV, led the interleave
// because it had the most time left, so that the one 18 MiB Relay part
// then crossed its 20 GB/s link after it (all three paths +25.5% over no
// HBM-HBF links: 60957; the leads now go by Johnson's rule); and a
// pending program whose written data left the sensed reads fewer
// transfer-SRAM regions than they need to stream (one draining a route,
// one filling), so that the program waited for the reads while they left
// one route at a time, or filled and drained one chunk after the other
// (one more relay SRAM region +86.5%: 94654, an HBF stack shared by two
// HBM stacks; +15.4%: 108542, one Relay route; three paths +40.5% over no
// GPU-HBF links: 77627; HBM arrays twice as fast +35.8%: 78859; one more
// HBF SRAM region +21.3%: 74687; the program now goes first, see
// programStuck); and whole experts spread over more route sets than a
// stack's transfer SRAM has chunk slots, the sets taking turns on the
// slots (faster GPU-HBF links +16.9%: 107269, +11.9%: 114262; three paths
// against a subset +28.5%: 81596, +29.6%: 36427; assignExperts now opens
// at most as many sets as slots); and a prefill KV write whose page wave
// gathered in a two-slot transfer SRAM under the experts' reads, its first
// chunk holding a slot while its second waited behind the reads (t_PROG
// halved +16.4%: 54175, +20.1%: 91597; the wave's chunks now go first, see
// writeFirst).
//
// Each is checked in full, and a what-if skipped for the test's budget
// fails: a regression that checks nothing cannot fail. 31929 runs event by
// event for over a minute (its shortcuts in 2 s), and 94654 for 7 s (its
// shortcuts in 0.1 s), so their NoJump reruns are left out and the rest
// kept (before, the rerun's budget skipped 31929 whole).
func TestWhatIfRegressions(t *testing.T) {
	longEventByEvent := map[uint64]bool{31929: true, 94654: true}
	for _, seed := range []uint64{93, 188, 192, 124, 20, 772, 499, 363, 744, 936, 1120, 66,
		31929, 34675, 31319, 33598, 33634, 32086, 31476, 35347, 32145, 32814, 32818, 39437,
		30940, 37902, 37274, 38843, 30057, 32862, 40509, 49905, 47867, 40309, 60957,
		94654, 108542, 77627, 78859, 74687, 107269, 114262, 81596, 36427, 54175, 91597} {
		w, err := checkWhatIfRuns(seed, true, !longEventByEvent[seed], nil, time.Time{})
		if err != nil {
			t.Errorf("%v\n  %v", w, err)
		}
		if w.model == "" {
			t.Errorf("seed %d: skipped (a run outlasted the test's budget): the regression checks nothing", seed)
		}
	}
}

// FuzzWhatIf checks the invariants on the what-if of any seed, with the
// reruns (go test -fuzz FuzzWhatIf ./dash/sim).
func FuzzWhatIf(f *testing.F) {
	for seed := range uint64(8) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) {
		if w, err := checkWhatIfWithin(seed, true, nil, time.Now().Add(8*time.Second)); err != nil {
			t.Fatalf("%v\n  %v", w, err)
		}
	})
}

// TestWhatIfSweep measures the relative checks over a range of seeds,
// every what-if in full, when DASH_WHATIFS names one ("0-10000"): the
// violations of each check beyond zero, and their largest, for the
// tolerances above. It is skipped otherwise.
func TestWhatIfSweep(t *testing.T) {
	spec := os.Getenv("DASH_WHATIFS")
	if spec == "" {
		t.Skip("set DASH_WHATIFS=LO-HI to sweep")
	}
	lo, hi, _ := strings.Cut(spec, "-")
	a, err1 := strconv.ParseUint(lo, 10, 64)
	b, err2 := strconv.ParseUint(hi, 10, 64)
	if err1 != nil || err2 != nil || b <= a {
		t.Fatalf("DASH_WHATIFS=%q: want LO-HI", spec)
	}
	ran, failed := 0, 0
	var m excess
	for seed := a; seed < b; seed++ {
		w, err := checkWhatIfInto(seed, true, &m)
		if err != nil {
			failed++
			t.Errorf("%v\n  %v", w, err)
		}
		if w.model != "" {
			ran++
		}
	}
	t.Logf("%d what-ifs checked, %d failed", ran, failed)
	for _, c := range []struct {
		name  string
		v     []float64
		seeds []uint64
	}{{"a part faster", m.monotone, m.monoSeed}, {"three paths against a subset", m.subset, m.subSeeds}} {
		n := len(c.v)
		if n == 0 {
			continue
		}
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(c.v[a], c.v[b]) })
		over := 0
		for _, x := range c.v {
			if x > 0 {
				over++
			}
		}
		q := func(p float64) float64 { return 100 * c.v[order[min(n-1, int(p*float64(n)))]] }
		var top []string
		for _, i := range order[max(0, n-5):] {
			top = append(top, fmt.Sprintf("%d %+.2f%%", c.seeds[i], 100*c.v[i]))
		}
		t.Logf("%s: %d comparisons, %d longer; longer by p50 %.3f%%, p90 %.3f%%, p99 %.3f%%, p99.9 %.3f%%, max %.3f%%; largest: %s",
			c.name, n, over, q(0.5), q(0.9), q(0.99), q(0.999), 100*c.v[order[n-1]], strings.Join(top, ", "))
	}
}
