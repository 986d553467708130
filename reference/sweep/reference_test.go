package sweep

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/reference/reproduce"
	"github.com/dashlab/dashlab/summary"
)

func exampleTable(t *testing.T, name string) *Table {
	t.Helper()
	r, err := reference.ExampleSweep(name)
	if err != nil {
		t.Fatal(err)
	}
	s, err := DecodeSpec(r, name, ".")
	if err != nil {
		t.Fatal(err)
	}
	p, err := s.Compile()
	if err != nil {
		t.Fatal(err)
	}
	tb, err := Collect(context.Background(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestExampleSweepsCompile(t *testing.T) {
	for _, name := range reference.ExampleSweeps() {
		r, _ := reference.ExampleSweep(name)
		s, err := DecodeSpec(r, name, ".")
		if err == nil {
			_, err = s.Compile()
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// The Fig. 9(a) sweep spec gives the harness's numbers point for point, and
// so its geomeans.
func TestFig9aSpecMatchesHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Fig. 9(a) twice")
	}
	tb := exampleTable(t, "fig9a.yaml")
	var cases []summary.Case
	for _, m := range reference.Fig9ModelIDs {
		for _, b := range reproduce.Fig9aBatches {
			for _, s := range reproduce.Fig9Systems {
				cases = append(cases, reproduce.Fig9Case(m, s, b, 1024, 128, dash.ReadingPaper))
			}
		}
	}
	points := reproduce.Sweep(cases, 0)
	if len(points) != len(tb.Rows) {
		t.Fatalf("harness %d points, sweep %d rows", len(points), len(tb.Rows))
	}
	var sweepRatios, harnessRatios []float64
	for _, p := range points {
		row, err := tb.Find("model", p.Model, "system", p.System, "workload.batch", fmt.Sprint(p.Batch))
		if err != nil {
			t.Fatal(err)
		}
		if p.Err != nil {
			if row.Status == StatusOK {
				t.Errorf("%s/%s/B%d: harness failed (%v), sweep has a result", p.Model, p.System, p.Batch, p.Err)
			}
			continue
		}
		r := row.Result.(sim.Result)
		if r.DecodeThroughput != p.Result.DecodeThroughput || r.E2E != p.Result.E2E || r.TTFT != p.Result.TTFT {
			t.Errorf("%s/%s/B%d: sweep %v tok/s, E2E %v; harness %v tok/s, E2E %v", p.Model, p.System, p.Batch,
				r.DecodeThroughput, r.E2E, p.Result.DecodeThroughput, p.Result.E2E)
		}
		if v, _ := tb.Metric(row, "decode_throughput_tok_per_s"); v != p.Result.DecodeThroughput {
			t.Errorf("%s/%s/B%d: metric column %v, result %v", p.Model, p.System, p.Batch, v, p.Result.DecodeThroughput)
		}
		if p.System != "dash" {
			continue
		}
		base, _ := summary.Find(points, p.Model, "relay-only", p.Batch, 1024, 128)
		ratio, _ := summary.PairedRatio(p, base)
		harnessRatios = append(harnessRatios, ratio)
		br, err := tb.Find("model", p.Model, "system", "relay-only", "workload.batch", fmt.Sprint(p.Batch))
		if err != nil {
			t.Fatal(err)
		}
		a, _ := tb.Metric(row, "decode_throughput_tok_per_s")
		b, _ := tb.Metric(br, "decode_throughput_tok_per_s")
		sweepRatios = append(sweepRatios, a/b)
	}
	g, h := summary.Geomean(sweepRatios), summary.Geomean(harnessRatios)
	if g != h || math.IsNaN(g) {
		t.Errorf("fig9a geomean speedup over relay-only: sweep %v, harness %v", g, h)
	}
	t.Logf("fig9a.throughput_speedup_geomean.vs_relay_only from the sweep file's rows: %.3f (harness %.3f)", g, h)
}

// The Fig. 11 sweep spec gives the harness's lookahead study.
func TestFig11SpecMatchesHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Fig. 11 twice")
	}
	tb := exampleTable(t, "fig11.yaml")
	pairs, err := reproduce.LookaheadStudy(summary.LookaheadSetup{Reading: dash.ReadingPaper}, reproduce.Fig11Models, reproduce.Fig11TReads, "dash", 1, 4096, 128, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs {
		tr := p.TRead.String()
		conv, err1 := tb.Find("model", p.Model, "overrides.hbf.t_read", tr, "execution.lookahead", "false")
		look, err2 := tb.Find("model", p.Model, "overrides.hbf.t_read", tr, "execution.lookahead", "true")
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		c, l := conv.Result.(sim.Result), look.Result.(sim.Result)
		if c.E2E != p.Conventional.E2E || l.E2E != p.Lookahead.E2E || l.TPOT != p.Lookahead.TPOT {
			t.Errorf("%s t_R %v: sweep E2E %v -> %v, harness %v -> %v", p.Model, tr, c.E2E, l.E2E, p.Conventional.E2E, p.Lookahead.E2E)
		}
		ce, _ := tb.Metric(conv, "e2e_ms")
		le, _ := tb.Metric(look, "e2e_ms")
		if got, want := 100*(1-le/ce), p.E2EReductionPct(); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s t_R %v: E2E reduction from rows %.6f%%, harness %.6f%%", p.Model, tr, got, want)
		}
	}
}

// The Fig. 12 sweep specs give the harness's Fig. 12 study point for point
// (checked on a 2K-token decode instead of 1M, the same knobs otherwise).
func TestFig12SpecsMatchHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Fig. 12 sweeps twice")
	}
	const output = 2048
	su := reproduce.Fig12Setup{Readings: dash.Readings(), PageSizes: reproduce.Fig12PageSizes, TReads: reproduce.Fig12TReads,
		TProgs: reproduce.Fig12TProgs, Links: reproduce.Fig12Links, Output: output, DecodeSample: summary.Fig12DecodeSample}
	study, err := reproduce.Fig12Study(su, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		file, axis string
		param      summary.Fig12Param
	}{
		{"fig12-t-read.yaml", "overrides.hbf.t_read", summary.Fig12TRead},
		{"fig12-page-size.yaml", "overrides.hbf.page_size", summary.Fig12PageSize},
		{"fig12-t-prog.yaml", "overrides.hbf.t_prog", summary.Fig12TProg},
		{"fig12-d2d.yaml", "overrides.link.usable", summary.Fig12Link},
	} {
		r, err := reference.ExampleSweep(c.file)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := io.ReadAll(r)
		short := strings.Replace(string(text), "output: 1000000", fmt.Sprintf("output: %d", output), 1)
		s, err := DecodeSpec(strings.NewReader(short), c.file, ".")
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.Compile()
		if err != nil {
			t.Fatal(err)
		}
		tb, err := Collect(context.Background(), p, 0)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, rd := range dash.Readings() {
			for _, pt := range study.Sweep(c.param, rd) {
				label := pt.Label
				if label == "0 (reference)" {
					label = "1ns"
				}
				row, err := tb.Find("overrides.hbf.reading", rd.String(), c.axis, label)
				if err != nil {
					t.Errorf("%s: %v", c.file, err)
					continue
				}
				if got := row.Result.(sim.Result).E2E; got != pt.Result.E2E {
					t.Errorf("%s %v reading, %s: sweep E2E %v, harness %v", c.file, rd, label, got, pt.Result.E2E)
				}
				if c.param == summary.Fig12TProg {
					// the write stall from two rows: E2E less the 1ns row's E2E
					ref, err := tb.Find("overrides.hbf.reading", rd.String(), c.axis, "1ns")
					if err != nil {
						t.Fatal(err)
					}
					// (the harness reports no negative stall: a slower program that
					// happens to reorder reads favourably exposes none)
					if stall := max(0, row.Result.(sim.Result).E2E-ref.Result.(sim.Result).E2E); stall != pt.Stall {
						t.Errorf("%s %v reading, %s: stall from the rows %v, harness %v", c.file, rd, label, stall, pt.Stall)
					}
				}
				n++
			}
		}
		if c.param == summary.Fig12TProg {
			n += len(dash.Readings()) // the 1ns reference rows
		}
		if n != len(tb.Rows) {
			t.Errorf("%s: %d rows, %d harness points", c.file, len(tb.Rows), n)
		}
	}
}
