package unit

import "math"

// Integer is a signed 64-bit integer type whose arithmetic the checked
// helpers guard: Bytes, Duration, int and int64.
type Integer interface {
	~int | ~int64
}

// int is 64 bits on every platform dashlab builds for (this constant does
// not compile where it is not).
const _ = uint64(math.MaxInt - math.MaxInt64)

// CheckedAdd returns a + b and true, or 0 and false when the sum would not
// fit in 64 bits.
func CheckedAdd[T Integer](a, b T) (T, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

// CheckedMul returns a * b and true, or 0 and false when the product would
// not fit in 64 bits.
func CheckedMul[T Integer](a, b T) (T, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	p := a * b
	if (a == -1 && b == T(math.MinInt64)) || (b == -1 && a == T(math.MinInt64)) || p/b != a {
		return 0, false
	}
	return p, true
}

// CheckedProduct multiplies all factors, reporting false on overflow.
func CheckedProduct[T Integer](factors ...T) (T, bool) {
	p := T(1)
	for _, f := range factors {
		var ok bool
		if p, ok = CheckedMul(p, f); !ok {
			return 0, false
		}
	}
	return p, true
}

// MaxDuration is the largest representable Duration (about 292 years).
const MaxDuration = Duration(math.MaxInt64)

// MaxBytes is the largest representable byte count (about 9.2 EB).
const MaxBytes = Bytes(math.MaxInt64)
