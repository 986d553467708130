package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/internal/safeio"
	"github.com/dashlab/dashlab/reference"
	"gopkg.in/yaml.v3"
)

// maxErrors bounds the errors one Compile reports.
const maxErrors = 10

// Plan is a compiled sweep: validated axes and every point validated. It is
// immutable and safe for concurrent use; points are materialised on demand,
// so a plan's memory does not grow with its values' product.
type Plan struct {
	name    string
	kind    Kind
	axes    []axis
	dims    []dim
	base    dash.ExperimentFile
	baseDir string
	params  reflect.Value // the kind's section (invalid when none)
	// baseSettings are the base's overrides a KnobKind takes.
	baseSettings []dash.Setting
	section      string
	ptype        reflect.Type

	systems map[string]dash.SystemSpec // system id -> with the base's overrides
	models  map[string]dash.ModelSpec  // modelKey -> spec
	timings map[[2]string]dash.Timing  // (profile, gpu) -> timing

	fingerprint [sha256.Size]byte
	id          string // the sweep's identity (see ID)
	progress    func(done, total int)
	raw         int   // the product's size
	kept        []int // raw indices kept by the where conditions (nil: all)
}

// axis is one compiled axis.
type axis struct {
	path   string
	field  field
	values []reflect.Value
	labels []string
	keep   []bool // per value: meets every where condition on this axis
}

// dim is one dimension of the product: one axis or a zip group.
type dim struct {
	axes []int
	n    int
}

// Compile validates a spec and every point of it. All problems found are
// reported at once (up to ten), each naming the axis and the value, or the
// point.
func Compile(s Spec) (*Plan, error) { return CompileProgress(s, nil) }

// CompileProgress is Compile reporting its validation of the points, which
// takes about 2.6 µs of CPU per point (seconds for the largest sweeps):
// progress, when set, is called now and then with the points validated
// and their number.
func CompileProgress(s Spec, progress func(done, total int)) (*Plan, error) {
	src := s.source()
	k, err := kindByName(s.Kind)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	p := &Plan{name: s.Name, kind: k, progress: progress}
	p.section, p.ptype = k.Section()
	ptype := p.ptype
	for key, n := range s.Params {
		if key != p.section || p.section == "" {
			if key == "knobs" {
				return nil, fmt.Errorf("%s: line %d: the knobs section is gone: set the knobs of every point under base.overrides by their paths (overrides: {hbf: {page_size: 8 KiB, reading: paper}, link: {usable: 0.8 TB/s}})",
					src, n.Line)
			}
			return nil, fmt.Errorf("%s: line %d: unknown field %s (known: name, kind, base, base_file, axes, zip, where%s)",
				src, n.Line, safeio.Quote(key), sectionHint(p.section))
		}
	}
	if ptype != nil {
		p.params = reflect.New(ptype).Elem()
		if n, ok := s.Params[p.section]; ok {
			v, err := decodeValue(&n, ptype)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", src, p.section, err)
			}
			p.params = v
		}
	}
	if p.section == "knobs" || p.section == "overrides" {
		return nil, fmt.Errorf("%s: kind %s: its section may not be called %q", src, k.Name(), p.section)
	}
	var take func(dash.Knob) bool
	if kk, ok := k.(KnobKind); ok { // the base's overrides the kind takes go to every point's Settings
		take = kk.TakesKnob
	}
	if p.base, p.baseDir, p.baseSettings, err = s.baseFile(take); err != nil {
		return nil, err
	}
	if err := p.compileAxes(s); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	// the where conditions first: the values they drop are not part of the
	// sweep, so they are neither resolved nor validated
	if err := p.compileWhere(s.Where); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if err := p.resolve(); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if p.fingerprint, err = p.fingerprintOf(); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	if err := p.validatePoints(); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	p.id = p.idOf()
	return p, nil
}

