package clusters

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/internal/safeio"
	"github.com/dashlab/dashlab/reference"
	"gopkg.in/yaml.v3"
)

// File is a cluster experiment file: a catalogue cluster (or a cluster
// file), the model, the GPUs' memory system and the layout. Decoded
// strictly: an unknown key is an error that names it.
//
//	cluster: hgx-h200          # or cluster_file: my-cluster.yaml
//	nodes: 2                   # optional: the cluster with this many nodes
//	memory: dash               # optional: the GPUs' memory system instead of the cluster's
//	model: qwen3-235b-a22b
//	parallel: {tensor: 1, expert: 8, pipeline: 1, data: 1}   # a degree left out is 1
//	placement: {policy: popularity}
//	routing: {kind: zipf, zipf_s: 1.0, seed: 1}
//	dispatch: {dedup: true, dtype: fp8}   # optional: DeepEP-style dispatch
//	workload: {batch: 64, prompt: 1024, output: 128}
//	reading: paper             # optional: the HBF reading of t_R (paper or physical)
//	lookahead: true            # optional: early expert selection where the router allows
//	overrides:                 # optional: any knob by its path (dashlab knobs), nested or dotted:
//	  interconnect: {scale_up: {rate: 900 GB/s}}   # the cluster's hardware
//	  hbf.t_read: 5us                              # every GPU's memory system
//	  parallel.expert: 8                           # the layout (after its sections above)
//
// The typed sections apply first, then the overrides, in order (the cluster
// builder's With).
type File struct {
	Cluster     string                `yaml:"cluster,omitempty"`
	ClusterFile string                `yaml:"cluster_file,omitempty"`
	Nodes       int                   `yaml:"nodes,omitempty"`
	Memory      string                `yaml:"memory,omitempty"`
	Model       string                `yaml:"model"`
	Parallel    cluster.ParallelSpec  `yaml:"parallel"`
	Placement   cluster.PlacementSpec `yaml:"placement,omitempty"`
	Routing     cluster.RoutingSpec   `yaml:"routing,omitempty"`
	Dispatch    cluster.DispatchSpec  `yaml:"dispatch,omitempty"`
	Workload    *dash.WorkloadSpec    `yaml:"workload,omitempty"`
	Reading     string                `yaml:"reading,omitempty"`
	Lookahead   bool                  `yaml:"lookahead,omitempty"`
	Overrides   yaml.Node             `yaml:"overrides,omitempty"`
}

// Settings are the file's overrides as knob settings, in the file's order.
func (f File) Settings() ([]dash.Setting, error) {
	if f.Overrides.Kind != 0 && f.Overrides.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("overrides (line %d): must be a mapping of knobs (dashlab knobs lists them)", f.Overrides.Line)
	}
	s, err := dash.OverrideSettings(&f.Overrides)
	if err != nil {
		return nil, fmt.Errorf("overrides: %w", err)
	}
	return s, nil
}

// DecodeFile reads a cluster experiment file; dir resolves cluster_file.
func DecodeFile(r io.Reader, source string) (File, error) {
	data, err := safeio.ReadAll(r, source, safeio.MaxInputBytes)
	if err != nil {
		return File{}, err
	}
	var f File
	if err := dash.DecodeStrictBytes(data, source, &f); err != nil {
		return File{}, err
	}
	if err := zeroDegrees(data); err != nil {
		return File{}, fmt.Errorf("%s: %w", source, err)
	}
	return f, nil
}

// zeroDegrees refuses a parallel degree written as 0: an omitted degree
// is 1, but a 0 the file states is a mistake that would become 1 unseen.
func zeroDegrees(data []byte) error {
	var given struct {
		Parallel struct {
			Tensor   *int `yaml:"tensor"`
			Expert   *int `yaml:"expert"`
			Pipeline *int `yaml:"pipeline"`
			Data     *int `yaml:"data"`
		} `yaml:"parallel"`
	}
	if err := yaml.Unmarshal(data, &given); err != nil {
		return nil // the strict decode has accepted the file; nothing to add
	}
	p := given.Parallel
	var errs []error
	for _, d := range []struct {
		name string
		v    *int
	}{{"tensor", p.Tensor}, {"expert", p.Expert}, {"pipeline", p.Pipeline}, {"data", p.Data}} {
		if d.v != nil && *d.v == 0 {
			errs = append(errs, ZeroDegreeError("parallel."+d.name, "leave it out for 1"))
		}
	}
	return errors.Join(errs...)
}

