package dash

import (
	"fmt"

	"github.com/dashlab/dashlab/dash/unit"
)

// Memory names the memory a CapacityError is about.
type Memory string

// The memories a plan can run out of.
const (
	// MemoryHBM is the GPU's HBM (the prefill's activation workspace).
	MemoryHBM Memory = "HBM"
	// MemoryHBF is the high-bandwidth flash (weights and KV).
	MemoryHBF Memory = "HBF"
)

// CapacityError is the planner's refusal of an experiment whose data do not fit its
// memory system: Need bytes of Memory are needed and Have are available. Match it with
// errors.As; its message says "does not fit" and names the model and the system.
type CapacityError struct {
	// Model and System are the ids of the refused experiment's model and system.
	Model, System string
	// Memory is the memory that is too small.
	Memory Memory
	// Need is what the plan needs of it, Have what the system has.
	Need, Have unit.Bytes
	// Detail says what makes up Need and Have, in words.
	Detail string
}

// Error says which model does not fit which system, with the bytes needed and available.
func (e *CapacityError) Error() string {
	return fmt.Sprintf("model %s does not fit system %s: %s", e.Model, e.System, e.Detail)
}
