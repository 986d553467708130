package dash

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// Reading is a reading of the paper's HBF read latency t_R. The paper
// contradicts itself on whether t_R also caps the NAND array's throughput
// (see [HBFSpec.ReadWavesInFlight] for the quotes); the two readings differ
// in that one parameter only, so that an experiment names which one it
// uses and nothing else moves between them. The knob hbf.reading sets it by
// name wherever knobs are set.
//
// The zero Reading, ReadingSystem, is no reading: the system keeps its own
// hbf.read_waves_in_flight (every shipped system states 1, the physical
// reading). Neither named reading is a zero value.
type Reading uint8

const (
	// ReadingSystem applies no reading: the system's own read pipeline
	// depth stands. It is the zero value.
	ReadingSystem Reading = iota
	// ReadingPhysical is the stated part: one page wave sensed per t_R per
	// stack (ReadWavesInFlight = 1). The paper's Fig. 12 text implies it;
	// it is the value of the paper's part (reference/systems/dash.yaml).
	ReadingPhysical
	// ReadingPaper treats t_R as a pure readiness latency: any number of
	// waves in flight, throughput bounded by the TSV, the SRAM slots and the
	// links only (ReadWavesInFlight = ReadWavesUnbounded). The paper's
	// Fig. 9 and Fig. 11 numbers are possible only under it.
	ReadingPaper
	// ReadingCustom is any other read-pipeline depth (for exploring parts;
	// not used by the reproduction).
	ReadingCustom
)

// Readings lists the two named readings, the paper's first.
func Readings() []Reading { return []Reading{ReadingPaper, ReadingPhysical} }

var readingNames = [...]string{ReadingSystem: "system", ReadingPhysical: "physical", ReadingPaper: "paper", ReadingCustom: "custom"}

// String is the reading's name: "paper", "physical", "custom", or "system"
// for the zero Reading.
func (r Reading) String() string {
	if int(r) < len(readingNames) {
		return readingNames[r]
	}
	return fmt.Sprintf("Reading(%d)", uint8(r))
}

// ReadWaves is the read-pipeline depth of a named reading
// ([HBFSpec.ReadWavesInFlight]); ok is false for the others.
func (r Reading) ReadWaves() (waves WaveDepth, ok bool) {
	switch r {
	case ReadingPaper:
		return ReadWavesUnbounded, true
	case ReadingPhysical:
		return 1, true
	}
	return 0, false
}

// ParseReading parses "paper" or "physical".
func ParseReading(s string) (Reading, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "paper":
		return ReadingPaper, nil
	case "physical":
		return ReadingPhysical, nil
	}
	return 0, fmt.Errorf("reading %q: want paper or physical", s)
}

// UnmarshalYAML reads "paper" or "physical".
func (r *Reading) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseReading(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	*r = v
	return nil
}

// MarshalYAML writes the reading's name.
func (r Reading) MarshalYAML() (any, error) { return r.String(), nil }

// Reading applies a named reading of t_R to the system's HBF part (sets
// HBFSpec.ReadWavesInFlight); it is per experiment, so experiments under
// both readings can run side by side. ReadingSystem changes nothing.
func (b ExperimentBuilder) Reading(r Reading) ExperimentBuilder {
	if r == ReadingSystem {
		return b
	}
	return b.Set("hbf.reading", r)
}

// ReadWaves sets the HBF read-pipeline depth (HBFSpec.ReadWavesInFlight):
// ReadWavesUnbounded for the paper reading, 1 for the physical reading, more
// to explore parts in between.
func (b ExperimentBuilder) ReadWaves(n WaveDepth) ExperimentBuilder {
	return b.Set("hbf.read_waves_in_flight", n)
}

// readingKnob is hbf.reading, a view of hbf.read_waves_in_flight by name.
var readingKnob = Knob{
	Path: "hbf.reading", Symbol: "reading", Cite: "§VI-A, §VI-E (see hbf.read_waves_in_flight)",
	Doc:    "the reading of t_R: paper (read pipeline unbounded) or physical (one wave per t_R)",
	typ:    reflect.TypeFor[Reading](),
	rng:    knobRange{choices: []string{"paper", "physical"}},
	domain: domainSystem,
	view: &knobView{
		get: func(t KnobTarget) reflect.Value { return reflect.ValueOf(t.System.HBF.Reading()) },
		set: func(t KnobTarget, v reflect.Value) {
			if w, ok := v.Interface().(Reading).ReadWaves(); ok {
				t.System.HBF.ReadWavesInFlight = w
			}
		},
		valid: func(v reflect.Value) error {
			if _, ok := v.Interface().(Reading).ReadWaves(); !ok {
				return fmt.Errorf("not a named reading (paper or physical; set hbf.read_waves_in_flight for other depths)")
			}
			return nil
		},
	},
}
