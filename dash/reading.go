package dash

import (
	"fmt"
	"strings"
)

// Reading is a reading of the paper's HBF read latency t_R. The paper
// contradicts itself on whether t_R also caps the NAND array's throughput
// (see [HBFSpec.ReadWavesInFlight] for the quotes); the two readings differ
// in that one parameter only, so that an experiment names which one it
// uses and nothing else moves between them.
type Reading uint8

const (
	// ReadingPhysical is the stated part: one page wave sensed per t_R per
	// stack (ReadWavesInFlight = 1). The paper's Fig. 12 text implies it;
	// it is the value of the paper's part (reference/systems/dash.yaml).
	ReadingPhysical Reading = iota
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

var readingNames = [...]string{ReadingPhysical: "physical", ReadingPaper: "paper", ReadingCustom: "custom"}

// String is the reading's name: "paper", "physical" or "custom".
func (r Reading) String() string {
	if int(r) < len(readingNames) {
		return readingNames[r]
	}
	return fmt.Sprintf("Reading(%d)", uint8(r))
}

// ReadWaves is the read-pipeline depth of a named reading
// ([HBFSpec.ReadWavesInFlight]); ok is false for ReadingCustom.
func (r Reading) ReadWaves() (waves int, ok bool) {
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

// Reading applies a named reading of t_R to the system's HBF part (sets
// HBFSpec.ReadWavesInFlight); it is per experiment, so experiments under
// both readings can run side by side.
func (b ExperimentBuilder) Reading(r Reading) ExperimentBuilder {
	w, ok := r.ReadWaves()
	if !ok {
		return b.fail(fmt.Errorf("reading %v: not a named reading (use ReadWaves for other depths)", r))
	}
	return b.ReadWaves(w)
}

// ReadWaves sets the HBF read-pipeline depth (HBFSpec.ReadWavesInFlight):
// 0 for unbounded (the paper reading), 1 for the physical reading, more to
// explore parts in between.
func (b ExperimentBuilder) ReadWaves(n int) ExperimentBuilder {
	return b.Modify(func(s *SystemSpec) { s.HBF.ReadWavesInFlight = n })
}
