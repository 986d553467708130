package charts

import (
	"errors"
	"fmt"
	"html/template"

	ec "github.com/go-echarts/go-echarts/v2/charts"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
)

// Architecture tabulates a system's parts (§IV) from its spec: the UCIe link (raw and
// usable rate, headroom, power per direction, die-edge width), the two base-die SRAMs
// (regions, usable and physical capacity), the HBF page wave and array read bandwidth,
// the topology's links and routes and the expert-delivery bound (SystemSpec.ExpertDelivery).
// Its rows are the harness's verdicts on every §IV number (reproduce.Parts); for a
// system that is not the paper's (p.WhatIf lists how), the caption says so and the rows
// are what-ifs, not judged by the paper's numbers.
func Architecture(p summary.Parts) (Figure, error) {
	s := p.System
	if err := s.Validate(); err != nil {
		return Figure{}, err
	}
	l, h, r := s.Link, s.HBF, s.HBM.RelaySRAM
	lo, hi := l.PowerRange()
	d := s.ExpertDelivery()
	link := HTMLTable("UCIe link (one direction)", []string{"Quantity", "Value", "How"}, [][]string{
		{"raw rate", fmt.Sprintf("%.4g TB/s", l.Raw().TBps()), fmt.Sprintf("%d modules x %d lanes x %g GT/s / 8", l.Modules, l.LanesPerModule, l.GTPerSecond)},
		{"usable rate", fmt.Sprintf("%.4g TB/s", l.Usable.TBps()), "parameter (the paper: 1.6 TB/s)"},
		{"headroom", fmt.Sprintf("%.3g %%", 100*l.Headroom()), "1 - usable / raw"},
		{"power, fully used", fmt.Sprintf("%.3g-%.3g W", float64(lo), float64(hi)), fmt.Sprintf("usable rate x %v to %v", l.EnergyLow, l.EnergyHigh)},
		{"die-edge width", fmt.Sprintf("%.4g mm", l.EdgeWidthMM()), fmt.Sprintf("%d x %g mm per endpoint", l.Modules, l.ModuleWidthMM)},
	})
	sram := HTMLTable("Base-die SRAM (per stack)", []string{"SRAM", "Regions", "Usable", "Physical (with ECC)"}, [][]string{
		{"HBF transfer SRAM", fmt.Sprintf("%d x %v", h.SRAM.Regions, h.SRAM.RegionSize), h.SRAM.Usable().String(), h.SRAM.Physical().String()},
		{"HBM relay SRAM", fmt.Sprintf("%d x %v", r.Regions, r.RegionSize), r.Usable().String(), r.Physical().String()},
	})
	routes := "none"
	switch {
	case s.Topology.Direct() && s.Topology.Relay():
		routes = "Direct and Relay"
	case s.Topology.Direct():
		routes = "Direct only"
	case s.Topology.Relay():
		routes = "Relay only"
	}
	bound := "links"
	if d.ArrayBound {
		bound = "NAND array"
	}
	hbf := HTMLTable("HBF array and expert delivery", []string{"Quantity", "Value", "How"}, [][]string{
		{"page wave", h.PageWave().String(), fmt.Sprintf("%d dies x %d planes x %d subarrays x %v", h.Dies, h.PlanesPerDie, h.SubarraysPerPlane, h.PageSize)},
		{"array read bandwidth", fmt.Sprintf("%.4g TB/s per stack", h.ArrayReadBandwidth().TBps()), fmt.Sprintf("page wave / t_R (%s), cache read %v", Dur(h.TRead), h.CacheRead)},
		{"topology", fmt.Sprintf("%s: %d pairs, %d links, %d at the GPU", s.Topology.Name(), s.Topology.Pairs, s.Topology.Links(), s.Topology.GPUFacingLinks()), "routes for HBF data: " + routes},
		{"route drain per stack", fmt.Sprintf("%.4g TB/s", d.Routes.TBps()), fmt.Sprintf("%d route(s) x %.4g TB/s usable", d.RouteCount, l.Usable.TBps())},
		{"expert delivery bound", fmt.Sprintf("%.4g TB/s", d.Total.TBps()), fmt.Sprintf("%d stacks x min(array, routes): set by the %s", d.Stacks, bound)},
	})
	fig := Figure{
		ID:    "arch_" + SanitizeID(s.ID),
		Title: "System " + s.ID + ": links, SRAM and the HBF array",
		Caption: fmt.Sprintf("HBF data reach the GPU at most at %.4g TB/s on %s: per stack the lesser of the array's %.4g TB/s and the routes' %.4g TB/s.",
			d.Total.TBps(), s.ID, d.Array.TBps(), d.Routes.TBps()),
		Tables: []template.HTML{link, sram, hbf},
	}
	fig.Caption = WhatIfCaption(fig.Caption, p.WhatIf)
	fig.Rows = append(fig.Rows, labelRows(p.Rows, []rowLabel{
		{"ucie.raw_tbps", "raw link rate"},
		{"ucie.usable_tbps", "usable link rate"},
		{"ucie.headroom_pct", "headroom"},
		{"ucie.link_power_w.min", fmt.Sprintf("link power, %v", l.EnergyLow)},
		{"ucie.link_power_w.max", fmt.Sprintf("link power, %v", l.EnergyHigh)},
		{"ucie.edge_width_mm", "die-edge width"},
		{"hbf.page_wave_mib", "page wave per stack"},
		{"hbf.page_wave_mib.two_stacks", "page wave, all stacks"},
		{"hbf.sram_physical_mib", "HBF SRAM, physical"},
		{"hbm.relay_sram_physical_mib", "HBM relay SRAM, physical"},
	})...)
	return fig, nil
}

