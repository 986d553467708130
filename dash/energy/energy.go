package energy

import (
	"errors"
	"fmt"
	"math"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
)

// Params price the memory system's activity.
type Params struct {
	// Link is the UCIe energy per bit per link crossing.
	Link unit.JoulesPerBit
	// HBM is the DRAM array access energy per bit.
	HBM unit.JoulesPerBit
	// HBFRead and HBFProgram are the NAND array energy per sensed and
	// per programmed bit.
	HBFRead, HBFProgram unit.JoulesPerBit
}

// Datasheet-class NAND supply: VCC 3.3 V and a typical active array
// current of 25 mA during page read and page program (the ICC1/ICC2
// "typical" of ONFI-class NAND datasheets, e.g. Micron MT29F parts).
const (
	NANDVolts = 3.3
	NANDAmps  = 0.025
)

// NANDEnergy is the energy per bit of one page operation lasting t that
// draws volts x amps: V x I x t / page bits.
func NANDEnergy(volts, amps float64, t unit.Duration, page unit.Bytes) unit.JoulesPerBit {
	if page <= 0 {
		return 0
	}
	return unit.JoulesPerBit(volts * amps * t.Seconds() / (8 * float64(page)))
}

// DefaultParams are the defaults for an HBF part h:
//   - Link 0.5 pJ/bit: UCIe 3.0's UCIe-A target at 0.5 V (the paper's
//     §IV-A, its reference [46]); 0.6 pJ/bit at 0.7 V is the other point.
//   - HBM 3.9 pJ/bit: HBM2 access energy (array, datapath and I/O) from
//     O'Connor et al., "Fine-Grained DRAM", MICRO 2017; an upper bound here,
//     since DASH's HBM I/O is the UCIe link counted separately.
//   - HBF read and program: [NANDEnergy] at [NANDVolts] x [NANDAmps] over
//     h's t_R and t_PROG per page (7.6 and 252 pJ/bit at 3 µs, 100 µs and
//     4 KiB pages).
func DefaultParams(h dash.HBFSpec) Params {
	return Params{
		Link:       0.5 * unit.PicojoulePerBit,
		HBM:        3.9 * unit.PicojoulePerBit,
		HBFRead:    NANDEnergy(NANDVolts, NANDAmps, h.TRead, h.PageSize),
		HBFProgram: NANDEnergy(NANDVolts, NANDAmps, h.TProg, h.PageSize),
	}
}

// Validate refuses a negative or non-finite price.
func (p Params) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    unit.JoulesPerBit
	}{{"link", p.Link}, {"hbm", p.HBM}, {"hbf_read", p.HBFRead}, {"hbf_program", p.HBFProgram}} {
		if !(f.v >= 0) || math.IsInf(float64(f.v), 0) || f.v > 1e-6 {
			errs = append(errs, fmt.Errorf("energy %s = %.4g pJ/bit: must be between 0 and 1e6 pJ/bit", f.name, float64(f.v)/1e-12))
		}
	}
	return errors.Join(errs...)
}

// Hops is the number of link crossings of each route the engine reports.
var Hops = map[sim.Route]int{
	sim.RouteHBM: 1, sim.RouteDirect: 1, sim.RouteRelay: 2,
	sim.RouteDirectWrite: 1, sim.RouteRelayWrite: 2, sim.RouteHBMWrite: 1, sim.RouteWriteback: 1,
}

// hbmArray says which routes touch the HBM DRAM array.
var hbmArray = map[sim.Route]bool{sim.RouteHBM: true, sim.RouteHBMWrite: true, sim.RouteWriteback: true}

// RouteEnergy is the link energy of one route.
type RouteEnergy struct {
	// Route is the engine's route; Hops its link crossings.
	Route sim.Route
	Hops  int
	// Bytes is what the route delivered.
	Bytes unit.Bytes
	// Joules is Bytes x 8 x Hops x the link energy per bit.
	Joules float64
}

// Breakdown is the memory system's energy over one simulation.
type Breakdown struct {
	// Tokens is the generated tokens, B x L_out.
	Tokens int64
	// Routes is the link energy per route, in the result's route order.
	Routes []RouteEnergy
	// Link, HBFRead, HBFProgram and HBM are the four terms, in joules.
	Link, HBFRead, HBFProgram, HBM float64
	// SensedBytes and ProgrammedBytes are the NAND page-wave bytes;
	// HBMBytes the DRAM array bytes.
	SensedBytes, ProgrammedBytes, HBMBytes unit.Bytes
}

// Total is the sum of the four terms, in joules.
func (b Breakdown) Total() float64 { return b.Link + b.HBFRead + b.HBFProgram + b.HBM }

// PerToken is Total / Tokens, in joules.
func (b Breakdown) PerToken() float64 {
	if b.Tokens == 0 {
		return 0
	}
	return b.Total() / float64(b.Tokens)
}

// Of prices what result r moved on a system whose HBF part is h. It refuses
// a route it does not know, so that a new route is never silently free.
func Of(r sim.Result, h dash.HBFSpec, p Params) (Breakdown, error) {
	if err := p.Validate(); err != nil {
		return Breakdown{}, err
	}
	b := Breakdown{Tokens: int64(r.Batch) * int64(r.Output)}
	for _, rt := range r.Routes {
		hops, ok := Hops[rt.Route]
		if !ok {
			return Breakdown{}, fmt.Errorf("energy: route %v has no link-crossing count", rt.Route)
		}
		e := RouteEnergy{Route: rt.Route, Hops: hops, Bytes: rt.Delivered,
			Joules: float64(rt.Delivered) * 8 * float64(hops) * float64(p.Link)}
		b.Routes = append(b.Routes, e)
		b.Link += e.Joules
		if hbmArray[rt.Route] {
			b.HBMBytes += rt.Delivered
		}
	}
	wave := h.PageWave()
	for _, s := range r.HBF {
		b.SensedBytes += unit.Bytes(s.Waves) * wave
		b.ProgrammedBytes += unit.Bytes(s.Programs) * wave
	}
	b.HBFRead = float64(b.SensedBytes) * 8 * float64(p.HBFRead)
	b.HBFProgram = float64(b.ProgrammedBytes) * 8 * float64(p.HBFProgram)
	b.HBM = float64(b.HBMBytes) * 8 * float64(p.HBM)
	return b, nil
}
