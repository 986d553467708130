package unit

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"
)

// splitQuantity splits "1.6 TB/s" into 1.6 and "TB/s". The unit may follow
// the number with or without a space.
func splitQuantity(s string) (float64, string, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] == '+' || s[i] == '-' || s[i] == '.' || s[i] == 'e' && i > 0 || s[i] == 'E' && i > 0 || unicode.IsDigit(rune(s[i]))) {
		// stop at an 'e' that starts a unit such as "EB"; digits must follow it
		if (s[i] == 'e' || s[i] == 'E') && (i+1 >= len(s) || !(unicode.IsDigit(rune(s[i+1])) || s[i+1] == '-' || s[i+1] == '+')) {
			break
		}
		i++
	}
	if i == 0 {
		return 0, "", fmt.Errorf("%q: expected a number followed by a unit", s)
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, "", fmt.Errorf("%q: %q is not a number", s, s[:i])
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, "", fmt.Errorf("%q: not a finite number", s)
	}
	return v, strings.TrimSpace(s[i:]), nil
}

func lookup(s, what string, units map[string]float64, examples string) (float64, error) {
	v, u, err := splitQuantity(s)
	if err != nil {
		return 0, err
	}
	if u == "" {
		return 0, fmt.Errorf("%q: a %s needs a unit (%s)", s, what, examples)
	}
	m, ok := units[u]
	if !ok {
		return 0, fmt.Errorf("%q: unknown %s unit %q (use %s)", s, what, u, examples)
	}
	return v * m, nil
}

var byteUnits = map[string]float64{
	"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
}

// ParseBytes parses "24 GB", "4 KiB", "8MiB" or "1048576 B". Decimal and
// binary prefixes are distinct; the unit is required. The result rounds to
// the nearest byte; a nonzero count under half a byte is an error rather
// than 0.
func ParseBytes(s string) (Bytes, error) {
	v, err := lookup(s, "byte count", byteUnits, "B, KB, MB, GB, TB, KiB, MiB, GiB, TiB")
	if err != nil {
		return 0, err
	}
	if math.Abs(v) > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q: too large", s)
	}
	if err := belowResolution(s, v, "a byte"); err != nil {
		return 0, err
	}
	return Bytes(math.Round(v)), nil
}

// belowResolution refuses a nonzero quantity that rounds to zero at the
// type's resolution (a byte, a nanosecond): it would silently become 0.
// Other values round to the nearest unit of resolution. The message is
// short: sweeps clip a value's error to safeio.MaxEcho bytes.
func belowResolution(s string, v float64, unit string) error {
	if v != 0 && math.Round(v) == 0 {
		return fmt.Errorf("%q: under half %s, would round to 0", s, unit)
	}
	return nil
}

var rateUnits = map[string]float64{
	"B/s": 1, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "TB/s": 1e12,
	"KiB/s": 1 << 10, "MiB/s": 1 << 20, "GiB/s": 1 << 30, "TiB/s": 1 << 40,
}

// ParseBytesPerSecond parses "1.6 TB/s" or "55 GB/s".
func ParseBytesPerSecond(s string) (BytesPerSecond, error) {
	v, err := lookup(s, "bandwidth", rateUnits, "B/s, MB/s, GB/s, TB/s, GiB/s")
	return BytesPerSecond(v), err
}

var durationUnits = map[string]float64{
	"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9,
}

// ParseDuration parses "3µs", "3us", "100 us", "2.5ms", "20s". The unit is
// required; microseconds may be written µs (micro sign or Greek mu) or us.
// The result rounds to the nearest nanosecond; a nonzero duration under
// half a nanosecond ("1e-30us") is an error rather than 0.
func ParseDuration(s string) (Duration, error) {
	v, err := lookup(s, "duration", durationUnits, "ns, µs (or us), ms, s")
	if err != nil {
		return 0, err
	}
	if math.Abs(v) > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q: too large", s)
	}
	if err := belowResolution(s, v, "a ns"); err != nil {
		return 0, err
	}
	return Duration(math.Round(v)), nil
}

var flopRateUnits = map[string]float64{
	"GFLOP/s": 1e9, "TFLOP/s": 1e12, "PFLOP/s": 1e15,
}

// ParseFLOPsPerSecond parses "756 TFLOP/s".
func ParseFLOPsPerSecond(s string) (FLOPsPerSecond, error) {
	v, err := lookup(s, "compute rate", flopRateUnits, "GFLOP/s, TFLOP/s, PFLOP/s")
	return FLOPsPerSecond(v), err
}

var hertzUnits = map[string]float64{"Hz": 1, "kHz": 1e3, "MHz": 1e6, "GHz": 1e9}

// ParseHertz parses "1755 MHz" or "1.98 GHz".
func ParseHertz(s string) (Hertz, error) {
	v, err := lookup(s, "frequency", hertzUnits, "Hz, MHz, GHz")
	return Hertz(v), err
}

