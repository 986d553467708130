package unit

import "math"

// BytesPerSecond is a data rate.
type BytesPerSecond float64

// Decimal data-rate multiples (1 GB/s = 1e9 B/s).
const (
	BytePerSecond BytesPerSecond = 1
	MBps          BytesPerSecond = 1e6
	GBps          BytesPerSecond = 1e9
	TBps          BytesPerSecond = 1e12
)

// TBps returns r in TB/s (1e12 B/s).
func (r BytesPerSecond) TBps() float64 { return float64(r) / 1e12 }

// GBps returns r in GB/s (1e9 B/s).
func (r BytesPerSecond) GBps() float64 { return float64(r) / 1e9 }

// String prints r as "1.6 TB/s", "55.33 GB/s" and so on.
func (r BytesPerSecond) String() string {
	switch a := math.Abs(float64(r)); {
	case a >= 1e12:
		return trimFloat(float64(r)/1e12) + " TB/s"
	case a >= 1e9:
		return trimFloat(float64(r)/1e9) + " GB/s"
	case a >= 1e6:
		return trimFloat(float64(r)/1e6) + " MB/s"
	default:
		return trimFloat(float64(r)) + " B/s"
	}
}

// TransferTime is the time to move b bytes at rate r, rounded up to the next
// nanosecond. A non-positive rate or byte count gives 0; a time beyond the
// representable range saturates at MaxDuration (which a simulation reports
// as out of range rather than wrapping).
func TransferTime(b Bytes, r BytesPerSecond) Duration {
	if b <= 0 || r <= 0 {
		return 0
	}
	return ceilNanos(float64(b) / float64(r) * 1e9)
}

// BytesIn is the number of whole bytes that rate r moves in d (saturating
// at MaxBytes).
func BytesIn(d Duration, r BytesPerSecond) Bytes {
	if d <= 0 || r <= 0 {
		return 0
	}
	v := math.Floor(float64(d) * float64(r) / 1e9)
	if v >= math.MaxInt64 || v != v {
		return MaxBytes
	}
	return Bytes(v)
}

// Rate is the average rate of moving b bytes in d (0 when d is 0).
func Rate(b Bytes, d Duration) BytesPerSecond {
	if d <= 0 {
		return 0
	}
	return BytesPerSecond(float64(b) / d.Seconds())
}

func ceilNanos(ns float64) Duration {
	c := math.Ceil(ns - 1e-9) // tolerate float noise just above an integer
	if c < 0 || c != c {
		return 0
	}
	return durationOf(c)
}
