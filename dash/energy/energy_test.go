package energy_test

import (
	"math"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/energy"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
)

func run(t *testing.T, system string) (sim.Result, energy.Params) {
	t.Helper()
	exp, err := reference.Experiment("qwen3-235b-a22b", system).Batch(4).Prompt(1024).Output(16).Build()
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Run(exp)
	if err != nil {
		t.Fatal(err)
	}
	return r, energy.DefaultParams(exp.System().HBF)
}

func paperSystem(t *testing.T, id string) dash.SystemSpec {
	t.Helper()
	s, err := reference.System(id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestDefaults(t *testing.T) {
	_, p := run(t, "dash")
	pj := func(e unit.JoulesPerBit) float64 { return float64(e) / 1e-12 }
	if pj(p.Link) != 0.5 || pj(p.HBM) != 3.9 || math.Abs(pj(p.HBFRead)-7.553) > 0.01 || math.Abs(pj(p.HBFProgram)-251.8) > 0.1 {
		t.Errorf("defaults %v %v %v %v", p.Link, p.HBM, p.HBFRead, p.HBFProgram)
	}
}

// The per-route link energy must account for every byte on every link.
func TestRouteHopsMatchLinks(t *testing.T) {
	for _, system := range []string{"dash", "relay-only", "direct-only", "compact-dash"} {
		r, p := run(t, system)
		b, err := energy.Of(r, paperSystem(t, system).HBF, p)
		if err != nil {
			t.Fatal(err)
		}
		var linkBytes unit.Bytes
		for _, l := range r.Links {
			linkBytes += l.Bytes
		}
		want := float64(linkBytes) * 8 * float64(p.Link)
		if math.Abs(b.Link-want) > 1e-9*want {
			t.Errorf("%s: route link energy %g J, links carried %g J", system, b.Link, want)
		}
		if b.PerToken() <= 0 || b.HBFRead <= 0 || b.HBM <= 0 {
			t.Errorf("%s: breakdown %+v", system, b)
		}
	}
}

func TestEnergyScalesWithPrices(t *testing.T) {
	r, p := run(t, "dash")
	h := paperSystem(t, "dash").HBF
	base, _ := energy.Of(r, h, p)
	p.Link *= 2
	p.HBFProgram = 0
	twice, _ := energy.Of(r, h, p)
	if math.Abs(twice.Link-2*base.Link) > 1e-9*base.Link || twice.HBFProgram != 0 || twice.HBFRead != base.HBFRead {
		t.Errorf("base %+v, doubled link %+v", base, twice)
	}
	p.HBM = -1
	if _, err := energy.Of(r, h, p); err == nil {
		t.Error("a negative price was accepted")
	}
	r.Routes = append(r.Routes, sim.RouteStats{Route: sim.Route(200), Delivered: 1})
	if _, err := energy.Of(r, h, energy.DefaultParams(h)); err == nil {
		t.Error("an unknown route was priced at zero")
	}
}
