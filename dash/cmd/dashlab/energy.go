package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/energy"
	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/reference/reproduce"
	"github.com/dashlab/dashlab/summary"
)

func init() {
	register(&command{name: "energy", summary: "memory-system energy per generated token on the four systems (Fig. 9(a) workloads)", run: runEnergy})
}

// energyJSON is `dashlab energy --format json`.
type energyJSON struct {
	Params energyParamsJSON  `json:"params"`
	Points []energyPointJSON `json:"points"`
}

type energyParamsJSON struct {
	LinkPJPerBit       float64 `json:"link_pj_per_bit"`
	HBMPJPerBit        float64 `json:"hbm_pj_per_bit"`
	HBFReadPJPerBit    float64 `json:"hbf_read_pj_per_bit"`
	HBFProgramPJPerBit float64 `json:"hbf_program_pj_per_bit"`
	Sources            string  `json:"sources"`
}

type energyPointJSON struct {
	Model                string                `json:"model"`
	System               string                `json:"system"`
	Batch                int                   `json:"batch"`
	Error                string                `json:"error,omitempty"`
	MJPerToken           float64               `json:"mj_per_token"`
	LinkMJPerToken       float64               `json:"link_mj_per_token"`
	HBFReadMJPerToken    float64               `json:"hbf_read_mj_per_token"`
	HBFProgramMJPerToken float64               `json:"hbf_program_mj_per_token"`
	HBMMJPerToken        float64               `json:"hbm_mj_per_token"`
	RouteLinkMJPerToken  map[sim.Route]float64 `json:"route_link_mj_per_token,omitempty" csv:"-"`
}

const energySources = "link: UCIe 3.0 UCIe-A target (paper §IV-A [46]); hbm: HBM2 access energy, O'Connor et al., MICRO 2017; hbf read/program: 3.3 V x 25 mA (datasheet-class NAND) x t_R / t_PROG per page bit"