// idOf hashes what makes the sweep: the fingerprint (kind, base, knobs,
// section) and every axis, in order, with its values and whether the where
// conditions keep each, grouped as the dimensions zip them.
func (p *Plan) idOf() string {
	h := sha256.New()
	h.Write(p.fingerprint[:])
	for _, d := range p.dims {
		h.Write([]byte("\x01"))
		for _, ai := range d.axes {
			a := p.axes[ai]
			fmt.Fprintf(h, "\x02%s", a.path)
			for vi, l := range a.labels {
				fmt.Fprintf(h, "\x00%s\x00%t", keyLabel(a.field.typ, l), a.keep[vi])
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// ID identifies the sweep: a hash of its base, kind, knobs and section and
// of every point (the axes, their values and the where conditions' choice).
// Every row carries it (the sweep column), so that a file or a shard of
// another sweep is refused on resume and merge even when its point keys
// cannot meet.
func (p *Plan) ID() string { return p.id }

func sectionHint(section string) string {
	if section == "" {
		return ""
	}
	return ", " + section
}

func (p *Plan) compileAxes(s Spec) error {
	if len(s.Axes) == 0 {
		return errors.New("axes: none given (a sweep needs at least one axis)")
	}
	if len(s.Axes) > maxAxes {
		return fmt.Errorf("axes: %d given; at most %d", len(s.Axes), maxAxes)
	}
	byPath := map[string]int{}
	var errs []error
	total := 0
	for i, a := range s.Axes {
		name := fmt.Sprintf("axis %d (%s)", i+1, safeio.Clip(a.Path))
		if a.Path == "" {
			errs = append(errs, fmt.Errorf("axis %d: path: missing", i+1))
			continue
		}
		if len(a.Path) > maxLabel {
			errs = append(errs, fmt.Errorf("%s: the path is longer than %d bytes", name, maxLabel))
			continue
		}
		if len(a.Values) > maxAxisValues {
			errs = append(errs, fmt.Errorf("%s: %d values; at most %d", name, len(a.Values), maxAxisValues))
			continue
		}
		if _, dup := byPath[a.Path]; dup {
			errs = append(errs, fmt.Errorf("%s: the path is swept twice", name))
			continue
		}
		f, err := p.resolvePath(a.Path)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", name, err))
			continue
		}
		ax := axis{path: a.Path, field: f}
		switch {
		case a.Range != nil && len(a.Values) > 0:
			err = errors.New("give values or range, not both")
		case a.Range != nil:
			ax.values, err = expandRange(a.Range, f.typ)
		case len(a.Values) == 0:
			err = errors.New("empty: give values or a range")
		default:
			for _, n := range a.Values {
				v, verr := decodeValue(&n, f.typ)
				if verr != nil {
					err = fmt.Errorf("value %s (line %d): %v", safeio.Quote(n.Value), n.Line, verr)
					break
				}
				ax.values = append(ax.values, v)
			}
		}
		if err == nil {
			err = ax.label()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", name, err))
			continue
		}
		if total += len(ax.values); total > 2*maxPoints {
			return fmt.Errorf("%s: the axes list more than %d values in all", name, 2*maxPoints)
		}
		byPath[a.Path] = len(p.axes)
		p.axes = append(p.axes, ax)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return p.compileZip(s.Zip, byPath)
}

// label fills the axis's labels.
func (a *axis) label() error {
	for _, v := range a.values {
		l, err := label(v)
		if err != nil {
			return fmt.Errorf("value %s: %v", safeio.Clip(fmt.Sprint(v.Interface())), err)
		}
		if strings.ContainsAny(l, "\n\r") {
			return fmt.Errorf("value %s: a value may not span lines", safeio.Quote(l))
		}
		if len(l) > maxLabel {
			return fmt.Errorf("value %s: longer than the %d-byte limit of an axis value", safeio.Quote(l), maxLabel)
		}
		a.labels = append(a.labels, l)
	}
	a.keep = make([]bool, len(a.values))
	for i := range a.keep {
		a.keep[i] = true
	}
	return nil
}

func (p *Plan) compileZip(groups [][]string, byPath map[string]int) error {
	inGroup := map[int]int{} // axis -> group
	for g, paths := range groups {
		if len(paths) < 2 {
			return fmt.Errorf("zip group %d: %v: needs at least two axes", g+1, paths)
		}
		for _, path := range paths {
			i, ok := byPath[path]
			if !ok {
				return fmt.Errorf("zip group %d: %s is not an axis", g+1, safeio.Quote(path))
			}
			if prev, dup := inGroup[i]; dup {
				return fmt.Errorf("zip group %d: axis %q is already in zip group %d", g+1, path, prev+1)
			}
			inGroup[i] = g
			if n0 := len(p.axes[byPath[paths[0]]].values); len(p.axes[i].values) != n0 {
				return fmt.Errorf("zip group %d: axis %q has %d values, axis %q has %d: zipped axes need as many",
					g+1, path, len(p.axes[i].values), paths[0], n0)
			}
		}
	}
	done := map[int]bool{}
	p.raw = 1
	for i := range p.axes {
		if done[i] {
			continue
		}
		d := dim{axes: []int{i}, n: len(p.axes[i].values)}
		if g, ok := inGroup[i]; ok {
			d.axes = nil
			for _, path := range groups[g] {
				d.axes = append(d.axes, byPath[path])
				done[byPath[path]] = true
			}
		}
		if err := p.distinct(d); err != nil {
			return err
		}
		if p.raw > maxPoints/d.n {
			return fmt.Errorf("the axes give more than %d points", maxPoints)
		}
		p.raw *= d.n
		p.dims = append(p.dims, d)
	}
	return nil
}

// distinct refuses a dimension whose values (tuples, for a zip group)
// repeat: the points would be the same.
func (p *Plan) distinct(d dim) error {
	seen := map[string]bool{}
	for vi := range d.n {
		var parts []string
		for _, ai := range d.axes {
			parts = append(parts, p.axes[ai].labels[vi])
		}
		k := strings.Join(parts, "\x00")
		if !seen[k] {
			seen[k] = true
			continue
		}
		if len(d.axes) == 1 {
			return fmt.Errorf("axis %s: value %s appears twice", p.axes[d.axes[0]].path, safeio.Quote(parts[0]))
		}
		var names []string
		for _, ai := range d.axes {
			names = append(names, p.axes[ai].path)
		}
		return fmt.Errorf("zip group of %s: values (%s) appear twice", strings.Join(names, ", "), strings.Join(parts, ", "))
	}
	return nil
}

// modelKey names a model by catalogue id or file.
func modelKey(f dash.ExperimentFile) string {
	if f.ModelFile != "" {
		return "file:" + f.ModelFile
	}
	return "id:" + f.Model
}

// resolve looks up every system, model and GPU timing the points use, once.
func (p *Plan) resolve() error {
	p.systems = map[string]dash.SystemSpec{}
	p.models = map[string]dash.ModelSpec{}
	p.timings = map[[2]string]dash.Timing{}
	var errs []error
	try := func(where string, f dash.ExperimentFile) {
		if err := p.resolveFile(f); err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", where, err))
		}
	}
	try("base", p.base)
	for _, a := range p.axes {
		if a.field.target != inFile {
			continue
		}
		for i, v := range a.values {
			if !a.keep[i] {
				continue
			}
			f := p.base
			setFile(&f, a, v)
			try(fmt.Sprintf("axis %s: value %s", a.path, safeio.Quote(a.labels[i])), f)
		}
	}
	return errors.Join(errs...)
}

// setFile sets a file field; a model id replaces a model file and back.
func setFile(f *dash.ExperimentFile, a axis, v reflect.Value) {
	reflect.ValueOf(f).Elem().FieldByIndex(a.field.index).Set(v)
	switch a.path {
	case "model":
		f.ModelFile = ""
	case "model_file":
		f.Model = ""
	}
}

func (p *Plan) resolveFile(f dash.ExperimentFile) error {
	if _, ok := p.systems[f.System]; !ok {
		s, err := f.SystemSpec("overrides", reference.System)
		if err != nil {
			return err
		}
		p.systems[f.System] = s
	}
	if key := modelKey(f); !hasKey(p.models, key) {
		m, err := p.loadModel(f)
		if err != nil {
			return err
		}
		if err := m.Validate(); err != nil {
			return err
		}
		p.models[key] = m
	}
	tk := [2]string{f.Profile, f.GPU}
	if _, ok := p.timings[tk]; !ok {
		t, err := reference.TimingFrom(f.Profile, f.GPU)
		if err != nil {
			return err
		}
		p.timings[tk] = t
	}
	return nil
}

func hasKey[V any](m map[string]V, k string) bool { _, ok := m[k]; return ok }

func (p *Plan) loadModel(f dash.ExperimentFile) (dash.ModelSpec, error) {
	switch {
	case f.Model != "" && f.ModelFile != "":
		return dash.ModelSpec{}, fmt.Errorf("model = %q and model_file = %q: set only one", f.Model, f.ModelFile)
	case f.ModelFile == "":
		return reference.Model(f.Model)
	}
	path := f.ModelFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(p.baseDir, path)
	}
	data, err := safeio.ReadFile(path)
	if err != nil {
		return dash.ModelSpec{}, fmt.Errorf("model_file: %w", err)
	}
	var m dash.ModelSpec
	err = dash.DecodeStrictBytes(data, path, &m)
	return m, err
}

// fingerprintOf hashes what every point shares: the kind, the base
// experiment and the kind's base section.
func (p *Plan) fingerprintOf() ([sha256.Size]byte, error) {
	base := p.base
	base.Overrides = yaml.Node{}
	sys, err := p.base.SystemSpec("overrides", reference.System)
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	var params any
	if p.params.IsValid() {
		params = p.params.Interface()
	}
	data, err := json.Marshal(struct {
		Kind     string
		Base     dash.ExperimentFile
		System   dash.SystemSpec
		Knobs    legacyKnobs
		Params   any
		Settings []dash.Setting `json:",omitempty"` // a KnobKind's (none: the keys of sweeps before them)
	}{p.kind.Name(), base, sys, legacyKnobs{}, params, p.baseSettings})
	if err != nil {
		return [sha256.Size]byte{}, err
	}
	return sha256.Sum256(data), nil
}

// Name is the sweep's name.
func (p *Plan) Name() string { return p.name }

// Kind is the point kind's name.
func (p *Plan) Kind() string { return p.kind.Name() }

// Axes are the axes' paths, in order.
func (p *Plan) Axes() []string {
	out := make([]string, len(p.axes))
	for i, a := range p.axes {
		out[i] = a.path
	}
	return out
}

// Metrics are the kind's metric columns.
func (p *Plan) Metrics() []string { return p.kind.Metrics() }

// Len is the number of points.
func (p *Plan) Len() int {
	if p.kept != nil {
		return len(p.kept)
	}
	return p.raw
}

// Point materialises point i (0 <= i < Len).
func (p *Plan) Point(i int) (Point, error) {
	if i < 0 || i >= p.Len() {
		return Point{}, fmt.Errorf("point %d: out of range (the sweep has %d)", i, p.Len())
	}
	raw := i
	if p.kept != nil {
		raw = p.kept[i]
	}
	pt := p.materialize(p.digits(raw))
	pt.Index = i
	return pt, nil
}

// digits splits a raw index into one value index per dimension (the first
// dimension varies slowest).
func (p *Plan) digits(raw int) []int {
	d := make([]int, len(p.dims))
	for i := len(p.dims) - 1; i >= 0; i-- {
		d[i] = raw % p.dims[i].n
		raw /= p.dims[i].n
	}
	return d
}

// materialize applies one value index per dimension to the base.
func (p *Plan) materialize(digits []int) Point {
	pt := Point{File: p.base, Labels: make([]string, len(p.axes))}
	var params reflect.Value
	if p.params.IsValid() {
		params = reflect.New(p.params.Type())
		params.Elem().Set(p.params)
		pt.Params = params.Interface()
	}
	var sysSets, taken []dash.Setting
	for d, dm := range p.dims {
		vi := digits[d]
		for _, ai := range dm.axes {
			a := p.axes[ai]
			pt.Labels[ai] = a.labels[vi]
			v := a.values[vi]
			switch a.field.target {
			case inFile:
				setFile(&pt.File, a, v)
			case inSystem:
				sysSets = append(sysSets, dash.Setting{Path: a.field.knob.Path, Value: a.labels[vi]})
			case inKnob:
				taken = append(taken, dash.Setting{Path: a.field.knob.Path, Value: a.labels[vi]})
			case inParams:
				params.Elem().FieldByIndex(a.field.index).Set(v)
			}
		}
	}
	if wk, ok := p.kind.(WorkloadKind); ok {
		pt.File.Workload = wk.Workload(pt)
	}
	if f := pt.File.Workload.Routing.File; f != "" && !filepath.IsAbs(f) { // a routing trace beside the sweep file
		pt.File.Workload.Routing.File = filepath.Join(p.baseDir, f)
	}
	pt.System = p.systems[pt.File.System]
	if err := dash.ApplySettings(dash.KnobTarget{System: &pt.System}, sysSets...); err != nil {
		pt.err = err // the labels read back exactly (see label); kept for validate
	}
	if p.baseSettings != nil || taken != nil {
		pt.Settings = append(slices.Clip(p.baseSettings), taken...)
	}
	pt.Model = p.models[modelKey(pt.File)]
	pt.Timing = p.timings[[2]string{pt.File.Profile, pt.File.GPU}]
	pt.Key = p.keyOf(pt.Labels)
	return pt
}

// keyOf hashes the fingerprint and the axis values, each in its key form
// (keyLabel).
func (p *Plan) keyOf(labels []string) string {
	h := sha256.New()
	h.Write(p.fingerprint[:])
	for i, a := range p.axes {
		fmt.Fprintf(h, "\x00%s=%s", a.path, keyLabel(a.field.typ, labels[i]))
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// keyLabel is the text a point key hashes for a label: the label with
// microseconds spelled "us", as labels were written before they said "µs".
// Keys thus stay what they were, and files written before (resumed with
// --out, or merged as shards) still match their sweep. A string-valued
// axis hashes its value as it is.
func keyLabel(t reflect.Type, label string) string {
	if t != nil && t.Kind() == reflect.String {
		return label
	}
	return strings.ReplaceAll(label, "µs", "us")
}

// validate checks a materialised point.
func (p *Plan) validate(pt Point) error {
	errs := []error{pt.err, pt.System.Validate(), pt.File.Workload.Validate(), pt.File.Execution.Validate()}
	w := pt.File.Workload
	if pt.Model.MaxContext > 0 && w.Prompt+w.Output > pt.Model.MaxContext {
		errs = append(errs, fmt.Errorf("workload: prompt + output = %d tokens exceeds model %s max_context %d",
			w.Prompt+w.Output, pt.Model.ID, pt.Model.MaxContext))
	}
	errs = append(errs, p.kind.Validate(pt))
	return errors.Join(errs...)
}

// describe names a point by its axis values.
func (p *Plan) describe(labels []string) string {
	parts := make([]string, len(p.axes))
	for i, a := range p.axes {
		parts[i] = a.path + "=" + labels[i]
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// validatePoints checks each dimension's values on the base first (errors
// name the axis and value), then every point the where conditions keep
// (errors name the point).
func (p *Plan) validatePoints() error {
	var errs []error
	add := func(err error) bool {
		errs = append(errs, err)
		return len(errs) >= maxErrors
	}
	// each dimension's kept values, on the other dimensions' first kept
	// values: a value the where conditions drop is not part of the sweep
	first := make([]int, len(p.dims))
	for d, dm := range p.dims {
		first[d] = -1
		for vi := range dm.n {
			if p.keepsValue(dm, vi) {
				first[d] = vi
				break
			}
		}
		if first[d] < 0 {
			return errors.New("where: no point meets every condition")
		}
	}
	for d, dm := range p.dims {
		for vi := range dm.n {
			if !p.keepsValue(dm, vi) {
				continue
			}
			digits := slices.Clone(first)
			digits[d] = vi
			if err := p.validate(p.materialize(digits)); err != nil {
				var names []string
				for _, ai := range dm.axes {
					names = append(names, fmt.Sprintf("%s value %s", p.axes[ai].path, safeio.Quote(p.axes[ai].labels[vi])))
				}
				if add(fmt.Errorf("axis %s: %v", strings.Join(names, ", "), oneLine(err))) {
					return errors.Join(errs...)
				}
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	filtered := p.filtered()
	var kept []int
	for raw := range p.raw {
		if p.progress != nil && raw%(1<<16) == 0 {
			p.progress(raw, p.raw)
		}
		digits := p.digits(raw)
		if filtered && !p.keeps(digits) {
			continue
		}
		if filtered {
			kept = append(kept, raw)
		}
		pt := p.materialize(digits)
		if err := p.validate(pt); err != nil {
			if add(fmt.Errorf("point %s: %v", p.describe(pt.Labels), oneLine(err))) {
				break
			}
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	if p.progress != nil {
		p.progress(p.raw, p.raw)
		p.progress = nil
	}
	if filtered {
		if len(kept) == 0 {
			return errors.New("where: no point meets every condition")
		}
		p.kept = kept
	}
	return nil
}

// oneLine joins a multi-line error into one line.
func oneLine(err error) string { return strings.ReplaceAll(err.Error(), "\n", "; ") }
