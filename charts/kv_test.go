package charts

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/lookahead"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
)

// Fig12, KVSplit and LookaheadAgreement draw hand-made values.
func TestKVCharts(t *testing.T) {
	res := &summary.Fig12Result{Nominal: map[dash.Reading]sim.Result{}, RelayOnly: map[dash.Reading]sim.Result{}}
	for _, rd := range dash.Readings() {
		nom := sim.Result{E2E: 10 * unit.Second, DecodeThroughput: 2,
			KV: sim.KVStats{PrefillHBF: unit.GB, DecodeHBM: 24 * unit.GB, DecodeHBF: 172 * unit.GB}}
		res.Nominal[rd], res.RelayOnly[rd] = nom, sim.Result{E2E: 20 * unit.Second, DecodeThroughput: 1}
		for _, p := range []summary.Fig12Param{summary.Fig12PageSize, summary.Fig12TRead, summary.Fig12TProg, summary.Fig12Link} {
			for i, v := range []float64{1, 2, 500, 5000} {
				res.Points = append(res.Points, summary.Fig12Point{Param: p, Value: v, Label: "x", Reading: rd, Result: nom,
					Normalized: 1 + float64(i)/10, ProgramBusy: unit.Second, Stall: unit.Duration(i) * unit.Second})
			}
		}
	}
	for _, id := range []string{"fig12.kv_hbm_gb", "fig12.kv_hbf_gb", "fig9b.llama4_4k_1m.kv_cache_gb", "fig12.write_stall_s.tprog500us", "fig12.write_stall_s.tprog5ms"} {
		res.Rows = append(res.Rows, judged(id, "", 1, 1, 1, true))
	}
	res.KV = []sim.KVPoint{{HBF: unit.GB}, {Generated: 500000, HBM: 24 * unit.GB, HBF: 80 * unit.GB}, {Generated: 999999, HBM: 24 * unit.GB, HBF: 173 * unit.GB}}
	f, err := Fig12(res)
	if err != nil {
		t.Fatal(err)
	}
	h, err := f.HTML()
	if err != nil || !strings.Contains(string(h), "fig12_t_prog") || len(f.Rows) < 5 {
		t.Fatalf("Fig12: %v, %d rows", err, len(f.Rows))
	}
	if _, err := Fig12(nil); err == nil {
		t.Error("Fig12(nil) drew")
	}
	// the sampling note says what the runs did, not the reproduction's default
	for n, want := range map[int]string{0: "simulated exactly", 16: "one KV block in 16 simulated", 64: "one KV block in 64 simulated"} {
		res.DecodeSample = n
		f, err := Fig12(res)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(f.Notes, " "), want) {
			t.Errorf("DecodeSample %d: notes do not say %q: %q", n, want, f.Notes[len(f.Notes)-1])
		}
	}
	c, err := LookaheadAgreement("la", []lookahead.Report{{Model: "llama4-maverick", Eligible: true, Tokens: 10, Agree: 10},
		{Model: "deepseek-v3", Tokens: 10, Agree: 3, Disagree: 7}})
	if err != nil || c == nil {
		t.Fatal(err)
	}
	if _, err := KVSplit("kv", summary.KVSplit{}); err == nil {
		t.Error("KVSplit of nothing drew")
	}
}
