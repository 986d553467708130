package charts

import (
	"errors"
	"fmt"
	"html/template"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/dashlab/dashlab/dash/sim"
	"github.com/dashlab/dashlab/dash/unit"
	"github.com/dashlab/dashlab/summary"
	ec "github.com/go-echarts/go-echarts/v2/charts"
)

// RouteColors are the route colors of RouteTimeline: Direct (HBF -> GPU) blue, Relay
// (HBF -> HBM base die -> GPU) orange, HBM reads green, writes in darker shades.
var RouteColors = map[sim.Route]string{
	sim.RouteDirect: "#1a56c4", sim.RouteRelay: "#f08a24", sim.RouteHBM: "#3ba272",
	sim.RouteDirectWrite: "#0b2e6e", sim.RouteRelayWrite: "#9c5107", sim.RouteHBMWrite: "#1d6b42", sim.RouteWriteback: "#9a60b4",
}

// opColors are the GPU operator colors of RouteTimeline.
var opColors = map[sim.OpClass]string{
	sim.ClassNorm: "#b0b0b0", sim.ClassAttnProj: "#7e57c2", sim.ClassAttention: "#00acc1", sim.ClassRouter: "#ec407a",
	sim.ClassExperts: "#546e7a", sim.ClassDenseFFN: "#6d4c41", sim.ClassLMHead: "#455a64",
}

// linkOrder sorts a stack's links: reads towards the GPU first, in the order a Relay
// chunk travels, then writes.
var linkOrder = []string{"GPU<-HBF", "HBF->HBM", "GPU<-HBM", "GPU->HBF", "GPU->HBM", "HBM->HBF"}

func linkRank(l string) int {
	if i := slices.Index(linkOrder, l); i >= 0 {
		return i
	}
	return len(linkOrder)
}

// GPULane is the lane of the GPU's operators in RouteTimeline.
const GPULane = "GPU operators"

// RouteTimeline draws one traced layer of a simulation (sim.RunWith with a TraceSpec;
// sim.Result.Timeline) as the paper's Fig. 6 from the engine: one lane per link direction
// of each stack pair (GPU<-HBF, HBF->HBM, GPU<-HBM, ...) with the chunks that crossed it
// colored by route (direct, relay, hbm), and a lane of GPU operators colored by class.
// Time is in µs from the start of the layer's first operator, so reads sensed ahead of
// it start before 0. Back-to-back chunks of one operator on one link are merged into
// one bar (the tooltip gives their count and bytes). c sets the id and title; an empty
// title gets a default.
func RouteTimeline(tl *sim.Timeline, c Common) (*ec.Custom, error) {
	return routeTimeline(tl, c, 0, 0)
}

// timelineOrigin is the start of the layer's first operator.
func timelineOrigin(tl *sim.Timeline) unit.Duration {
	t0 := tl.Ops[0].Start
	for _, o := range tl.Ops {
		t0 = min(t0, o.Start)
	}
	return t0
}

// timelineRange is the time range of a traced layer in µs from its origin.
func timelineRange(tl *sim.Timeline) (lo, hi float64) {
	t0 := timelineOrigin(tl)
	for _, o := range tl.Ops {
		lo, hi = math.Min(lo, (o.Start-t0).Microseconds()), math.Max(hi, (o.End-t0).Microseconds())
	}
	for _, s := range tl.Spans {
		lo, hi = math.Min(lo, (s.Start-t0).Microseconds()), math.Max(hi, (s.End-t0).Microseconds())
	}
	return lo, hi
}

