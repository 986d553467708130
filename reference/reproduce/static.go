package reproduce

import (
	"fmt"
	"math"
	"slices"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// The groups computed from specifications alone: the inventory (Table II,
// Fig. 1), the interconnect and base dies (§IV), and capacity per cost
// (§VI-G).
func init() {
	register(group{name: "capacity", prefixes: []string{"table2.", "fig1."}, run: runCapacity})
	register(group{name: "interconnect", prefixes: []string{"ucie.", "hbf.", "hbm."}, run: runInterconnect})
	register(group{name: "cost", prefixes: []string{"cost."}, run: runCost})
}

func runCapacity(_ Options, art *Artifacts) (values, error) {
	var v values
	minShare, maxShare := math.Inf(1), math.Inf(-1)
	minGB, maxGB := math.Inf(1), math.Inf(-1)
	var minID, maxID, minGBID, maxGBID string
	gpu, err := reference.GPU(reference.DefaultGPU)
	if err != nil {
		return v, err
	}
	art.Catalogue = summary.Catalogue{Fig1: reference.Fig1ModelIDs, Table2: reference.PaperModelIDs, Fig9: reference.Fig9ModelIDs,
		GPUMemory: gpu.MemCapacity}
	for _, id := range reference.ModelIDs() {
		m, err := reference.Model(id)
		if err != nil {
			return v, err
		}
		f, err := m.Footprint()
		if err != nil {
			return v, err
		}
		paper := slices.Contains(reference.PaperModelIDs, id)
		art.Catalogue.Models = append(art.Catalogue.Models, summary.ModelRow{Spec: m, Footprint: f, Paper: paper})
		gb := f.Bytes.GB()
		if paper {
			v.Set("table2.weights_gb."+id, gb, fmt.Sprintf("%s checkpoint layout, %d tensor entries, MTP and scales included", m.Checkpoint.Layout, len(mustInventory(m).Tensors)))
		}
		if !slices.Contains(reference.Fig1ModelIDs, id) {
			continue
		}
		if f.ExpertSharePct < minShare {
			minShare, minID = f.ExpertSharePct, id
		}
		if f.ExpertSharePct > maxShare {
			maxShare, maxID = f.ExpertSharePct, id
		}
		if gb < minGB {
			minGB, minGBID = gb, id
		}
		if gb > maxGB {
			maxGB, maxGBID = gb, id
		}
	}
	v.Set("fig1.expert_share_pct.min", minShare, "routed-expert parameters / main-model parameters; minimum over the Fig. 1 models in the catalogue: "+minID)
	v.Set("fig1.expert_share_pct.max", maxShare, "maximum over the Fig. 1 models in the catalogue: "+maxID)
	v.Set("fig1.weights_gb.min", minGB, "smallest Fig. 1 checkpoint: "+minGBID)
	v.Set("fig1.weights_gb.max", maxGB, "largest Fig. 1 checkpoint: "+maxGBID)
	art.Catalogue.Rows = judgeAll(v, nil)
	return v, nil
}

func mustInventory(m dash.ModelSpec) dash.Inventory {
	inv, _ := m.Inventory()
	return inv
}

func runInterconnect(_ Options, _ *Artifacts) (values, error) {
	s, err := reference.System("dash")
	if err != nil {
		return values{}, err
	}
	return partValues(s), nil
}

// Parts judges a system's §IV numbers (its link, base-die SRAMs and page wave) against
// the paper's: what-ifs for a system that is not the paper's system of its id
// (reference.SystemChanges).
func Parts(s dash.SystemSpec) (summary.Parts, error) {
	if err := s.Validate(); err != nil {
		return summary.Parts{}, err
	}
	w := summary.WhatIf(reference.SystemChanges(s))
	return summary.Parts{System: s, WhatIf: w, Rows: judgeAll(partValues(s), w)}, nil
}

// partValues are the §IV ids computed from a system's parts.
func partValues(s dash.SystemSpec) values {
	var v values
	l := s.Link
	v.Set("ucie.raw_tbps", l.Raw().TBps(), fmt.Sprintf("%d modules x %d lanes x %g GT/s / 8", l.Modules, l.LanesPerModule, l.GTPerSecond))
	v.Set("ucie.usable_tbps", l.Usable.TBps(), "link.usable parameter")
	v.Set("ucie.headroom_pct", 100*l.Headroom(), "1 - usable/raw")
	lo, hi := l.PowerRange()
	v.Set("ucie.link_power_w.min", float64(lo), fmt.Sprintf("%v x %v", l.Usable, l.EnergyLow))
	v.Set("ucie.link_power_w.max", float64(hi), fmt.Sprintf("%v x %v", l.Usable, l.EnergyHigh))
	v.Set("ucie.edge_width_mm", l.EdgeWidthMM(), fmt.Sprintf("%d x %g mm", l.Modules, l.ModuleWidthMM))
	h := s.HBF
	v.Set("hbf.page_wave_mib", h.PageWave().MiB(), fmt.Sprintf("%d dies x %d planes x %d subarrays x %v", h.Dies, h.PlanesPerDie, h.SubarraysPerPlane, h.PageSize))
	v.Set("hbf.page_wave_mib.two_stacks", float64(s.Topology.Pairs)*h.PageWave().MiB(), "page wave x HBF stacks")
	v.Set("hbf.sram_physical_mib", h.SRAM.Physical().MiB(), fmt.Sprintf("%d x %v + %g%% ECC", h.SRAM.Regions, h.SRAM.RegionSize, h.SRAM.ECCOverheadPct))
	r := s.HBM.RelaySRAM
	v.Set("hbm.relay_sram_physical_mib", r.Physical().MiB(), fmt.Sprintf("%d x %v + %g%% ECC", r.Regions, r.RegionSize, r.ECCOverheadPct))
	return v
}

func runCost(_ Options, _ *Artifacts) (values, error) {
	var v values
	s, err := reference.System("dash")
	if err != nil {
		return v, err
	}
	v.Set("cost.capacity_gb.dash", dash.Capacity(s).GB(), "2 x 24 GB HBM + 2 x 512 GB HBF")
	v.Set("cost.capacity_gb.reference", dash.ReferenceCapacity(s).GB(), "4 x 24 GB HBM")
	c := dash.CostModel{R: 1, Delta: 0}
	v.Set("cost.gain.r1_d0", c.Gain(s), "G(r=1, δ=0) = (1072/96) x 4 / (2 + 2r + δ)")
	v.Set("cost.breakeven_r.d0", c.BreakevenR(s), "r at which G = 1 with δ = 0")
	return v, nil
}
