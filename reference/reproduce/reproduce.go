package reproduce

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/reference"
	"github.com/dashlab/dashlab/summary"
)

// Options selects what to reproduce.
type Options struct {
	// Only keeps the ids that start with this prefix ("" keeps all).
	Only string
	// Workers bounds the simulations run at once (0: GOMAXPROCS).
	Workers int
	// Groups, when set, runs only the named groups (GroupNames) and reports only the ids
	// they own (an id belongs to the group with its longest matching prefix); the
	// derived artifacts (cost sweep, endurance, energy) are skipped. Notebook 00 runs the
	// paper's core this way; the report runs every group.
	Groups []string
	// Figures also computes what only the report's figures draw, not any paper id: the
	// GPU timing model's held-out studies, the traced layers of the route figure and
	// Fig. 9's bound argument (Artifacts.GPU, Traces, Fig9Bounds, BoundNote).
	Figures bool
	// Progress, when set, is called before each group runs (done groups so far, of
	// total) and once at the end (done == total, group "").
	Progress func(group string, done, total int)
	// Readings, when set, are the readings of t_R the memory-system groups run
	// (nil: dash.Readings()); Knobs are settings applied first to every one of
	// their cases (the assumption table runs the groups so). Their rows are then
	// what-ifs of the paper's experiment, values to compare with the paper run's.
	Readings []dash.Reading
	Knobs    []dash.Setting
	// Assumptions, on a whole reproduction, also runs the assumption study
	// (AssumptionStudy: the memory-system groups again with the HBM array rate
	// and the TSV rate at half and twice their assumed values, into
	// Artifacts.Assumptions): four more runs of those groups.
	Assumptions bool
	// SimProgress, when set, is told how many of a group's simulations have finished
	// (done of total), by the groups whose runs are long (fig12 and fig9b-llama4-1m:
	// million-token decodes; serving: each phase of each reading's study counts
	// afresh; cluster: each comparison, "cluster <id>", counts its contenders
	// as each is sized, the two comparisons at once), from one goroutine at a time.
	SimProgress func(group string, done, total int)
}

// readings are the readings of t_R the groups run.
func (o Options) readings() []dash.Reading {
	if o.Readings != nil {
		return o.Readings
	}
	return dash.Readings()
}

// withKnobs applies o.Knobs first to every case (a case's own settings win).
func (o Options) withKnobs(cs []summary.Case) []summary.Case {
	if len(o.Knobs) == 0 {
		return cs
	}
	out := make([]summary.Case, len(cs))
	for i, c := range cs {
		c.Knobs = withKnobs(o.Knobs, c.Knobs)
		out[i] = c
	}
	return out
}

// simProgress is opts.SimProgress for group g (nil when unset).
func (o Options) simProgress(g string) func(done, total int) {
	if o.SimProgress == nil {
		return nil
	}
	return func(done, total int) { o.SimProgress(g, done, total) }
}

// GroupNames lists the groups of a reproduction, in the order they run.
func GroupNames() []string {
	var names []string
	for _, g := range groups {
		if !slices.Contains(names, g.name) {
			names = append(names, g.name)
		}
	}
	return names
}

// selected reports whether opts runs group g.
func (o Options) selected(g group) bool {
	return matches(o.Only, g) && (len(o.Groups) == 0 || slices.Contains(o.Groups, g.name))
}

// owner is the group that computes a paper id: the one with the longest matching prefix.
func owner(id string) string {
	best, name := -1, ""
	for _, g := range groups {
		for _, p := range g.prefixes {
			if strings.HasPrefix(id, p) && len(p) > best {
				best, name = len(p), g.name
			}
		}
	}
	return name
}

// Report is the outcome of a reproduction run.
type Report struct {
	// Rows has one row per paper id matching the prefix, in paper.yaml order.
	Rows []summary.Row
	// Artifacts holds the engine results behind the figures, by group name,
	// for charts and the HTML report.
	Artifacts Artifacts
	// Elapsed is the wall time per group.
	Elapsed map[string]time.Duration
}

// values are the simulated numbers of a group, with optional details.
type values struct {
	v      map[string]float64
	detail map[string]string
}

// Set records a simulated value.
func (v *values) Set(id string, x float64, detail string) {
	if v.v == nil {
		v.v, v.detail = map[string]float64{}, map[string]string{}
	}
	v.v[id] = x
	if detail != "" {
		v.detail[id] = detail
	}
}

// group computes the ids that start with one of its prefixes.
type group struct {
	name     string
	prefixes []string
	run      func(opts Options, art *Artifacts) (values, error)
}

var groups []group

func register(g group) { groups = append(groups, g) }