func runEnergy(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("energy", "energy [--models LIST] [--batches LIST] [--prompt N] [--output N] [--link-pj X] [--hbm-pj X] [--hbf-read-pj X] [--hbf-program-pj X] [--reading paper|physical] [--format table|json|csv]", stderr)
	models := fs.String("models", strings.Join(reference.Fig9ModelIDs, ","), "catalogue model ids, comma-separated")
	batches := fs.String("batches", "1,4,16,64", "batch sizes, comma-separated")
	prompt := fs.Int("prompt", 1024, "prompt tokens L_in")
	output := fs.Int("output", 128, "output tokens L_out")
	def := energy.DefaultParams(reference.MustSystem(reference.DefaultSystem).HBF)
	pj := func(e unit.JoulesPerBit) float64 { return float64(e) / float64(unit.PicojoulePerBit) }
	link := fs.Float64("link-pj", pj(def.Link), "link energy per bit per crossing, pJ/bit (0.6 is UCIe's 0.7 V point)")
	hbm := fs.Float64("hbm-pj", pj(def.HBM), "HBM array access energy, pJ/bit")
	read := fs.Float64("hbf-read-pj", pj(def.HBFRead), "HBF sensing energy per sensed bit, pJ/bit (default: from t_R of each system's HBF)")
	prog := fs.Float64("hbf-program-pj", pj(def.HBFProgram), "HBF program energy per programmed bit, pJ/bit (default: from t_PROG)")
	readingName := fs.String("reading", "paper", "reading of t_R: paper or physical")
	format := fs.String("format", "table", "output format: table, json or csv (one row per point, a link_ROUTE_mj_per_token column per route)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	reading, err := dash.ParseReading(*readingName)
	if err != nil {
		return fmt.Errorf("%w: --reading: %v", errUsage, err)
	}
	bs, err := parseInts("--batches", *batches)
	if err != nil {
		return err
	}
	params := func(s dash.SystemSpec) energy.Params {
		p := energy.DefaultParams(s.HBF)
		p.Link, p.HBM = unit.JoulesPerBit(*link)*unit.PicojoulePerBit, unit.JoulesPerBit(*hbm)*unit.PicojoulePerBit
		if flagSet(fs, "hbf-read-pj") {
			p.HBFRead = unit.JoulesPerBit(*read) * unit.PicojoulePerBit
		}
		if flagSet(fs, "hbf-program-pj") {
			p.HBFProgram = unit.JoulesPerBit(*prog) * unit.PicojoulePerBit
		}
		return p
	}
	probe := params(reference.MustSystem(reference.DefaultSystem))
	if err := probe.Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	var cases []summary.Case
	for _, m := range strings.Split(*models, ",") {
		if _, err := reference.Model(strings.TrimSpace(m)); err != nil {
			return fmt.Errorf("%w: --models: %v", errUsage, err)
		}
		for _, b := range bs {
			for _, s := range reproduce.Fig9Systems {
				cases = append(cases, reproduce.Fig9Case(strings.TrimSpace(m), s, b, *prompt, *output, reading))
			}
		}
	}
	fmt.Fprintf(stderr, "energy: simulating %d runs (%d models x %d batches x %d systems)...\n", len(cases), len(cases)/len(bs)/len(reproduce.Fig9Systems), len(bs), len(reproduce.Fig9Systems))
	points := reproduce.Sweep(cases, 0)
	if err := summary.SweepErr(points); err != nil {
		return err
	}
	priced, err := reproduce.EnergyStudy(points, params)
	if err != nil {
		return err
	}
	out := energyJSON{Params: energyParamsJSON{LinkPJPerBit: pj(probe.Link), HBMPJPerBit: pj(probe.HBM),
		HBFReadPJPerBit: pj(probe.HBFRead), HBFProgramPJPerBit: pj(probe.HBFProgram), Sources: energySources}}
	for _, p := range priced {
		out.Points = append(out.Points, energyRow(p))
	}
	if ok, err := writeData(stdout, *format, out, func() csvTable { return energyCSV(out.Points) }); ok {
		return err
	}
	fmt.Fprintf(stdout, "Memory-system energy per generated token (mJ): link %.2f, HBM %.2f, HBF read %.2f, program %.1f pJ/bit\n(%s)\n\n",
		out.Params.LinkPJPerBit, out.Params.HBMPJPerBit, out.Params.HBFReadPJPerBit, out.Params.HBFProgramPJPerBit, energySources)
	var t table
	t.add("model", "B", "system", "total", "links", "HBF read", "HBF program", "HBM")
	for _, r := range out.Points {
		if r.Error != "" {
			t.add(r.Model, strconv.Itoa(r.Batch), r.System, "-", "", "", "", r.Error)
			continue
		}
		t.add(r.Model, strconv.Itoa(r.Batch), r.System, f2(r.MJPerToken), f2(r.LinkMJPerToken), f2(r.HBFReadMJPerToken), f2(r.HBFProgramMJPerToken), f2(r.HBMMJPerToken))
	}
	t.write(stdout)
	return nil
}

func energyRow(p summary.EnergyPoint) energyPointJSON {
	r := energyPointJSON{Model: p.Model, System: p.System, Batch: p.Batch}
	if p.Err != nil {
		r.Error = p.Err.Error()
	}
	b := p.Breakdown
	if p.Err != nil || b.Tokens == 0 {
		return r
	}
	mj := func(j float64) float64 { return 1e3 * j / float64(b.Tokens) }
	r.MJPerToken, r.LinkMJPerToken, r.HBFReadMJPerToken, r.HBFProgramMJPerToken, r.HBMMJPerToken =
		mj(b.Total()), mj(b.Link), mj(b.HBFRead), mj(b.HBFProgram), mj(b.HBM)
	r.RouteLinkMJPerToken = map[sim.Route]float64{}
	for _, e := range b.Routes {
		r.RouteLinkMJPerToken[e.Route] = mj(e.Joules)
	}
	return r
}

// energyCSV is the points with a column per route for the link energy of the
// route (link_relay_mj_per_token, ...; empty where the route carried nothing).
func energyCSV(points []energyPointJSON) csvTable {
	t := csvOf(points)
	for _, r := range sim.Routes() {
		t.header = append(t.header, "link_"+r.String()+"_mj_per_token")
	}
	for i, p := range points {
		for _, r := range sim.Routes() {
			cell := ""
			if mj, ok := p.RouteLinkMJPerToken[r]; ok {
				cell = csvFloat(mj)
			}
			t.rows[i] = append(t.rows[i], cell)
		}
	}
	return t
}
