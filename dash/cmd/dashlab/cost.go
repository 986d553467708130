package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/internal/safeio"
	"github.com/dashlab/dashlab/reference"
)

func init() {
	register(&command{name: "cost", summary: "capacity per cost G(r, delta) with its breakeven, and scaling with the number of HBM-HBF pairs (§VI-G)", run: runCost})
}

// costJSON is `dashlab cost --format json`.
type costJSON struct {
	System              string          `json:"system"`
	CapacityGB          float64         `json:"capacity_gb"`
	ReferenceCapacityGB float64         `json:"reference_capacity_gb"`
	Formula             string          `json:"formula"`
	Gain                []costPointJSON `json:"gain"`
	Breakeven           []breakevenJSON `json:"breakeven"`
	Scaling             []scalingJSON   `json:"scaling"`
}

type costPointJSON struct {
	R     float64 `json:"r"`
	Delta float64 `json:"delta_hbm_stacks"`
	GainX float64 `json:"gain_x"`
}

type breakevenJSON struct {
	Delta float64 `json:"delta_hbm_stacks"`
	// BreakevenR is null when no r > 0 breaks even at this delta.
	BreakevenR *float64 `json:"breakeven_r"`
	Note       string   `json:"note,omitempty"`
}

type scalingJSON struct {
	Pairs               int     `json:"pairs"`
	GPUFacingLinks      int     `json:"gpu_facing_links"`
	PairLocalLinks      int     `json:"pair_local_links"`
	LogicalLinks        int     `json:"logical_links"`
	CapacityGB          float64 `json:"capacity_gb"`
	ReferenceCapacityGB float64 `json:"reference_capacity_gb"`
	ExpertBandwidthTBps float64 `json:"expert_bandwidth_tbps"`
	BeachfrontMM        float64 `json:"beachfront_mm"`
	LinkPowerLowW       float64 `json:"link_power_low_w"`
	LinkPowerHighW      float64 `json:"link_power_high_w"`
	GainAtR1D0X         float64 `json:"gain_r1_d0_x"`
}

func runCost(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("cost", "cost [--system ID] [--r LIST] [--delta LIST] [--pairs N] [--format table|json|csv [--table gain|breakeven|scaling]]", stderr)
	system := fs.String("system", "dash", "system id (dash, compact-dash, relay-only, direct-only, dash-N, ...)")
	rList := fs.String("r", "0.5,1,2,4,8,16,21.33,32", "HBF-to-HBM per-stack cost ratios r, comma-separated (positive, finite; at most 1000 values)")
	dList := fs.String("delta", "0,1,2,4,8,16", "integration costs delta in HBM-stack units, comma-separated (0 or more, finite; at most 1000 values); where no r breaks even, the breakeven is none")
	pairs := fs.Int("pairs", 8, "scale the topology from 1 to this many HBM-HBF pairs (at most 64, the topology's limit)")
	format := fs.String("format", "table", "output format: table, json or csv (one table, see --table)")
	tables := addTableFlag(fs, "gain", "breakeven", "scaling")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if err := tables.check(); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	rs, err := parseFloats("--r", *rList)
	if err != nil {
		return err
	}
	ds, err := parseFloats("--delta", *dList)
	if err != nil {
		return err
	}
	s, err := reference.System(*system)
	if err != nil {
		return err
	}
	grid, err := dash.CostSweep(s, rs, ds)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	line, err := dash.BreakevenLine(s, ds)
	if err != nil {
		return err
	}
	scaling, err := dash.ScalePairs(s, *pairs)
	if err != nil {
		return fmt.Errorf("%w: --pairs: %v", errUsage, err)
	}
	out := costJSON{System: s.ID, CapacityGB: dash.Capacity(s).GB(), ReferenceCapacityGB: dash.ReferenceCapacity(s).GB(),
		Formula: "G(r, delta) = (C / C_ref) x 2n / (n + n r + delta), n pairs; costs in HBM-stack units"}
	for _, p := range grid {
		out.Gain = append(out.Gain, costPointJSON{R: p.R, Delta: p.Delta, GainX: p.Gain})
	}
	for _, p := range line {
		b := breakevenJSON{Delta: p.Delta}
		if r, ok := (dash.CostModel{R: 1, Delta: p.Delta}).Breakeven(s); ok {
			b.BreakevenR = &r
		} else {
			b.Note = fmt.Sprintf("no r > 0 breaks even: at delta %g even a free HBF stack gives G < 1", p.Delta)
		}
		out.Breakeven = append(out.Breakeven, b)
	}
	for _, p := range scaling {
		v := s
		v.Topology.Pairs = p.Pairs
		out.Scaling = append(out.Scaling, scalingJSON{Pairs: p.Pairs, GPUFacingLinks: p.GPUFacingLinks, PairLocalLinks: p.PairLocalLinks,
			LogicalLinks: p.LogicalLinks, CapacityGB: p.Capacity.GB(), ReferenceCapacityGB: p.ReferenceCapacity.GB(),
			ExpertBandwidthTBps: p.ExpertBandwidth.TBps(), BeachfrontMM: p.BeachfrontMM,
			LinkPowerLowW: float64(p.LinkPowerLow), LinkPowerHighW: float64(p.LinkPowerHigh),
			GainAtR1D0X: dash.CostModel{R: 1}.Gain(v)})
	}
	if ok, err := writeData(stdout, *format, out, func() csvTable { return tables.pick(csvOf(out.Gain), csvOf(out.Breakeven), csvOf(out.Scaling)) }); ok {
		return err
	}
	writeCostTable(stdout, out, rs, ds)
	return nil
}