// derivations compute artifacts from other groups' artifacts (or for no
// paper id) once every group has run.
var derivations []func(opts Options, art *Artifacts) error

func derive(d func(opts Options, art *Artifacts) error) { derivations = append(derivations, d) }

func matches(prefix string, g group) bool {
	for _, p := range g.prefixes {
		if strings.HasPrefix(p, prefix) || strings.HasPrefix(prefix, p) {
			return true
		}
	}
	return false
}

// Run reproduces every id matching opts.Only (and owned by opts.Groups when set).
func Run(opts Options) (Report, error) {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	entries, err := reference.Paper()
	if err != nil {
		return Report{}, err
	}
	for _, name := range opts.Groups {
		if !slices.Contains(GroupNames(), name) {
			return Report{}, fmt.Errorf("reproduce: no group %q (groups: %s)", name, strings.Join(GroupNames(), ", "))
		}
	}
	rep := Report{Elapsed: map[string]time.Duration{}}
	all := values{}
	var errs []error
	var run []group
	for _, g := range groups {
		if opts.selected(g) {
			run = append(run, g)
		}
	}
	for i, g := range run {
		if opts.Progress != nil {
			opts.Progress(g.name, i, len(run))
		}
		start := time.Now()
		v, err := g.run(opts, &rep.Artifacts)
		rep.Elapsed[g.name] = time.Since(start)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", g.name, err))
			continue
		}
		for id, x := range v.v {
			all.Set(id, x, v.detail[id])
		}
	}
	if opts.Progress != nil {
		opts.Progress("", len(run), len(run))
	}
	if len(opts.Groups) == 0 {
		for _, d := range derivations {
			if err := d(opts, &rep.Artifacts); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.ID, opts.Only) || (len(opts.Groups) > 0 && !slices.Contains(opts.Groups, owner(e.ID))) {
			continue
		}
		r := entryRow(e)
		if x, ok := all.v[e.ID]; ok {
			setSimulated(&r, e, x)
			r.Detail = all.detail[e.ID]
		}
		// the same id under the other readings of t_R, reported beside it (not checked)
		var others []summary.Row
		for _, rd := range dash.Readings() {
			id := e.ID + ReadingSuffix(rd)
			x, ok := all.v[id]
			if rd == dash.ReadingPaper || !ok {
				continue
			}
			o := r
			setSimulated(&o, e, x)
			o.ID, o.Within, o.Pass, o.Reading, o.Detail = id, o.Pass, nil, rd.String(), all.detail[id]
			others = append(others, o)
		}
		for _, rd := range dash.Readings() {
			for _, vn := range Variants {
				id := e.ID + ReadingSuffix(rd) + "." + vn
				x, ok := all.v[id]
				if !ok {
					continue
				}
				o := r
				setSimulated(&o, e, x)
				o.ID, o.Within, o.Pass, o.Reading, o.Variant, o.Detail = id, o.Pass, nil, rd.String(), vn, all.detail[id]
				others = append(others, o)
			}
		}
		if len(others) > 0 {
			r.Reading = dash.ReadingPaper.String()
		}
		rep.Rows = append(append(rep.Rows, r), others...)
	}
	if opts.Assumptions && len(opts.Groups) == 0 && len(opts.Knobs) == 0 && opts.Readings == nil && opts.Only == "" {
		start := time.Now()
		if opts.Progress != nil {
			opts.Progress("assumptions", len(run), len(run)+1)
		}
		t, err := AssumptionStudy(opts, rep.Rows)
		if err != nil {
			errs = append(errs, err)
		}
		rep.Artifacts.Assumptions = t
		rep.Artifacts.figureTime("assumption table", time.Since(start))
	}
	if len(rep.Rows) == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("no paper id starts with %q", opts.Only))
	}
	// Values a group computes that paper.yaml lacks are a programming error.
	known := func(id string) bool { _, err := reference.PaperValue(id); return err == nil }
	var extra []string
	for id := range all.v {
		if base, _, _ := splitVariant(id); !known(base) {
			extra = append(extra, id)
		}
	}
	if len(extra) > 0 {
		sort.Strings(extra)
		errs = append(errs, fmt.Errorf("simulated ids missing from paper.yaml: %v", extra))
	}
	return rep, errors.Join(errs...)
}

// Summary counts simulated (checked), passing and not-yet-simulated rows; rows reported
// beside a checked one (Reported) are in none of them.
func (r Report) Summary() (simulated, passed, pending int) { return summary.Count(r.Rows) }

// Reported counts the rows reported beside a checked one and not checked themselves
// (the physical reading's values).
func (r Report) Reported() int { return summary.Reported(r.Rows) }