func routeTimeline(tl *sim.Timeline, c Common, tmin, tmax float64) (*ec.Custom, error) {
	if tl == nil {
		return nil, errors.New("charts: RouteTimeline: no timeline (run sim.RunWith with Options.Trace)")
	}
	if len(tl.Ops) == 0 {
		return nil, fmt.Errorf("charts: RouteTimeline: pass %d layer %d has no operators", tl.Pass, tl.Layer)
	}
	t0 := timelineOrigin(tl)
	us := func(d unit.Duration) float64 { return (d - t0).Microseconds() }
	if c.Title == "" {
		c.Title = fmt.Sprintf("Route timeline: %s, layer %d", passName(tl.Pass), tl.Layer)
		if tl.Pass == 0 {
			c.Title = fmt.Sprintf("Route timeline: prefill, layer %d", tl.Layer)
		}
	}
	if c.Height == "" {
		c.Height = "520px"
	}

	type laneKey struct {
		stack int
		link  string
	}
	var keys []laneKey
	seen := map[laneKey]bool{}
	for _, s := range tl.Spans {
		k := laneKey{s.Stack, s.Link}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].stack != keys[j].stack {
			return keys[i].stack < keys[j].stack
		}
		return linkRank(keys[i].link) < linkRank(keys[j].link)
	})
	laneName := func(k laneKey) string { return fmt.Sprintf("pair %d · %s", k.stack, k.link) }
	var lanes []string
	for _, k := range keys {
		lanes = append(lanes, laneName(k))
	}
	lanes = append(lanes, GPULane)

	// Merge back-to-back chunks of one route and class on one lane.
	spans := slices.Clone(tl.Spans)
	sort.SliceStable(spans, func(i, j int) bool {
		a, b := spans[i], spans[j]
		if a.Stack != b.Stack || a.Link != b.Link {
			if a.Stack != b.Stack {
				return a.Stack < b.Stack
			}
			return a.Link < b.Link
		}
		return a.Start < b.Start
	})
	var ivs []Interval
	routes := map[sim.Route]bool{}
	var cur *Interval
	var curBytes unit.Bytes
	var curN int
	var curKey sim.OpClass
	var curRoute sim.Route
	flush := func() {
		if cur != nil {
			cur.Label = fmt.Sprintf("%s, %d chunk(s), %v", curKey, curN, curBytes)
			ivs = append(ivs, *cur)
			cur = nil
		}
	}
	const joinGap = 1e-3 // µs: chunks closer than a nanosecond are back to back
	for _, s := range spans {
		lane := laneName(laneKey{s.Stack, s.Link})
		key := s.Class
		start, end := us(s.Start), us(s.End)
		if cur != nil && cur.Lane == lane && curRoute == s.Route && curKey == key && start <= cur.End+joinGap {
			cur.End = math.Max(cur.End, end)
			curBytes += s.Bytes
			curN++
			continue
		}
		flush()
		cur = &Interval{Lane: lane, Start: start, End: end, Kind: s.Route.String()}
		curKey, curRoute, curBytes, curN = key, s.Route, s.Bytes, 1
		routes[s.Route] = true
	}
	flush()
	for _, o := range tl.Ops {
		ivs = append(ivs, Interval{Lane: GPULane, Start: us(o.Start), End: us(o.End), Kind: "GPU: " + o.Class.String(),
			Label: fmt.Sprintf("%s (compute %.3g µs)", o.Class, o.Compute.Microseconds())})
	}
	var kindSpecs []Series
	for _, r := range []sim.Route{sim.RouteDirect, sim.RouteRelay, sim.RouteHBM, sim.RouteDirectWrite, sim.RouteRelayWrite, sim.RouteHBMWrite, sim.RouteWriteback} {
		if routes[r] {
			kindSpecs = append(kindSpecs, Series{Name: r.String(), Color: RouteColors[r]})
		}
	}
	for _, o := range tl.Ops {
		k := "GPU: " + o.Class.String()
		if col, ok := opColors[o.Class]; ok && !slices.ContainsFunc(kindSpecs, func(s Series) bool { return s.Name == k }) {
			kindSpecs = append(kindSpecs, Series{Name: k, Color: col})
		}
	}
	return Timeline(TimelineSpec{Common: c, TimeName: "Time from the layer's first operator (µs)", Lanes: lanes, Intervals: ivs, Kinds: kindSpecs,
		TimeMin: tmin, TimeMax: tmax})
}

// NamedResult is one simulation's result with a name for legends and tables ("DASH",
// "no dual path"); RouteFigure needs results with a traced layer (sim.RunWith with
// Options.Trace).
type NamedResult struct {
	Name   string
	Result sim.Result
	// WhatIf lists how the run's experiment differs from the paper's (nb.Trace and
	// nb.Run fill it from reproduce.CaseChanges); the charts name it.
	WhatIf summary.WhatIf
	// ModelName is the run's model by its catalogue name (nb.Trace and nb.Run fill it):
	// a title names the model once when Name already does.
	ModelName string
}

