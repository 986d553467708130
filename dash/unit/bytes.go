package unit

import (
	"fmt"
	"math"
)

// Bytes is a count of bytes.
type Bytes int64

// Decimal (SI) and binary (IEC) byte multiples. GB is 1e9 bytes; GiB is 2^30.
const (
	Byte Bytes = 1
	KB   Bytes = 1000
	MB   Bytes = 1000 * KB
	GB   Bytes = 1000 * MB
	TB   Bytes = 1000 * GB
	KiB  Bytes = 1 << 10
	MiB  Bytes = 1 << 20
	GiB  Bytes = 1 << 30
	TiB  Bytes = 1 << 40
)

// GB returns b in decimal gigabytes (1e9 bytes).
func (b Bytes) GB() float64 { return float64(b) / float64(GB) }

// GiB returns b in binary gibibytes (2^30 bytes).
func (b Bytes) GiB() float64 { return float64(b) / float64(GiB) }

// MB returns b in decimal megabytes (1e6 bytes).
func (b Bytes) MB() float64 { return float64(b) / float64(MB) }

// MiB returns b in binary mebibytes (2^20 bytes).
func (b Bytes) MiB() float64 { return float64(b) / float64(MiB) }

// String prints b with the largest decimal prefix that keeps the mantissa at
// least 1 ("470.19 GB"), or with a binary prefix when b is a small exact
// multiple (under 10000) of KiB, MiB, GiB or TiB and not a round decimal
// number ("8 MiB", "4 KiB").
func (b Bytes) String() string {
	sign, m := magnitude(int64(b))
	for _, u := range []struct {
		size uint64
		name string
	}{{uint64(TiB), "TiB"}, {uint64(GiB), "GiB"}, {uint64(MiB), "MiB"}, {uint64(KiB), "KiB"}} {
		if m >= u.size && m%u.size == 0 && m/u.size < 10000 && m%uint64(KB) != 0 {
			return fmt.Sprintf("%s%d %s", sign, m/u.size, u.name)
		}
	}
	for _, u := range []struct {
		size uint64
		name string
	}{{uint64(TB), "TB"}, {uint64(GB), "GB"}, {uint64(MB), "MB"}, {uint64(KB), "KB"}} {
		if m >= u.size {
			return sign + trimFloat(float64(m)/float64(u.size)) + " " + u.name
		}
	}
	return fmt.Sprintf("%s%d B", sign, m)
}

// magnitude splits v into its sign ("-" or "") and its absolute value, which
// is exact for every int64 including math.MinInt64.
func magnitude(v int64) (string, uint64) {
	if v < 0 {
		return "-", -uint64(v)
	}
	return "", uint64(v)
}

// trimFloat prints v with up to 4 significant decimals and no trailing zeros.
func trimFloat(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	s := fmt.Sprintf("%.4f", v)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
