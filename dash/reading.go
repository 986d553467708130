package dash

import (
	"fmt"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// Reading is a reading of the paper's HBF read latency t_R. The paper
// contradicts itself on whether t_R also caps the NAND array's throughput
// (see [HBFSpec.ReadWavesInFlight] for the quotes), and its numbers fit a
// third reading its text denies, t_R paid serially before each transfer
// chunk (see [HBFSpec.SerialRead]); the readings differ in those two
// parameters only, so that an experiment names which one it uses and
// nothing else moves between them. None has a free parameter. The knob
// hbf.reading sets it by name wherever knobs are set.
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
	// ReadingSerial pays each transfer chunk's t_R before its transfer, on
	// the link it leaves the stack by, with no overlap between sensing and
	// draining (HBFSpec.SerialRead; the read pipeline unbounded, as it then
	// adds nothing): what a simulator that adds t_R to every request
	// computes, 4 MiB / (3 µs + 2.62 µs) = 0.746 TB/s a route. The paper's
	// text says t_R is overlapped (§II-B, §IV-A), so it is a hypothesis
	// about the paper's simulator, not about its hardware.
	ReadingSerial
)

// Readings lists the named readings, the paper's first.
func Readings() []Reading { return []Reading{ReadingPaper, ReadingPhysical, ReadingSerial} }

var readingNames = [...]string{ReadingSystem: "system", ReadingPhysical: "physical", ReadingPaper: "paper", ReadingCustom: "custom", ReadingSerial: "serial"}

// String is the reading's name: "paper", "physical", "serial", "custom", or
// "system" for the zero Reading.
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
	case ReadingPaper, ReadingSerial:
		return ReadWavesUnbounded, true
	case ReadingPhysical:
		return 1, true
	}
	return 0, false
}

// ParseReading parses "paper", "physical" or "serial".
func ParseReading(s string) (Reading, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "paper":
		return ReadingPaper, nil
	case "physical":
		return ReadingPhysical, nil
	case "serial":
		return ReadingSerial, nil
	}
	return 0, fmt.Errorf("reading %q: want paper, physical or serial", s)
}

// UnmarshalYAML reads "paper", "physical" or "serial".
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
// HBFSpec.ReadWavesInFlight and HBFSpec.SerialRead); it is per experiment,
// so experiments under every reading can run side by side. ReadingSystem
// changes nothing.
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
	Doc:    "the reading of t_R: paper (read pipeline unbounded), physical (one wave per t_R) or serial (t_R before each chunk's transfer, never overlapped)",
	typ:    reflect.TypeFor[Reading](),
	rng:    knobRange{choices: []string{"paper", "physical", "serial"}},
	domain: domainSystem,
	view: &knobView{
		get: func(t KnobTarget) reflect.Value { return reflect.ValueOf(t.System.HBF.Reading()) },
		set: func(t KnobTarget, v reflect.Value) {
			r := v.Interface().(Reading)
			if w, ok := r.ReadWaves(); ok {
				t.System.HBF.ReadWavesInFlight, t.System.HBF.SerialRead = w, r == ReadingSerial
			}
		},
		valid: func(v reflect.Value) error {
			if _, ok := v.Interface().(Reading).ReadWaves(); !ok {
				return fmt.Errorf("not a named reading (paper, physical or serial; set hbf.read_waves_in_flight for other depths)")
			}
			return nil
		},
	},
}
