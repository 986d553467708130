package sim

import "testing"

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
