package reference

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/dashlab/dashlab/dash"
)

//go:embed paper.yaml
var paperYAML []byte

// PaperEntry is one number the paper publishes.
type PaperEntry struct {
	// ID is the stable identifier ("table2.weights_gb.grok-1").
	ID string `yaml:"id"`
	// Value is the published number.
	Value float64 `yaml:"value"`
	// Unit is the number's unit ("GB", "%", "x", "TB/s").
	Unit string `yaml:"unit"`
	// Section is where the paper states it.
	Section string `yaml:"section"`
	// Tolerance is the allowed absolute deviation; TolerancePct the allowed
	// deviation relative to Value. Exactly one is used: TolerancePct when set.
	Tolerance float64 `yaml:"tolerance"`
	// TolerancePct is the relative tolerance in percent (see Tolerance).
	TolerancePct float64 `yaml:"tolerance_pct"`
	// AtMost, when set, makes the entry a bound instead of a match: the simulated value
	// passes when it is at most AtMost (in Unit), whatever its distance from Value. For
	// quantities that measure dashlab itself rather than reproduce a result, such as
	// the GPU timing model's error on another GPU than the paper's; Value is then shown
	// for reference.
	AtMost float64 `yaml:"at_most"`
	// Note qualifies the number or the comparison.
	Note string `yaml:"note"`
	// SimulatedOnly marks a number dashlab computes beyond the paper, which
	// publishes none to judge it by (cluster.*): it has no value, tolerance
	// or bound, and its row is shown as simulated, never pass or fail.
	SimulatedOnly bool `yaml:"simulated_only"`
}

// AbsTolerance is the allowed absolute deviation.
func (e PaperEntry) AbsTolerance() float64 {
	if e.TolerancePct > 0 {
		return math.Abs(e.Value) * e.TolerancePct / 100
	}
	return e.Tolerance
}

// Passes reports whether simulated is within tolerance of the paper's value, or at
// most AtMost for a bound.
func (e PaperEntry) Passes(simulated float64) bool {
	if math.IsNaN(simulated) || math.IsInf(simulated, 0) {
		return false
	}
	if e.AtMost > 0 {
		return simulated <= e.AtMost+1e-12
	}
	return math.Abs(simulated-e.Value) <= e.AbsTolerance()+1e-12
}

var paperEntries = sync.OnceValues(func() ([]PaperEntry, error) {
	var doc struct {
		Entries []PaperEntry `yaml:"entries"`
	}
	if err := dash.DecodeStrictBytes(paperYAML, "paper.yaml", &doc); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var errs []error
	for i, e := range doc.Entries {
		switch {
		case e.ID == "":
			errs = append(errs, fmt.Errorf("paper.yaml: entry %d has no id", i))
		case seen[e.ID]:
			errs = append(errs, fmt.Errorf("paper.yaml: duplicate id %q", e.ID))
		case e.Tolerance < 0 || e.TolerancePct < 0:
			errs = append(errs, fmt.Errorf("paper.yaml: %s: negative tolerance", e.ID))
		case e.AtMost < 0 || (e.AtMost > 0 && (e.Tolerance > 0 || e.TolerancePct > 0)):
			errs = append(errs, fmt.Errorf("paper.yaml: %s: at_most must be positive and replaces the tolerance", e.ID))
		case e.SimulatedOnly && (e.Value != 0 || e.Tolerance != 0 || e.TolerancePct != 0 || e.AtMost != 0):
			errs = append(errs, fmt.Errorf("paper.yaml: %s: simulated_only has no value, tolerance or at_most", e.ID))
		}
		seen[e.ID] = true
	}
	return doc.Entries, errors.Join(errs...)
})

// Paper returns every published number, in the file's order.
func Paper() ([]PaperEntry, error) {
	entries, err := paperEntries()
	if err != nil {
		return nil, err
	}
	return append([]PaperEntry(nil), entries...), nil
}

// PaperValue returns the entry with the given id.
func PaperValue(id string) (PaperEntry, error) {
	entries, err := paperEntries()
	if err != nil {
		return PaperEntry{}, err
	}
	for _, e := range entries {
		if e.ID == id {
			return e, nil
		}
	}
	return PaperEntry{}, fmt.Errorf("no paper entry %q", id)
}