// RouteFigure draws the traced layer of each run with RouteTimeline, one chart per run,
// and tabulates them side by side: the layer's duration, the expert operator's, and the
// bytes each route carried within the layer. It is the paper's Fig. 6(b) drawn from the
// engine: the same layer on DASH (Direct and Relay drained concurrently) and on the
// single-path baselines.
func RouteFigure(id string, runs []NamedResult) (Figure, error) {
	if len(runs) == 0 {
		return Figure{}, errors.New("charts: RouteFigure: no runs")
	}
	fig := Figure{ID: id, Title: "Fig. 6 from the simulation: one layer's routes", Caption: WhatIfCaption("", namedWhatIf(runs))}
	// One time scale for all runs, so that the layers compare by length.
	lo, hi := 0.0, 0.0
	for _, r := range runs {
		if r.Result.Timeline == nil || len(r.Result.Timeline.Ops) == 0 {
			return Figure{}, fmt.Errorf("charts: RouteFigure: %s has no traced layer", r.Name)
		}
		l, h := timelineRange(r.Result.Timeline)
		lo, hi = math.Min(lo, l), math.Max(hi, h)
	}
	step := niceCeil(hi / 8)
	lo, hi = step/4*math.Floor(lo/(step/4)), step*math.Ceil(hi/step)
	var rows [][]string
	for i, r := range runs {
		tl := r.Result.Timeline
		title := fmt.Sprintf("%s, %s, layer %d", ShortModelName(r.Result.Model), passName(tl.Pass), tl.Layer)
		if namesModel(r) { // "DeepSeek-V2, conventional": the model once
			title = fmt.Sprintf("%s, layer %d", passName(tl.Pass), tl.Layer)
		}
		ch, err := routeTimeline(tl, Common{ID: fmt.Sprintf("%s_%d", SanitizeID(id), i),
			Title: r.Name + ": " + title,
			Subtitle: WhatIfSubtitle(fmt.Sprintf("B = %d, %s-token prompt; bars: chunks on each link, colored by route; bottom lane: GPU operators",
				r.Result.Batch, summary.LengthLabel(r.Result.Prompt)), r.WhatIf)}, lo, hi)
		if err != nil {
			return Figure{}, fmt.Errorf("%s: %w", r.Name, err)
		}
		fig.Charts = append(fig.Charts, ch)
		first, last := tl.Ops[0].Start, tl.Ops[0].End
		var experts unit.Duration
		for _, o := range tl.Ops {
			first, last = min(first, o.Start), max(last, o.End)
			if o.Class == sim.ClassExperts {
				experts += o.End - o.Start
			}
		}
		bytes := map[sim.Route]unit.Bytes{}
		for _, s := range tl.Spans {
			if s.Link == "GPU<-HBF" || s.Link == "GPU<-HBM" || s.Link == "GPU->HBF" || s.Link == "GPU->HBM" {
				bytes[s.Route] += s.Bytes
			}
		}
		mib := func(r sim.Route) string { return fmt.Sprintf("%.4g", bytes[r].MiB()) }
		rows = append(rows, []string{r.Name, fmt.Sprintf("%.4g", (last - first).Microseconds()), fmt.Sprintf("%.4g", experts.Microseconds()),
			mib(sim.RouteDirect), mib(sim.RouteRelay), mib(sim.RouteHBM)})
	}
	fig.Tables = []template.HTML{HTMLTable("The traced layer", []string{"System", "Layer (µs)", "Expert operator (µs)",
		"Direct (MiB)", "Relay (MiB)", "HBM (MiB)"}, rows)}
	return fig, nil
}

// namesModel reports whether a run's name already names its model (by its short or its
// catalogue name).
func namesModel(r NamedResult) bool {
	return strings.Contains(r.Name, ShortModelName(r.Result.Model)) || r.ModelName != "" && strings.Contains(r.Name, r.ModelName)
}

// passName says which pass of a run a traced layer belongs to (pass 0 is the prefill).
func passName(pass int) string {
	if pass == 0 {
		return "the prefill"
	}
	return fmt.Sprintf("decode step %d", pass)
}
