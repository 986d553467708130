package reference

import (
	"fmt"
	"strings"

	"github.com/dashlab/dashlab/internal/safeio"
)

// UnknownError is the catalogue's answer to an id it does not have: the kind of entry
// ("model", "system", "GPU"), the id asked for and the ids it knows. Match it with
// errors.As.
type UnknownError struct {
	// Kind is what was looked up: "model", "system" or "GPU".
	Kind string
	// ID is the id asked for.
	ID string
	// Known lists the ids the catalogue has (and patterns such as "dash-N").
	Known []string
}

// Error names the unknown id and the known ones.
func (e *UnknownError) Error() string {
	return fmt.Sprintf("unknown %s %s (known: %s)", e.Kind, safeio.Quote(e.ID), strings.Join(e.Known, ", "))
}
