package dash

import (
	"os"
	"path/filepath"

	"gopkg.in/yaml.v3"
)

// PaperSystem reads a named system from reference/systems for this package's own
// tests (which cannot import package reference): the file decoded over its base.
// Package reference's System is the real catalogue, with strict decoding and pair
// families.
func PaperSystem(id string) (SystemSpec, error) {
	data, err := os.ReadFile(filepath.Join("..", "reference", "systems", id+".yaml"))
	if err != nil {
		return SystemSpec{}, err
	}
	var head struct {
		Base string `yaml:"base"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return SystemSpec{}, err
	}
	var s SystemSpec
	if head.Base != "" {
		if s, err = PaperSystem(head.Base); err != nil {
			return SystemSpec{}, err
		}
	}
	err = yaml.Unmarshal(data, &s)
	return s, err
}