var energyUnits = map[string]float64{"pJ/bit": 1e-12, "fJ/bit": 1e-15, "J/bit": 1}

// ParseJoulesPerBit parses "0.5 pJ/bit".
func ParseJoulesPerBit(s string) (JoulesPerBit, error) {
	v, err := lookup(s, "energy per bit", energyUnits, "pJ/bit, fJ/bit")
	return JoulesPerBit(v), err
}

var wattUnits = map[string]float64{"W": 1, "mW": 1e-3, "kW": 1e3}

// ParseWatts parses "6.4 W".
func ParseWatts(s string) (Watts, error) {
	v, err := lookup(s, "power", wattUnits, "mW, W, kW")
	return Watts(v), err
}

func scalar(n *yaml.Node, what string) (string, error) {
	if n.Kind != yaml.ScalarNode {
		return "", fmt.Errorf("line %d: %s must be a string such as %s", n.Line, what, exampleOf[what])
	}
	return n.Value, nil
}

var exampleOf = map[string]string{
	"byte count": `"24 GB" or "4 KiB"`, "bandwidth": `"1.6 TB/s"`, "duration": `"3µs" or "3us"`,
	"compute rate": `"756 TFLOP/s"`, "frequency": `"1755 MHz"`, "energy per bit": `"0.5 pJ/bit"`,
	"power": `"6.4 W"`,
}

func yamlErr(n *yaml.Node, err error) error {
	return fmt.Errorf("line %d: %w", n.Line, err)
}

// UnmarshalYAML reads a byte count such as "24 GB".
func (b *Bytes) UnmarshalYAML(n *yaml.Node) error {
	s, err := scalar(n, "byte count")
	if err != nil {
		return err
	}
	v, err := ParseBytes(s)
	if err != nil {
		return yamlErr(n, err)
	}
	*b = v
	return nil
}

// MarshalYAML writes b with its unit.
func (b Bytes) MarshalYAML() (any, error) { return b.String(), nil }

// UnmarshalYAML reads a bandwidth such as "1.6 TB/s".
func (r *BytesPerSecond) UnmarshalYAML(n *yaml.Node) error {
	s, err := scalar(n, "bandwidth")
	if err != nil {
		return err
	}
	v, err := ParseBytesPerSecond(s)
	if err != nil {
		return yamlErr(n, err)
	}
	*r = v
	return nil
}

// MarshalYAML writes r with its unit.
func (r BytesPerSecond) MarshalYAML() (any, error) { return r.String(), nil }

// UnmarshalYAML reads a duration such as "3µs" or "3us".
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	s, err := scalar(n, "duration")
	if err != nil {
		return err
	}
	v, err := ParseDuration(s)
	if err != nil {
		return yamlErr(n, err)
	}
	*d = v
	return nil
}

// MarshalYAML writes d with its unit.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML reads a compute rate such as "756 TFLOP/s".
func (r *FLOPsPerSecond) UnmarshalYAML(n *yaml.Node) error {
	s, err := scalar(n, "compute rate")
	if err != nil {
		return err
	}
	v, err := ParseFLOPsPerSecond(s)
	if err != nil {
		return yamlErr(n, err)
	}
	*r = v
	return nil
}

// MarshalYAML writes r with its unit.
func (r FLOPsPerSecond) MarshalYAML() (any, error) { return r.String(), nil }

// UnmarshalYAML reads a frequency such as "1755 MHz".
func (h *Hertz) UnmarshalYAML(n *yaml.Node) error {
	s, err := scalar(n, "frequency")
	if err != nil {
		return err
	}
	v, err := ParseHertz(s)
	if err != nil {
		return yamlErr(n, err)
	}
	*h = v
	return nil
}

// MarshalYAML writes h with its unit.
func (h Hertz) MarshalYAML() (any, error) { return h.String(), nil }

// UnmarshalYAML reads an energy per bit such as "0.5 pJ/bit".
func (e *JoulesPerBit) UnmarshalYAML(n *yaml.Node) error {
	s, err := scalar(n, "energy per bit")
	if err != nil {
		return err
	}
	v, err := ParseJoulesPerBit(s)
	if err != nil {
		return yamlErr(n, err)
	}
	*e = v
	return nil
}

// MarshalYAML writes e with its unit.
func (e JoulesPerBit) MarshalYAML() (any, error) { return e.String(), nil }

// UnmarshalYAML reads a power such as "6.4 W".
func (w *Watts) UnmarshalYAML(n *yaml.Node) error {
	s, err := scalar(n, "power")
	if err != nil {
		return err
	}
	v, err := ParseWatts(s)
	if err != nil {
		return yamlErr(n, err)
	}
	*w = v
	return nil
}

// MarshalYAML writes w with its unit.
func (w Watts) MarshalYAML() (any, error) { return w.String(), nil }
