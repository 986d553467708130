package offload

import (
	"errors"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// Issue 26's hostile host data, one test per class of defect.

// Panics: a first data row that opens a quote it never closes used to
// panic in FieldPos; it is refused at its line like a later one.
func TestHostDataUnclosedQuoteFirstRow(t *testing.T) {
	for _, body := range []string{cpuHeader + "\"1,1,8,84166.7,82887.3,85137.7,7\n", cpuHeader + "\"1,1,8"} {
		_, err := ParseCPUExpert(strings.NewReader(body), "cpu_expert.csv")
		var de *DataError
		if !errors.As(err, &de) || de.Line != 2 || !strings.Contains(err.Error(), "cpu_expert.csv:2: ") {
			t.Errorf("%q: %v", body, err)
		}
	}
	_, err := ParseH2D(strings.NewReader("pinned,MB,median_us\n\"True,1,26.8\n"), "h2d.csv")
	var de *DataError
	if !errors.As(err, &de) || de.Line != 2 {
		t.Errorf("h2d.csv: %v", err)
	}
}

// zeros is n bytes of '9', produced on demand.
type nines struct{ n int64 }

func (z *nines) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), z.n))
	for i := range k {
		p[i] = '9'
	}
	z.n -= int64(k)
	return k, nil
}

// Unbounded memory: a 250 MB field is refused at its line after 64 KiB,
// without holding it, and the error does not repeat it.
func TestHostDataHugeField(t *testing.T) {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	_, err := ParseCPUExpert(io.MultiReader(strings.NewReader(cpuHeader+"1,1,8,"), &nines{250 << 20}), "cpu_expert.csv")
	runtime.ReadMemStats(&b)
	if err == nil || !strings.Contains(err.Error(), "cpu_expert.csv:2: line longer than the limit") || len(err.Error()) > 200 {
		t.Errorf("err = %.300v", err)
	}
	if n := b.TotalAlloc - a.TotalAlloc; n > 8<<20 {
		t.Errorf("reading a 250 MB field allocated %d MB", n>>20)
	}
	// a long field under the line limit is echoed cut short
	_, err = ParseCPUExpert(strings.NewReader(cpuHeader+"1,1,8,"+strings.Repeat("x", 60_000)+",1,2,7\n"), "cpu_expert.csv")
	if err == nil || len(err.Error()) > 250 || !strings.Contains(err.Error(), "(60000 bytes)") {
		t.Errorf("err = %.300v", err)
	}
	// a file past the size limit, in short lines
	_, err = ParseH2D(io.MultiReader(strings.NewReader("pinned,MB,median_us\n"), &repeatLines{"True,1,26.8\n", MaxDataBytes}), "h2d.csv")
	if err == nil || !strings.Contains(err.Error(), "larger than the limit") {
		t.Errorf("err = %v", err)
	}
}

type repeatLines struct {
	line string
	n    int
}

func (r *repeatLines) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	r.n--
	return copy(p, r.line), nil
}

// scaled returns the shipped host data with every CPU time multiplied by
// cpu and every copy time by h2d.
func scaled(t *testing.T, cpu, h2d float64) (string, string) {
	t.Helper()
	scale := func(file string, cols []int, f float64) string {
		data, err := os.ReadFile("../../reference/profiles/h200-host-offload/" + file)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		for i := 1; i < len(lines); i++ {
			cells := strings.Split(lines[i], ",")
			for _, c := range cols {
				v, _ := strconv.ParseFloat(cells[c], 64)
				cells[c] = strconv.FormatFloat(v*f, 'g', -1, 64)
			}
			lines[i] = strings.Join(cells, ",")
		}
		return strings.Join(lines, "\n") + "\n"
	}
	return scale(FileCPUExpert, []int{3, 4, 5}, cpu), scale(FileH2D, []int{2}, h2d)
}

// Exit 0 with nonsense: host medians scaled to sub-nanoseconds gave a TPOT
// of -8.6e12 ms; times below 0.1 µs (or copies faster than any link) are
// refused at their row and column.
func TestHostDataSubNanosecondMedians(t *testing.T) {
	for _, c := range []struct {
		cpu, h2d float64
		want     string
	}{
		{1e-6, 1, `cpu_expert.csv:2: column "median_us": 0.0841667: outside the plausible range 0.1 .. 1e+10 µs`},
		{1e-9, 1e-9, `cpu_expert.csv:2: column "median_us"`},
		{1, 1e-6, `h2d.csv:2: column "median_us"`},
		{1, 1e-2, `h2d.csv:2: column "median_us": 1 MB in 0.268 µs is 3731 GB/s: beyond any host-to-GPU link`},
		{1, 1e-3, `h2d.csv:2: column "median_us": 0.0268: outside`},
	} {
		cpu, h2d := scaled(t, c.cpu, c.h2d)
		_, err := LoadHostProfile(fakeFS(cpu, h2d), "scaled", testShape)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("x%g/x%g: %v, want %q", c.cpu, c.h2d, err, c.want)
		}
	}
	// medians that rise with the thread count have no core-scaling fit
	p, err := LoadHostProfile(fakeFS(cpuHeader+"1,1,8,5,4,6,7\n2,1,8,50,40,60,7\n", "pinned,MB,median_us\nTrue,1,26\nTrue,8,150\nFalse,1,98\nFalse,8,640\n"), "rising", testShape)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.LayerTime(1, 32); err == nil || !strings.Contains(err.Error(), "do not fall with the thread count") {
		t.Errorf("rising medians: %v", err)
	}
}

// Overflow: a copy size beyond 1 TB (1e21 bytes used to wrap int64) and
// counts beyond the bound are refused.
func TestHostDataBounds(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"pinned,MB,median_us\nTrue,1e15,26.8\n", `column "MB": 1e15: outside the plausible range 1e-06 .. 1e+06 MB`},
		{"pinned,MB,median_us\nTrue,1e400,26.8\n", `column "MB": 1e400: outside`},
	} {
		_, err := ParseH2D(strings.NewReader(c.body), "h2d.csv")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
	_, err := ParseCPUExpert(strings.NewReader(cpuHeader+"99999999999999999999,1,8,5,4,6,7\n"), "cpu_expert.csv")
	if err == nil || !strings.Contains(err.Error(), "out of range (1 to 1048576)") {
		t.Errorf("huge threads: %v", err)
	}
}

// Misleading errors: a UTF-8 byte-order mark is skipped.
func TestHostDataBOM(t *testing.T) {
	pts, err := ParseCPUExpert(strings.NewReader("\ufeff"+cpuHeader+"1,1,8,5,4,6,7\n"), "cpu_expert.csv")
	if err != nil || len(pts) != 1 {
		t.Errorf("%v, %v", pts, err)
	}
}
