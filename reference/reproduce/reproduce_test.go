package reproduce

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
)

func TestStaticGroupsPass(t *testing.T) {
	for _, prefix := range []string{"table2.", "fig1.", "ucie.", "hbf.", "hbm.", "cost."} {
		rep, err := Run(Options{Only: prefix})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Rows) == 0 {
			t.Fatalf("%s: no rows", prefix)
		}
		for _, r := range rep.Rows {
			if r.Simulated == nil {
				t.Errorf("%s not simulated", r.ID)
			} else if !*r.Pass {
				t.Errorf("%s: paper %v, simulated %v (tolerance %v)", r.ID, r.Paper, *r.Simulated, r.Tolerance)
			}
		}
	}
}

func TestUnknownPrefix(t *testing.T) {
	if _, err := Run(Options{Only: "fig99"}); err == nil || !strings.Contains(err.Error(), "fig99") {
		t.Errorf("error %v", err)
	}
}

func TestNotSimulatedRowsAreListed(t *testing.T) {
	saved := groups
	groups = nil // as if no group simulated anything
	defer func() { groups = saved }()
	rep, err := Run(Options{Only: "table3."})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 18 {
		t.Fatalf("%d rows", len(rep.Rows))
	}
	_, _, pending := rep.Summary()
	if pending != 18 {
		t.Errorf("%d pending", pending)
	}
}

func TestFig9(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Fig. 9(a) sweep")
	}
	rep, err := Run(Options{Only: "fig9a."})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Rows {
		if r.Simulated == nil || math.IsNaN(*r.Simulated) {
			t.Fatalf("%s not simulated", r.ID)
		}
		// DASH never loses to a single-path baseline on the same work.
		if strings.Contains(r.ID, "speedup") && *r.Simulated < 1 || strings.Contains(r.ID, "reduction") && *r.Simulated < 0 {
			t.Errorf("%s = %v", r.ID, *r.Simulated)
		}
		if !strings.Contains(r.Detail, "does not fit") && strings.Contains(r.ID, "throughput") {
			t.Errorf("%s: the misfits of compact-dash are not reported: %q", r.ID, r.Detail)
		}
	}
	if n := len(rep.Artifacts.Fig9[dash.ReadingPaper].A.Points); n != 5*4*4 {
		t.Errorf("%d points", n)
	}
	for _, p := range rep.Artifacts.Fig9[dash.ReadingPaper].A.Points {
		if p.System == "compact-dash" && (p.Model == "llama4-maverick" || p.Model == "deepseek-v3") {
			var ce *dash.CapacityError
			if p.Fits() || !errors.As(p.Err, &ce) || ce.Need <= ce.Have || ce.Memory != dash.MemoryHBF {
				t.Errorf("%s on compact-dash: fits=%v err=%v", p.Model, p.Fits(), p.Err)
			}
		} else if p.Err != nil {
			t.Errorf("%s/%s: %v", p.Model, p.System, p.Err)
		}
	}
}

func TestPairedAndGeomean(t *testing.T) {
	mk := func(sys string, tput float64, e2e sim.Result) summary.Point {
		e2e.DecodeThroughput = tput
		return summary.Point{Case: summary.Case{Model: "m", System: sys, Batch: 1, Prompt: 8, Output: 2}, Result: e2e}
	}
	points := []summary.Point{mk("dash", 300, sim.Result{E2E: 1e9}), mk("relay-only", 100, sim.Result{E2E: 2e9})}
	sum := SummariseFig9(points)
	p, ok := sum.Against("relay-only")
	if !ok || len(p.Cases) != 1 || p.Cases[0].Throughput != 3 || p.Cases[0].E2E != 0.5 || math.Abs(p.ThroughputSpeedupGeomean-3) > 1e-12 || math.Abs(p.E2EReductionPct-50) > 1e-9 {
		t.Errorf("paired = %+v", p)
	}
	if _, ok := sum.Against("direct-only"); ok || sum.B4 != nil {
		t.Errorf("a baseline without points is paired: %+v", sum)
	}
	if g := summary.Geomean([]float64{2, 8}); math.Abs(g-4) > 1e-12 {
		t.Errorf("geomean = %v", g)
	}
}

func TestTraceLookaheadLayer(t *testing.T) {
	l, err := TraceLookaheadLayer("deepseek-v2", dash.ReadingPaper, 3*unit.Microsecond, 512, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Runs) != 3 || l.AttentionRoutingBytes <= l.RouterBytes || l.SharedExpertBytes == 0 || l.StagingSRAM != 48*unit.MiB {
		t.Fatalf("%+v", l)
	}
	for i, r := range l.Runs {
		var sum unit.Duration
		for _, c := range r.Classes {
			sum += c.Time
		}
		if r.Layer <= 0 || sum > r.Layer || l.ClassTime(i, sim.ClassExperts) == 0 {
			t.Errorf("%s: layer %v, classes %v", r.Name, r.Layer, sum)
		}
	}
	// Early delivery shortens the expert block.
	if l.ClassTime(2, sim.ClassExperts) >= l.ClassTime(1, sim.ClassExperts) {
		t.Errorf("early delivery: experts %v, without %v", l.ClassTime(2, sim.ClassExperts), l.ClassTime(1, sim.ClassExperts))
	}
	if _, err := TraceLookaheadLayer("deepseek-v2", dash.ReadingPaper, 3*unit.Microsecond, 512, 0); err == nil {
		t.Error("dense layer 0 traced as MoE")
	}
}

