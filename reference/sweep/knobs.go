package sweep

import (
	"fmt"

	"github.com/dashlab/dashlab/dash"
	"github.com/dashlab/dashlab/dash/unit"
)

// Knobs are the derived memory-system knobs of the experiment builder,
// swept under knobs.* (and set for every point under the spec's knobs
// section). Each changes the fields it implies, exactly as the builder's
// method of the same name, after the overrides; a zero value leaves the
// system alone.
type Knobs struct {
	// PageSize is the HBF page size with the transfer regions scaled to one
	// page wave, as in the paper's page-size study
	// ([dash.ExperimentBuilder.PageSize]).
	PageSize unit.Bytes `yaml:"page_size"`
	// LinkBandwidth is the usable per-direction rate of every link, the lane
	// rate scaled with it ([dash.ExperimentBuilder.LinkBandwidth]).
	LinkBandwidth unit.BytesPerSecond `yaml:"link_bandwidth"`
	// Reading is the reading of t_R, "paper" or "physical"
	// ([dash.ExperimentBuilder.Reading]).
	Reading string `yaml:"reading"`
}

// knobsSection is the spec key and path prefix of the knobs.
const knobsSection = "knobs"

// validate checks the knobs' own values.
func (k Knobs) validate() error {
	if k.PageSize < 0 {
		return fmt.Errorf("knobs.page_size = %v: must not be negative", k.PageSize)
	}
	if k.LinkBandwidth < 0 {
		return fmt.Errorf("knobs.link_bandwidth = %v: must not be negative", k.LinkBandwidth)
	}
	if k.Reading != "" {
		if _, err := dash.ParseReading(k.Reading); err != nil {
			return fmt.Errorf("knobs.reading: %w", err)
		}
	}
	return nil
}

// apply returns the system with the knobs applied by the experiment
// builder's own methods.
func (k Knobs) apply(s dash.SystemSpec) dash.SystemSpec {
	if k == (Knobs{}) {
		return s
	}
	b := dash.NewExperiment().System(s)
	if k.PageSize > 0 {
		b = b.PageSize(k.PageSize)
	}
	if k.LinkBandwidth > 0 {
		b = b.LinkBandwidth(k.LinkBandwidth)
	}
	if r, err := dash.ParseReading(k.Reading); err == nil && k.Reading != "" {
		b = b.Reading(r)
	}
	if out, err := b.ResolvedSystem(); err == nil {
		return out
	}
	return s
}
