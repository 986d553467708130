package dash

import (
	"strconv"

	"github.com/dashlab/dashlab/dash/unit"
)

// DType is the storage type of one tensor element. The zero value is not a
// valid type: its Size is 0 and it prints as "DType(0)".
type DType int

// The element types found in the catalogue's checkpoints.
const (
	// BF16 is bfloat16 (2 bytes).
	BF16 DType = iota + 1
	// FP32 is IEEE single precision (4 bytes).
	FP32
	// FP8 is the OCP FP8 e4m3 format (1 byte).
	FP8
	// INT8 is a signed 8-bit integer (1 byte).
	INT8
)

// Size returns the bytes one element occupies, or 0 for an unknown type.
func (d DType) Size() unit.Bytes {
	switch d {
	case BF16:
		return 2
	case FP32:
		return 4
	case FP8, INT8:
		return 1
	}
	return 0
}

// String returns the conventional lower-case name: "bf16", "fp32",
// "fp8_e4m3" or "int8".
func (d DType) String() string {
	switch d {
	case BF16:
		return "bf16"
	case FP32:
		return "fp32"
	case FP8:
		return "fp8_e4m3"
	case INT8:
		return "int8"
	}
	return "DType(" + strconv.Itoa(int(d)) + ")"
}
