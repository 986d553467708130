// Package clusters is the catalogue of shipped clusters (one YAML file per
// entry in this directory, with its sources), decoded into cluster.Spec,
// and the builder of cluster experiments on them. It is apart from package
// reference because package cluster imports the engine, whose tests import
// reference.
package clusters

import (
	"bytes"
	"embed"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/cluster"
	"github.com/dashlab/dashlab/internal/safeio"
	"github.com/dashlab/dashlab/reference"
)

//go:embed *.yaml
var clusterFiles embed.FS

// clusterCatalogue decodes every file of reference/clusters once, on first use.
var clusterCatalogue = sync.OnceValues(func() ([]cluster.Spec, error) {
	entries, err := clusterFiles.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var out []cluster.Spec
	for _, e := range entries {
		name := path.Join("reference/clusters", e.Name())
		file := e.Name()
		data, err := clusterFiles.ReadFile(file)
		if err != nil {
			return nil, err
		}
		s, err := cluster.DecodeSpec(bytes.NewReader(data), name)
		if err != nil {
			return nil, err
		}
		if want := strings.TrimSuffix(e.Name(), ".yaml"); s.ID != want {
			return nil, fmt.Errorf("%s: id %q does not match the file name", name, s.ID)
		}
		out = append(out, s)
	}
	return out, nil
})

// All returns the cluster catalogue, ordered by id.
func All() ([]cluster.Spec, error) { return clusterCatalogue() }

// IDs lists the catalogue's cluster ids.
func IDs() []string {
	specs, _ := clusterCatalogue()
	ids := make([]string, len(specs))
	for i, s := range specs {
		ids[i] = s.ID
	}
	return ids
}

// Spec returns the catalogue cluster with the given id.
func Spec(id string) (cluster.Spec, error) {
	specs, err := clusterCatalogue()
	if err != nil {
		return cluster.Spec{}, fmt.Errorf("cluster catalogue: %w", err)
	}
	for _, s := range specs {
		if s.ID == id {
			return s, nil
		}
	}
	return cluster.Spec{}, &reference.UnknownError{Kind: "cluster", ID: id, Known: IDs()}
}

// MustSpec is Spec for notebooks and examples: it panics on error.
func MustSpec(id string) cluster.Spec {
	s, err := Spec(id)
	if err != nil {
		panic(err)
	}
	return s
}

// Load reads a cluster spec file (the catalogue's form).
func Load(file string) (cluster.Spec, error) {
	data, err := safeio.ReadFile(file)
	if err != nil {
		return cluster.Spec{}, err
	}
	return cluster.DecodeSpec(bytes.NewReader(data), file)
}

// Experiment starts a cluster experiment on a catalogue cluster with a
// catalogue model (reference.Catalogue resolves the model, memory systems
// and GPUs).
func Experiment(clusterID, modelID string) cluster.Builder {
	b := cluster.NewExperiment().Catalogue(reference.Catalogue).ModelID(modelID)
	s, err := Spec(clusterID)
	if err != nil {
		return b.Fail(err)
	}
	return b.Cluster(s)
}

// YAML returns a catalogue cluster's YAML file (to edit and decode as a
// what-if).
func YAML(id string) ([]byte, error) {
	data, err := clusterFiles.ReadFile(id + ".yaml")
	if err != nil {
		return nil, &reference.UnknownError{Kind: "cluster", ID: id, Known: IDs()}
	}
	return data, nil
}

// PaperCluster is the cluster whose values are the reference column of the
// cluster's knobs (dashlab knobs, docs/knobs.md, nb.Help): eight of the
// paper's H100 PCIe GPUs in one server.
const PaperCluster = "h100-pcie-8"

// PaperKnobs is reference.PaperKnobs with the cluster's knobs beside: the
// PaperCluster's hardware and the default layout (cluster.DefaultLayout:
// one GPU, contiguous placement, balanced routing).
func PaperKnobs() dash.KnobTarget {
	t := reference.PaperKnobs()
	s := MustSpec(PaperCluster)
	l := cluster.DefaultLayout()
	t.Parts = []any{&s, &l}
	return t
}