func writeCostTable(w io.Writer, o costJSON, rs, ds []float64) {
	fmt.Fprintf(w, "%s: %.0f GB against a %.0f GB all-HBM reference; %s\n\nG(r, delta) (rows r, columns delta; >1: more capacity per cost than the reference)\n\n", o.System, o.CapacityGB, o.ReferenceCapacityGB, o.Formula)
	var t table
	head := []string{"r \\ delta"}
	for _, d := range ds {
		head = append(head, strconv.FormatFloat(d, 'g', -1, 64))
	}
	t.add(head...)
	for i, r := range rs {
		row := []string{strconv.FormatFloat(r, 'g', -1, 64)}
		for j := range ds {
			row = append(row, fmt.Sprintf("%.2f", o.Gain[i*len(ds)+j].GainX))
		}
		t.add(row...)
	}
	br := []string{"breakeven r"}
	for _, b := range o.Breakeven {
		if b.BreakevenR == nil {
			br = append(br, "none")
			continue
		}
		br = append(br, fmt.Sprintf("%.2f", *b.BreakevenR))
	}
	t.add(br...)
	t.write(w)
	fmt.Fprintf(w, "\nScaling with n HBM-HBF pairs (link power: every logical link fully used in one direction)\n\n")
	var s table
	s.add("n", "GPU-facing", "pair-local", "logical", "capacity GB", "reference GB", "expert TB/s", "beachfront mm", "link power W", "G(1,0)")
	for _, p := range o.Scaling {
		s.add(strconv.Itoa(p.Pairs), strconv.Itoa(p.GPUFacingLinks), strconv.Itoa(p.PairLocalLinks), strconv.Itoa(p.LogicalLinks),
			fmt.Sprintf("%.0f", p.CapacityGB), fmt.Sprintf("%.0f", p.ReferenceCapacityGB), fmt.Sprintf("%.1f", p.ExpertBandwidthTBps),
			fmt.Sprintf("%.2f", p.BeachfrontMM), fmt.Sprintf("%.1f-%.1f", p.LinkPowerLowW, p.LinkPowerHighW), fmt.Sprintf("%.2f", p.GainAtR1D0X))
	}
	s.write(w)
}

// maxListValues bounds a comma-separated list flag.
const maxListValues = 1000

// parseFloats reads a comma-separated list of at most maxListValues finite
// numbers.
func parseFloats(flag, s string) ([]float64, error) {
	var out []float64
	fields := strings.Split(s, ",")
	if len(fields) > maxListValues {
		return nil, fmt.Errorf("%w: %s: %d values; at most %d", errUsage, flag, len(fields), maxListValues)
	}
	for _, f := range fields {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: %s %s: want finite numbers separated by commas", errUsage, flag, safeio.Quote(f))
		}
		out = append(out, x)
	}
	return out, nil
}
