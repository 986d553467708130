package sim

import (
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// The zero Part is the whole pass, and a Part whose expert loads are the
// balanced routing model's own is the same pass: durations and traffic
// identical, with and without shortcuts.
func TestPartIsThePassItReplaces(t *testing.T) {
	exp := build(t, "qwen3-235b-a22b", "dash", 1, 512, 2)
	m := exp.Model()
	rows := []Row{{Tokens: 1, Cached: 4100, Prompt: 4096}, {Tokens: 1, Cached: 4150, Prompt: 4096}, {Tokens: 300, Cached: 0, Prompt: 1000}}
	tokens := 302
	loads := make([]ExpertLoad, m.NumLayers)
	for i := range loads {
		a := min(m.FFN.RoutedExperts, tokens*m.FFN.TopK)
		loads[i] = ExpertLoad{Active: a, Rows: tokens * m.FFN.TopK}
	}
	for _, noJump := range []bool{false, true} {
		ref, err := NewPasser(exp, Options{NoJump: noJump})
		if err != nil {
			t.Fatal(err)
		}
		want, err := ref.Run(rows)
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range []Part{{}, {Experts: loads}} {
			p, err := NewPasser(exp, Options{NoJump: noJump})
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.RunPart(rows, part)
			if err != nil {
				t.Fatal(err)
			}
			if got.Duration != want.Duration || got.DirectRead != want.DirectRead || got.RelayRead != want.RelayRead ||
				got.HBMRead != want.HBMRead || got.ActiveExperts != want.ActiveExperts {
				t.Errorf("noJump=%v part with loads=%v: %+v, whole pass %+v", noJump, part.Experts != nil, got, want)
			}
		}
	}
}

// More rows on the GPU's experts never make its pass shorter, fewer active
// experts read fewer bytes, and leaving out the embedding or the head
// shortens it.
func TestPartLoadsAndStages(t *testing.T) {
	exp := build(t, "qwen3-235b-a22b", "dash", 1, 512, 2)
	m := exp.Model()
	rows := []Row{{Tokens: 1, Cached: 1100, Prompt: 1024}, {Tokens: 1, Cached: 1100, Prompt: 1024}}
	at := func(active, perExpert int, part Part) PassResult {
		t.Helper()
		loads := make([]ExpertLoad, m.NumLayers)
		for i := range loads {
			loads[i] = ExpertLoad{Active: active, Rows: active * perExpert}
		}
		part.Experts = loads
		p, err := NewPasser(exp, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.RunPart(rows, part)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	base := at(8, 2, Part{})
	if more := at(16, 2, Part{}); more.Duration <= base.Duration || more.DirectRead+more.RelayRead <= base.DirectRead+base.RelayRead {
		t.Errorf("16 active experts: %v and %v read, 8: %v and %v", more.Duration, more.DirectRead+more.RelayRead, base.Duration, base.DirectRead+base.RelayRead)
	}
	if none := at(0, 0, Part{}); none.Duration >= base.Duration {
		t.Errorf("no routed rows: %v, 8 experts %v", none.Duration, base.Duration)
	}
	if mid := at(8, 2, Part{NoEmbed: true, NoHead: true}); mid.Duration >= base.Duration {
		t.Errorf("without embedding and head: %v, whole %v", mid.Duration, base.Duration)
	}
}

// Bad loads are refused with the layer named.
func TestPartRefusesBadLoads(t *testing.T) {
	exp := build(t, "qwen3-235b-a22b", "dash", 1, 512, 2)
	m := exp.Model()
	p, err := NewPasser(exp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows := []Row{{Tokens: 1, Cached: 600, Prompt: 512}}
	for _, loads := range [][]ExpertLoad{
		make([]ExpertLoad, m.NumLayers-1),
		func() []ExpertLoad {
			l := make([]ExpertLoad, m.NumLayers)
			l[3] = ExpertLoad{Active: m.FFN.RoutedExperts + 1, Rows: 1000}
			return l
		}(),
		func() []ExpertLoad {
			l := make([]ExpertLoad, m.NumLayers)
			l[3] = ExpertLoad{Active: 0, Rows: 5}
			return l
		}(),
		func() []ExpertLoad { l := make([]ExpertLoad, m.NumLayers); l[3] = ExpertLoad{Active: -1}; return l }(),
	} {
		if _, err := p.RunPart(rows, Part{Experts: loads}); err == nil {
			t.Errorf("loads %v: accepted", loads[min(3, len(loads)-1)])
		}
	}
}

// A Part's cached experts (a cluster GPU's HBM expert cache) move their
// bytes from HBF to HBM, exactly: the pass reads the same bytes in all and
// less from HBF (whether it is shorter depends on HBM's rate against
// HBF's: on the paper's DASH it is not); a part that says cached without a
// cache is refused.
func TestPartCachedExperts(t *testing.T) {
	withCache := func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		return b.Execution(dash.ExecutionSpec{ExpertCache: dash.ExpertCacheSpec{Budget: 4 * unit.GB, Policy: "static"}})
	}
	exp := build(t, "qwen3-235b-a22b", "dash", 1, 512, 2, withCache)
	m := exp.Model()
	rows := []Row{{Tokens: 1, Cached: 1100, Prompt: 1024}, {Tokens: 1, Cached: 1100, Prompt: 1024}}
	at := func(e dash.Experiment, cached int) (PassResult, error) {
		loads := make([]ExpertLoad, m.NumLayers)
		for i := range loads {
			loads[i] = ExpertLoad{Active: 16, Rows: 16, Cached: cached}
		}
		p, err := NewPasser(e, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return p.RunPart(rows, Part{Experts: loads})
	}
	var prev PassResult
	for c := 0; c <= 16; c += 4 {
		got, err := at(exp, c)
		if err != nil {
			t.Fatal(err)
		}
		if c > 0 {
			hbf, phbf := got.DirectRead+got.RelayRead, prev.DirectRead+prev.RelayRead
			if got.HBMRead+hbf != prev.HBMRead+phbf || !(hbf < phbf) {
				t.Errorf("cached %d: HBM %v HBF %v in %v; cached %d: HBM %v HBF %v in %v", c, got.HBMRead, hbf, got.Duration, c-4, prev.HBMRead, phbf, prev.Duration)
			}
		}
		prev = got
	}
	if _, err := at(build(t, "qwen3-235b-a22b", "dash", 1, 512, 2), 4); err == nil || !strings.Contains(err.Error(), "expert_cache") {
		t.Errorf("cached experts without a cache: %v", err)
	}
	if _, err := at(exp, 17); err == nil {
		t.Error("17 cached of 16 active experts: accepted")
	}
}
