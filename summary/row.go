package summary

// Row compares one paper number with the engine.
type Row struct {
	// ID is the paper entry's id.
	ID string `json:"id"`
	// Unit is its unit.
	Unit string `json:"unit"`
	// Section is where the paper states it.
	Section string `json:"section"`
	// Paper is the published value.
	Paper float64 `json:"paper"`
	// Simulated is nil when no part of the engine simulates this id yet.
	Simulated *float64 `json:"simulated"`
	// Deviation is Simulated - Paper (nil when not simulated).
	Deviation *float64 `json:"deviation"`
	// Tolerance is the allowed absolute deviation.
	Tolerance float64 `json:"tolerance"`
	// AtMost, for a bound (paper.yaml's at_most), is the largest simulated value that
	// passes, whatever its distance from Paper (then shown for reference); nil for a
	// match within Tolerance.
	AtMost *float64 `json:"at_most,omitempty"`
	// Pass is nil when not simulated, and for values reported beside a checked one
	// without being checked (the physical reading).
	Pass *bool `json:"pass"`
	// Reading is the reading of the HBF read latency t_R the value was computed under,
	// for ids computed under both: "paper" (checked) or "physical" (id suffix
	// ".physical", reported, not checked).
	Reading string `json:"reading,omitempty"`
	// Note is the paper entry's note.
	Note string `json:"note,omitempty"`
	// Detail says how the simulated value was obtained and, for a miss, the likely cause.
	Detail string `json:"detail,omitempty"`
}

// Count counts simulated (checked), passing and not-yet-simulated rows; rows reported
// beside a checked one (see Reported) are in none of them.
func Count(rows []Row) (simulated, passed, pending int) {
	for _, row := range rows {
		switch {
		case row.Simulated == nil:
			pending++
		case row.Pass == nil:
			// reported, not checked
		case *row.Pass:
			simulated++
			passed++
		default:
			simulated++
		}
	}
	return
}

// Reported counts the rows reported beside a checked one and not checked themselves
// (the physical reading's values).
func Reported(rows []Row) int {
	n := 0
	for _, row := range rows {
		if row.Simulated != nil && row.Pass == nil {
			n++
		}
	}
	return n
}