func TestFig9Bound(t *testing.T) {
	phys, err := computeFig9Bound(dash.ReadingPhysical)
	if err != nil {
		t.Fatal(err)
	}
	// One 8 MiB wave per 3 us: 2.80 TB/s per stack, below Direct + Relay.
	d, _ := phys.System("dash")
	if d.Binding != "array" || math.Abs(d.Total.TBps()-5.592) > 0.01 {
		t.Errorf("physical dash: %+v", d)
	}
	if c := phys.Ceiling("direct-only"); math.Abs(c-1.7476) > 0.001 {
		t.Errorf("physical ceiling vs DirectOnly %v, want 1.75", c)
	}
	paper, err := computeFig9Bound(dash.ReadingPaper)
	if err != nil {
		t.Fatal(err)
	}
	d, _ = paper.System("dash")
	if !math.IsInf(float64(paper.Array), 1) || d.Binding == "array" || d.Total.TBps() != 6.4 {
		t.Errorf("paper dash: %+v", d)
	}
	if c := paper.Ceiling("relay-only"); c != 2 {
		t.Errorf("paper ceiling vs RelayOnly %v, want 2", c)
	}
	// Serial: each 4 MiB chunk pays 3 us before its 2.62 us transfer, 0.746 TB/s a route.
	serial, err := computeFig9Bound(dash.ReadingSerial)
	if err != nil {
		t.Fatal(err)
	}
	d, _ = serial.System("dash")
	if d.Binding != "links with serial t_R" || math.Abs(d.Total.TBps()-4*0.7461) > 0.001 {
		t.Errorf("serial dash: %+v", d)
	}
	if c := serial.Ceiling("relay-only"); math.Abs(c-2) > 1e-9 {
		t.Errorf("serial ceiling vs RelayOnly %v, want 2", c)
	}
	if _, err := computeFig9Bound(dash.ReadingCustom); err == nil {
		t.Error("custom reading accepted")
	}
}

func TestOverheadRow(t *testing.T) {
	var rows []summary.OverheadRow
	for _, b := range []int{1, 64} {
		d, err := Build(Fig9Case("qwen3-235b-a22b", "dash", b, 256, 6, dash.ReadingPaper))
		if err != nil {
			t.Fatal(err)
		}
		x, err := Build(Fig9Case("qwen3-235b-a22b", "relay-only", b, 256, 6, dash.ReadingPaper))
		if err != nil {
			t.Fatal(err)
		}
		rd, err := sim.Run(d)
		if err != nil {
			t.Fatal(err)
		}
		rx, err := sim.Run(x)
		if err != nil {
			t.Fatal(err)
		}
		r := NewOverheadRow("qwen3-235b-a22b", b, rd, rx)
		for _, v := range []float64{r.PrefillShareDASH, r.PrefillShareRelay, r.FixedShareDASH, r.FixedShareRelay} {
			if !(v > 0 && v < 1) {
				t.Errorf("B=%d: share %v out of (0, 1): %+v", b, v, r)
			}
		}
		// DASH shortens memory time only: its fixed share is the larger.
		if r.DecodeSpeedup <= 1 || r.FixedShareDASH <= r.FixedShareRelay {
			t.Errorf("B=%d: %+v", b, r)
		}
		rows = append(rows, r)
	}
	// A larger batch makes the prefill a larger share of E2E.
	if rows[1].PrefillShareDASH <= rows[0].PrefillShareDASH {
		t.Errorf("prefill share B=1 %v, B=64 %v", rows[0].PrefillShareDASH, rows[1].PrefillShareDASH)
	}
}

func TestReadingValuesAndGrid(t *testing.T) {
	x, y, one := 1.7, 1.6, true
	rows := []summary.Row{
		{ID: "fig9a.throughput_speedup_geomean.vs_relay_only", Unit: "x", Paper: 1.9, Simulated: &x, Pass: &one, Reading: "paper"},
		{ID: "fig9a.throughput_speedup_geomean.vs_relay_only" + ReadingSuffix(dash.ReadingPhysical), Unit: "x", Paper: 1.9, Simulated: &y, Reading: "physical"},
		{ID: "table2.qwen3", Unit: "GB", Simulated: &x, Pass: &one},
	}
	v := ReadingValues(rows, "fig9a.")
	if len(v) != 1 || v[0].Values[dash.ReadingPaper] != 1.7 || v[0].Values[dash.ReadingPhysical] != 1.6 || !v[0].Pass {
		t.Errorf("%+v", v)
	}
	if len(ReadingValues(rows, "fig11.")) != 0 {
		t.Error("prefix not applied")
	}
	// Fig9Grid leaves out lengths beyond the context window and keeps DASH's lookahead
	// after knobs that turn it off (the case's own knobs come last).
	cases := Fig9Grid(dash.ReadingPaper, []string{"grok-1"}, []string{"dash", "relay-only"}, []int{1},
		[]Fig9bWorkload{{Prompt: 512, Output: 16}, {Prompt: 20480, Output: 20480}},
		[]dash.Setting{{Path: "execution.launch_only_overhead", Value: "true"}, {Path: "execution.lookahead", Value: "false"}})
	if len(cases) != 2 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		exp, err := Build(c)
		if err != nil {
			t.Fatal(err)
		}
		if ex := exp.Execution(); ex.Lookahead != isDASH(c.System) || !ex.LaunchOnlyOverhead || exp.System().HBF.ReadWavesInFlight != dash.ReadWavesUnbounded {
			t.Errorf("%s: %+v, depth %v", c.System, ex, exp.System().HBF.ReadWavesInFlight)
		}
	}
}
