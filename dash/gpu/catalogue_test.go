package gpu

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// The GPU catalogue is data (reference/gpus); these helpers read it for this package's
// own tests, which cannot import package reference.

func catalogueSpec(id string) Spec {
	data, err := os.ReadFile(filepath.Join("..", "..", "reference", "gpus", id+".yaml"))
	if err != nil {
		panic(err)
	}
	var s Spec
	if err := yaml.Unmarshal(data, &s); err != nil {
		panic(err)
	}
	return s
}

// H200SXM is the catalogue's measured GPU.
func H200SXM() Spec { return catalogueSpec("h200-sxm") }

// H100PCIe is the catalogue's derived GPU (the paper's).
func H100PCIe() Spec { return catalogueSpec("h100-pcie") }

// Specs is the test catalogue, ordered by id.
func Specs() []Spec { return []Spec{H100PCIe(), H200SXM()} }

// SpecByID looks a test catalogue GPU up.
func SpecByID(id string) (Spec, error) {
	var ids []string
	for _, s := range Specs() {
		if s.ID == id {
			return s, nil
		}
		ids = append(ids, s.ID)
	}
	return Spec{}, fmt.Errorf("unknown GPU %q (known: %s)", id, strings.Join(ids, ", "))
}

// withCatalogue gives a loaded profile the test catalogue.
func withCatalogue(p *Profile, err error) (*Profile, error) {
	if p != nil {
		p.Catalogue = Specs()
	}
	return p, err
}
