package endurance

import (
	"math"
	"strings"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

var base = Inputs{KVCapacity: 900 * unit.GB, PECycles: 1e5, WriteAmplification: 1, WriteRate: 1 * unit.GBps, Utilization: 0.5}

func TestLifetimeClosedForm(t *testing.T) {
	y, err := base.LifetimeYears()
	want := 900e9 * 1e5 / (1 * 1e9 * 0.5) / SecondsPerYear
	if err != nil || math.Abs(y-want) > 1e-9*want {
		t.Errorf("lifetime %g years, want %g (%v)", y, want, err)
	}
}

func TestLifetimeFallsAsWriteAmplificationRises(t *testing.T) {
	prev := math.Inf(1)
	for _, wa := range []float64{1, 1.1, 1.5, 2, 3, 5, 10} {
		in := base
		in.WriteAmplification = wa
		y, err := in.LifetimeYears()
		if err != nil {
			t.Fatal(err)
		}
		if !(y < prev) {
			t.Errorf("A_W %g: lifetime %g years, not below %g", wa, y, prev)
		}
		prev = y
	}
	// And with every other term: more cycles or capacity lengthen it; more
	// writes or load shorten it.
	more := base
	more.PECycles *= 2
	more.KVCapacity *= 2
	busier := base
	busier.WriteRate *= 2
	busier.Utilization = 0.9
	b, _ := base.LifetimeYears()
	m, _ := more.LifetimeYears()
	h, _ := busier.LifetimeYears()
	if !(m > b && h < b) {
		t.Errorf("base %g, more capacity %g, busier %g", b, m, h)
	}
}

func TestLifetimeRefusesBadInputs(t *testing.T) {
	for _, bad := range []func(*Inputs){
		func(in *Inputs) { in.WriteAmplification = 0.5 },
		func(in *Inputs) { in.WriteAmplification = math.NaN() },
		func(in *Inputs) { in.Utilization = 0 },
		func(in *Inputs) { in.Utilization = 1.5 },
		func(in *Inputs) { in.PECycles = 0 },
		func(in *Inputs) { in.KVCapacity = 0 },
		func(in *Inputs) { in.WriteRate = -1 },
	} {
		in := base
		bad(&in)
		if _, err := in.LifetimeYears(); err == nil {
			t.Errorf("%+v accepted", in)
		}
	}
	idle := base
	idle.WriteRate = 0
	if s, err := idle.LifetimeSeconds(); err != nil || !math.IsInf(s, 1) {
		t.Errorf("no writes: %g, %v", s, err)
	}
}

func TestMeasuredWriteAmplificationShortensLifetime(t *testing.T) {
	run := func(host, relocated int64) sim.Result {
		wa := 0.0
		if host > 0 {
			wa = float64(host+relocated) / float64(host)
		}
		return sim.Result{Name: "r", E2E: 10 * unit.Second, HBF: make([]sim.HBFStats, 2),
			Routes: []sim.RouteStats{{Route: sim.RouteDirectWrite, Requested: 5 * unit.GB, Delivered: 5 * unit.GB}, {Route: sim.RouteDirect, Delivered: 9 * unit.TB}},
			Flash:  sim.FlashStats{SuperblockBytes: unit.GiB, Superblocks: 512, WeightSuperblocks: 212, HostPages: host, RelocatedPages: relocated, WriteAmplification: wa}}
	}
	var prev = math.Inf(1)
	for _, relocated := range []int64{0, 10, 50, 200} {
		m, err := FromFixedBatch(run(100, relocated), dash.Plan{}, 0, "")
		if err != nil {
			t.Fatal(err)
		}
		if m.WriteRate.GBps() != 0.5 || m.KVCapacity != 600*unit.GiB || !strings.Contains(m.WASource, "measured") {
			t.Fatalf("measurement %+v", m)
		}
		y, err := m.Inputs(1e4, 0.5).LifetimeYears()
		if err != nil || !(y < prev) {
			t.Errorf("%d relocated pages (A_W %g): %g years, not below %g (%v)", relocated, m.WriteAmplification, y, prev, err)
		}
		prev = y
	}
	if _, err := FromFixedBatch(run(0, 0), dash.Plan{}, 0, ""); err == nil {
		t.Error("a run that programmed nothing gave a measured A_W")
	}
	if m, err := FromFixedBatch(run(0, 0), dash.Plan{}, 2, "given"); err != nil || m.WriteAmplification != 2 {
		t.Errorf("a given A_W: %+v, %v", m, err)
	}
}

func TestFromServing(t *testing.T) {
	m, err := FromServing(0.25, 800*unit.MB, 550*unit.GB, 1, "test", "serving")
	if err != nil || m.WriteRate.GBps() != 0.2 {
		t.Fatalf("%+v, %v", m, err)
	}
	u, err := Utilization(0.125, 0.25)
	if err != nil || u != 0.5 {
		t.Fatalf("u %g, %v", u, err)
	}
	y, _ := m.Inputs(1e4, u).LifetimeYears()
	want := 550e9 * 1e4 / (0.2e9 * 0.5) / SecondsPerYear
	if math.Abs(y-want) > 1e-9*want {
		t.Errorf("lifetime %g, want %g", y, want)
	}
	if _, err := Utilization(0.3, 0.25); err == nil {
		t.Error("an offered rate above saturation was accepted")
	}
	if _, err := FromServing(0, unit.MB, unit.GB, 1, "", ""); err == nil {
		t.Error("zero saturation accepted")
	}
}
