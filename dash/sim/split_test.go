package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// makespan is the time (in s) the parts need of the resources the routes
// rs load, given the seconds already taken of them: max over those
// resources of (taken + the parts' costs) / cap, every one counted (those
// every route loads alike too).
func makespan(rt *routing, rs []int32, parts []unit.Bytes, loads []load) float64 {
	secs := make([]float64, len(rt.rate))
	on := make([]bool, len(rt.rate))
	for _, r := range rs {
		for _, j := range rt.routes[r].uses {
			on[j] = true
		}
	}
	for _, l := range loads {
		secs[l.res] += l.secs
	}
	for r, b := range parts {
		for q, j := range rt.routes[r].uses {
			secs[j] += float64(b) * rt.routes[r].cost[q]
		}
	}
	t := 0.0
	for j, v := range secs {
		if on[j] {
			t = max(t, v/rt.cap[j])
		}
	}
	return t
}

// lpMakespan is the least makespan of b bytes over routes rs with the
// loads, by gonum's simplex: minimise T subject to sum x = b and, for every
// resource, taken + sum of cost x over its routes <= cap T (bytes in GB,
// T in ms, to keep the tableau well scaled).
func lpMakespan(rt *routing, b unit.Bytes, rs []int32, loads []load) (float64, error) {
	n := len(rs) + 1 // x_r, T
	var res []int32
	seen := map[int32]bool{}
	for _, r := range rs {
		for _, j := range rt.routes[r].uses {
			if !seen[j] {
				seen[j] = true
				res = append(res, j)
			}
		}
	}
	var g []float64
	var h []float64
	for _, j := range res {
		row := make([]float64, n)
		for k, r := range rs {
			row[k] = costOn(rt, r, j) * 1e12 // s/B -> ms/GB
		}
		row[n-1] = -rt.cap[j]
		c := 0.0
		for _, l := range loads {
			if l.res == j {
				c += l.secs * 1e3
			}
		}
		g, h = append(g, row...), append(h, -c)
	}
	for k := range n { // x, T >= 0
		row := make([]float64, n)
		row[k] = -1
		g, h = append(g, row...), append(h, 0)
	}
	a := make([]float64, n)
	for k := range rs {
		a[k] = 1
	}
	cost := make([]float64, n)
	cost[n-1] = 1
	cNew, aNew, bNew := lp.Convert(cost, mat.NewDense(len(h), n, g), h, mat.NewDense(1, n, a), []float64{float64(b) / 1e9})
	opt, _, err := lp.Simplex(cNew, aNew, bNew, 1e-12, nil)
	return opt / 1e3, err // ms -> s
}

// randomPairSystem is DASH's parts with a random pair: 1-3 HBM stacks on
// the HBF stack, each path present or absent (the GPU still reaching both
// memories), every link, array and TSV at 0.01x-10x the paper's rate, and
// either reading of t_R.
func randomPairSystem(r *rand.Rand) func(dash.ExperimentBuilder) dash.ExperimentBuilder {
	scale := func() float64 { return math.Pow(10, -2+3*r.Float64()) }
	h := 1 + r.IntN(3)
	paths := [][3]bool{{true, true, true}, {true, false, true}, {true, true, false}}[r.IntN(3)]
	waves := []dash.WaveDepth{dash.ReadWavesUnbounded, 1, 2}[r.IntN(3)]
	tread := unit.Duration(float64(3*unit.Microsecond) * scale())
	return func(b dash.ExperimentBuilder) dash.ExperimentBuilder {
		return b.Modify(func(s *dash.SystemSpec) {
			t := &s.Topology
			t.Pairs, t.HBMPerPair = 1, h
			t.GPUHBM, t.GPUHBF, t.HBMHBF = paths[0], paths[1], paths[2]
			s.Link.GTPerSecond *= 20 // raw headroom for the fast links
			s.HBM.ArrayBandwidth = unit.BytesPerSecond(float64(s.HBM.ArrayBandwidth) * scale())
			s.HBF.TSVBandwidth = unit.BytesPerSecond(float64(s.HBF.TSVBandwidth) * scale())
			s.HBF.TRead = max(dash.MinTRead, tread)
			s.HBF.ReadWavesInFlight = waves
			s.HBF.SRAM.Regions, s.HBM.RelaySRAM.Regions = 1+r.IntN(3), 1+r.IntN(3)
			rates := map[string]unit.BytesPerSecond{}
			for _, name := range t.LinkNames() {
				rates[name] = unit.BytesPerSecond(float64(s.Link.Usable) * scale())
			}
			t.LinkUsable = dash.WithLinkUsable(rates)
		})
	}
}

// TestSplitIsTheLPOptimum checks the water-filling against gonum's simplex
// on random pairs: the split of replicated weights, HBF-only weights and
// the HBF KV beside HBM KV takes no longer of the pair's resources (every
// one counted, links, arrays, TSV and SRAM pools) than the LP's minimum
// makespan, but for the rounding to the chunk grid (a transfer chunk over
// the slowest route of the split).
func TestSplitIsTheLPOptimum(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 21))
	cases := 0
	for range splitCases {
		exp := build(t, "qwen3-235b-a22b", "dash", 1, 64, 2, randomPairSystem(r))
		cfg, err := newConfig(exp)
		if err != nil {
			t.Fatal(err)
		}
		e := newEngine(cfg)
		rt := &e.cfg.rt
		b := unit.Bytes(1+r.IntN(4000)) * unit.MB
		h := unit.Bytes(r.IntN(2000)) * unit.MB
		for _, item := range []string{"replicated", "hbf-only", "kv"} {
			spec := opSpec{class: ClassAttnProj, weights: b, replicated: item == "replicated"}
			var rs []int32
			grain := unit.Bytes(1)
			e.loads = e.loads[:0]
			switch item {
			case "replicated":
				n := unit.Bytes(len(rt.cellHBM[0]))
				if e.hbmOnly((b+n-1)/n, 0) {
					continue // the latency rule, not the rates, decides
				}
				rs = append(append([]int32(nil), e.pairRoutes(0, true, false)...), rt.hbfRead[0]...)
			case "hbf-only":
				rs = rt.hbfRead[0]
			case "kv":
				spec = opSpec{class: ClassAttention, kvHBF: b, kvHBM: h}
				rs, grain = rt.hbfRead[0], e.cfg.seg
			}
			parts := e.readParts(&spec, false, 0)
			loads := append([]load(nil), e.loads...)
			got := makespan(rt, rs, parts, loads)
			want, err := lpMakespan(rt, b, rs, loads)
			if err != nil {
				t.Fatalf("%s: LP: %v", item, err)
			}
			slow := math.Inf(1)
			for _, rr := range rs {
				slow = min(slow, e.routeRate(rr))
			}
			tol := want*1e-5 + float64(grain)/slow + 1e-12 // rounding to bytes, to the grid
			if got > want+tol {
				t.Errorf("%s over %d routes (%v): makespan %.6g s, LP %.6g s (%+.3g%%); parts %v", item, len(rs), describe(rt, rs), got, want, 100*(got/want-1), parts)
			}
			cases++
		}
	}
	t.Logf("%d splits checked against the LP", cases)
}

func describe(rt *routing, rs []int32) string {
	s := ""
	for _, r := range rs {
		s += fmt.Sprintf(" %v", rt.routes[r].kind)
	}
	return s
}

// splitCases is the random pairs TestSplitIsTheLPOptimum draws.
var splitCases = 150
