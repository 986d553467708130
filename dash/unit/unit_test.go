package unit

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Bytes
		err  string
	}{
		{"24 GB", 24 * GB, ""},
		{"4 KiB", 4096, ""},
		{"8MiB", 8 << 20, ""},
		{"470.19 GB", 470_190_000_000, ""},
		{"1 B", 1, ""},
		{"24", 0, "needs a unit"},
		{"24 Gb", 0, `unknown byte count unit "Gb"`},
		{"GB", 0, "expected a number"},
		{"0.4 B", 0, "under half a byte, would round to 0"},
		{"-1e-20 TB", 0, "under half a byte, would round to 0"},
		{"0 GB", 0, ""},
		{"1.5 B", 2, ""},
	} {
		got, err := ParseBytes(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseBytes(%q) error = %v, want it to contain %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

func TestStringRoundTrip(t *testing.T) {
	for _, b := range []Bytes{24 * GB, 4 * KiB, 8 * MiB, 18 * MiB, 512 * GB, 470_190_000_000, 3} {
		got, err := ParseBytes(b.String())
		if err != nil || got != b {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", b.String(), got, err, b)
		}
	}
	for _, d := range []Duration{3 * Microsecond, 100 * Microsecond, 2621 * Nanosecond, 20982 * Millisecond} {
		got, err := ParseDuration(d.String())
		if err != nil || got != d {
			t.Errorf("ParseDuration(%q) = %d, %v; want %d", d.String(), got, err, d)
		}
	}
	if s := (3 * Microsecond).String(); s != "3\u00b5s" {
		t.Errorf("3 µs prints as %q, want 3µs with the micro sign", s)
	}
	for _, text := range []string{"3µs", "3 μs", "3us", "3 us", "3000ns"} { // micro sign, Greek mu, ASCII
		if got, err := ParseDuration(text); err != nil || got != 3*Microsecond {
			t.Errorf("ParseDuration(%q) = %v, %v; want 3µs", text, got, err)
		}
	}
	for _, text := range []string{"1e-30us", "0.4ns", "-2e-13 s"} { // nonzero, but rounds to 0
		if got, err := ParseDuration(text); err == nil || !strings.Contains(err.Error(), "under half a ns, would round to 0") {
			t.Errorf("ParseDuration(%q) = %v, %v; want an error: under half a ns", text, got, err)
		}
	}
	if got, err := ParseDuration("0us"); err != nil || got != 0 {
		t.Errorf("ParseDuration(\"0us\") = %v, %v; want 0", got, err)
	}
	if s := (1.6 * TBps).String(); s != "1.6 TB/s" {
		t.Errorf("1.6 TB/s prints as %q", s)
	}
}

func TestGBvsGiB(t *testing.T) {
	if GB == GiB || GB != 1_000_000_000 || GiB != 1<<30 {
		t.Fatalf("GB=%d GiB=%d", GB, GiB)
	}
	if got := (8 * MiB).MiB(); got != 8 {
		t.Errorf("8 MiB = %v MiB", got)
	}
}

func TestTransferTimeRoundsUp(t *testing.T) {
	// 4 MiB at 1.6 TB/s is 2621.44 ns: rounded up so the link never beats its rate.
	if got := TransferTime(4*MiB, 1.6*TBps); got != 2622 {
		t.Errorf("TransferTime(4 MiB, 1.6 TB/s) = %d ns, want 2622", got)
	}
	// An exact result is not bumped by float noise.
	if got := TransferTime(1600, 1.6*TBps); got != 1 {
		t.Errorf("TransferTime(1600 B, 1.6 TB/s) = %d ns, want 1", got)
	}
	if got := TransferTime(0, TBps); got != 0 {
		t.Errorf("zero bytes take %d", got)
	}
}

func TestLinkPower(t *testing.T) {
	// The paper's 6.4-7.7 W per fully used 1.6 TB/s direction at 0.5-0.6 pJ/bit.
	lo, hi := Power(1.6*TBps, 0.5*PicojoulePerBit), Power(1.6*TBps, 0.6*PicojoulePerBit)
	if lo < 6.39 || lo > 6.41 || hi < 7.67 || hi > 7.69 {
		t.Errorf("power = %v .. %v", lo, hi)
	}
}

func TestYAML(t *testing.T) {
	var v struct {
		Size Bytes          `yaml:"size"`
		BW   BytesPerSecond `yaml:"bw"`
		TR   Duration       `yaml:"t_read"`
	}
	if err := yaml.Unmarshal([]byte("size: 24 GB\nbw: 1.6 TB/s\nt_read: 3us\n"), &v); err != nil {
		t.Fatal(err)
	}
	if v.Size != 24*GB || v.BW != 1.6*TBps || v.TR != 3*Microsecond {
		t.Errorf("decoded %+v", v)
	}
	err := yaml.Unmarshal([]byte("size: 24 GB\nbw: 1.6 TB/s\nt_read: 3\n"), &v)
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "needs a unit") {
		t.Errorf("bare number: error = %v", err)
	}
	out, err := yaml.Marshal(v)
	if err != nil || !strings.Contains(string(out), "t_read: 3µs") {
		t.Errorf("marshal = %s, %v", out, err)
	}
}