// ArrayBandwidth draws an HBF stack's array read bandwidth (HBFSpec.ArrayReadBandwidth,
// page wave / t_R) against t_R for several page sizes, with what one route (one usable
// link) and two routes (Direct + Relay) can drain: where a curve lies below the
// two-route line, DASH's expert delivery is bound by the array, not the links. base
// supplies every other HBF parameter; its own point (base's t_R and page size: the
// paper's for the paper's part) is marked.
func ArrayBandwidth(base dash.HBFSpec, link dash.LinkSpec, tRs []unit.Duration, pages []unit.Bytes) (*ec.Line, error) {
	if len(tRs) == 0 || len(pages) == 0 {
		return nil, errors.New("charts: ArrayBandwidth needs t_R values and page sizes")
	}
	var series []XYSeries
	for _, p := range pages {
		h := base
		h.PageSize = p
		var pts []Point
		for _, t := range tRs {
			h.TRead = t
			pts = append(pts, Point{X: t.Microseconds(), Y: h.ArrayReadBandwidth().TBps()})
		}
		series = append(series, XYSeries{Name: fmt.Sprintf("%v pages (wave %v)", p, h.PageWave()), Points: pts})
	}
	u := link.Usable.TBps()
	return Lines(LineSpec{
		Common: Common{ID: "array_bandwidth", Title: "HBF array read bandwidth per stack vs t_R",
			Subtitle: fmt.Sprintf("%d dies x %d planes x %d subarrays; diamond: this part's point (%s, %v)", base.Dies, base.PlanesPerDie, base.SubarraysPerPlane, Dur(base.TRead), base.PageSize)},
		XName: "t_R (µs, log)", YName: "Array read bandwidth (TB/s per stack, log)", LogX: true, LogY: true,
		Series: series,
		Paper:  []XYSeries{{Name: fmt.Sprintf("%s, %v", Dur(base.TRead), base.PageSize), Color: PaperColor, Points: []Point{{X: base.TRead.Microseconds(), Y: base.ArrayReadBandwidth().TBps()}}}},
		RefLines: []RefLine{
			{Name: fmt.Sprintf("one route drains %.3g TB/s", u), Y: u, Color: "#d93025", Solid: true, Label: fmt.Sprintf("one route: %.3g TB/s", u)},
			{Name: fmt.Sprintf("Direct + Relay drain %.3g TB/s", 2*u), Y: 2 * u, Color: "#1a56c4", Solid: true, Label: fmt.Sprintf("Direct + Relay: %.3g TB/s", 2*u)},
		},
	})
}
