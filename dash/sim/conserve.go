package sim

import (
	"fmt"

	"github.com/dashlab/dashlab/dash/unit"
)

// ConservationError says that the engine issued a different number of bytes
// for an operator than the operator reads: a split of its data over the
// routes lost (or invented) bytes. It is an engine bug, reported instead of
// a result that would silently read less than the model needs.
type ConservationError struct {
	// Class and Layer name the operator (Layer -1: model-level).
	Class OpClass
	Layer int
	// Need is what the operator reads; Issued what its streams carried.
	Need, Issued unit.Bytes
}

func (e *ConservationError) Error() string {
	return fmt.Sprintf("sim: %v operator of layer %d read %v of the %v it needs: bytes lost in the split over the routes (an engine bug)",
		e.Class, e.Layer, e.Issued, e.Need)
}

// readBytes is every byte the operator reads, whichever memory and route
// it comes over: its weights, the KV it attends over, gathered rows and
// the experts it runs.
func (o *opSpec) readBytes() unit.Bytes {
	return o.weights + o.kvHBM + o.kvHBF + o.gather + unit.Bytes(o.sharedN)*o.sharedBytes + unit.Bytes(o.routedN)*o.expertSize
}

// checkConserved ends the run with a *ConservationError when operator i,
// which has ended, was issued other than the bytes it reads.
func (e *engine) checkConserved(i int) {
	spec := &e.pass.ops[i]
	if need, got := spec.readBytes(), e.ops[i].total; need != got && e.err == nil {
		e.err = &ConservationError{Class: spec.class, Layer: spec.layer, Need: need, Issued: got}
	}
}