// ZeroDegreeError is the range error of a parallel degree given as 0
// (field its knob path, hint how to get the default of 1).
func ZeroDegreeError(field, hint string) *dash.RangeError {
	return &dash.RangeError{Field: field, Value: "0", Min: "1", Max: fmt.Sprint(cluster.MaxDegree), Hint: hint}
}

// LoadFile reads a cluster experiment file from disk.
func LoadFile(path string) (File, error) {
	data, err := safeio.ReadFile(path)
	if err != nil {
		return File{}, err
	}
	f, err := DecodeFile(bytes.NewReader(data), path)
	if err != nil {
		return File{}, err
	}
	if f.ClusterFile != "" && !filepath.IsAbs(f.ClusterFile) {
		f.ClusterFile = filepath.Join(filepath.Dir(path), f.ClusterFile)
	}
	return f, nil
}

// WithSettings is the file with settings added at the end of its
// overrides (the CLI's --set).
func (f File) WithSettings(settings ...dash.Setting) File {
	if len(settings) == 0 {
		return f
	}
	o := f.Overrides
	if o.Kind == 0 {
		o = yaml.Node{Kind: yaml.MappingNode}
	}
	o.Content = slices.Clone(o.Content)
	for _, s := range settings {
		var style yaml.Style
		if k, err := dash.LookupKnob(s.Path); err == nil && k.Unit() == "name" {
			style = yaml.DoubleQuotedStyle // a name stays text ("true", "1")
		}
		o.Content = append(o.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: s.Path},
			&yaml.Node{Kind: yaml.ScalarNode, Value: s.Value, Style: style})
	}
	f.Overrides = o
	return f
}

// WhatIfs lists how an experiment built from the file differs from the
// catalogue: its cluster's knobs against the catalogue entry (nodes,
// ports) and its GPUs' memory system against the catalogue system, as
// what-if labels ("scale-up 450 -> 900 GB/s", "t_R 3 -> 5 µs").
func WhatIfs(f File, e cluster.Experiment) []dash.Change {
	var out []dash.Change
	if ref, err := Spec(f.Cluster); err == nil && f.ClusterFile == "" {
		out = append(out, cluster.Changes(ref, e.Spec())...)
	}
	if st := e.Stages(); len(st) > 0 {
		if ref, err := reference.System(e.MemoryID()); err == nil {
			sys := st[0].GPU.System()
			ref.HBF.ReadWavesInFlight = sys.HBF.ReadWavesInFlight // a reading is not a what-if
			out = append(out, dash.DiffSystems(ref, sys)...)
		}
	}
	return out
}

// Builder turns the file into a cluster experiment builder.
func (f File) Builder() cluster.Builder {
	b := cluster.NewExperiment().Catalogue(reference.Catalogue).ModelID(f.Model)
	var s cluster.Spec
	var err error
	switch {
	case f.Cluster != "" && f.ClusterFile != "":
		return b.Fail(errors.New("cluster and cluster_file: give one"))
	case f.ClusterFile != "":
		s, err = Load(f.ClusterFile)
	case f.Cluster != "":
		s, err = Spec(f.Cluster)
	default:
		return b.Fail(errors.New("cluster: not set (a catalogue id, or cluster_file)"))
	}
	if err != nil {
		return b.Fail(err)
	}
	if f.Nodes < 0 || f.Nodes > cluster.MaxNodes {
		return b.Fail(fmt.Errorf("nodes = %d: must be between 1 and %d (0: the cluster's)", f.Nodes, cluster.MaxNodes))
	}
	if f.Nodes > 0 {
		s = s.WithNodes(f.Nodes)
	}
	b = b.Cluster(s).Placement(f.Placement).Routing(f.Routing).Dispatch(f.Dispatch)
	if f.Memory != "" {
		b = b.Memory(f.Memory)
	}
	p := f.Parallel
	for _, d := range []*int{&p.Tensor, &p.Expert, &p.Pipeline, &p.Data} {
		if *d == 0 { // an omitted degree is 1
			*d = 1
		}
	}
	b = b.Parallel(p)
	if f.Workload != nil {
		b = b.Workload(*f.Workload)
	}
	if f.Reading != "" {
		r, err := dash.ParseReading(f.Reading)
		if err != nil {
			return b.Fail(fmt.Errorf("reading: %w", err))
		}
		b = b.PerGPU(func(g dash.ExperimentBuilder) dash.ExperimentBuilder { return g.Reading(r) })
	}
	if f.Lookahead {
		b = b.PerGPU(func(g dash.ExperimentBuilder) dash.ExperimentBuilder { return g.Lookahead(true) })
	}
	set, err := f.Settings()
	if err != nil {
		return b.Fail(err)
	}
	return b.With(set...)
}
