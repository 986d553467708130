package unit

import (
	"math"
	"testing"
)

// TestStringIsTotal prints the extremes of every integer unit type: no
// recursion, no panic, and the sign and magnitude survive.
func TestStringIsTotal(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{Bytes(math.MinInt64).String(), "-9223372.0369 TB"},
		{Bytes(math.MaxInt64).String(), "9223372.0369 TB"},
		{Bytes(0).String(), "0 B"},
		{Bytes(-4 * KiB).String(), "-4 KiB"},
		{Bytes(-1500).String(), "-1.5 KB"},
		{Duration(math.MinInt64).String(), "-9223372036.8548s"},
		{Duration(math.MaxInt64).String(), "9223372036.8548s"},
		{Duration(0).String(), "0ns"},
		{Duration(-3 * Microsecond).String(), "-3µs"},
		{BytesPerSecond(math.Inf(1)).String(), "+Inf TB/s"},
		{BytesPerSecond(math.NaN()).String(), "NaN B/s"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	for _, f := range []float64{math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(-1)} {
		for _, s := range []string{FLOPs(f).String(), FLOPsPerSecond(f).String(), Hertz(f).String(), Watts(f).String(), JoulesPerBit(f).String()} {
			if s == "" {
				t.Errorf("empty string for %v", f)
			}
		}
	}
}

func TestConversionsSaturate(t *testing.T) {
	if got := TransferTime(MaxBytes, 1e-9); got != MaxDuration {
		t.Errorf("TransferTime(MaxBytes, 1e-9 B/s) = %v, want MaxDuration", got)
	}
	if got := ComputeTime(1e300, 1); got != MaxDuration {
		t.Errorf("ComputeTime(1e300 FLOP, 1 FLOP/s) = %v, want MaxDuration", got)
	}
	if got := BytesIn(MaxDuration, 1e18); got != MaxBytes {
		t.Errorf("BytesIn = %v, want MaxBytes", got)
	}
	if FromSeconds(1e300) != MaxDuration || FromSeconds(-1e300) != -MaxDuration || FromSeconds(math.NaN()) != 0 {
		t.Error("FromSeconds does not saturate")
	}
}

func TestCheckedArithmetic(t *testing.T) {
	for _, tc := range []struct {
		a, b, sum int64
		ok        bool
	}{
		{2, 3, 5, true},
		{math.MaxInt64, 1, 0, false},
		{math.MinInt64, -1, 0, false},
		{math.MaxInt64 / 2, 3, math.MaxInt64/2 + 3, true},
		{0, math.MinInt64, math.MinInt64, true},
	} {
		if s, ok := CheckedAdd(tc.a, tc.b); s != tc.sum || ok != tc.ok {
			t.Errorf("CheckedAdd(%d, %d) = %d, %v", tc.a, tc.b, s, ok)
		}
	}
	for _, tc := range []struct {
		a, b, prod int64
		ok         bool
	}{
		{-3, 7, -21, true},
		{1 << 31, 1 << 31, 1 << 62, true},
		{1 << 32, 1 << 31, 0, false},
		{-1, math.MinInt64, 0, false},
		{math.MinInt64, -1, 0, false},
		{math.MinInt64, 1, math.MinInt64, true},
		{0, math.MinInt64, 0, true},
	} {
		if p, ok := CheckedMul(tc.a, tc.b); p != tc.prod || ok != tc.ok {
			t.Errorf("CheckedMul(%d, %d) = %d, %v", tc.a, tc.b, p, ok)
		}
	}
	if p, ok := CheckedProduct(16, 32, 4, 4096); !ok || p != 8<<20 {
		t.Errorf("page wave product = %d, %v", p, ok)
	}
	if _, ok := CheckedProduct(4611686018427387904, 32, 4, 4096); ok {
		t.Error("the issue's dies x planes x subarrays x page did not overflow")
	}
}
