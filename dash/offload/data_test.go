package offload

import (
	"errors"
	"strings"
	"testing"
)

const cpuHeader = "threads,batch,active_experts_last,median_us,min_us,max_us,reps\n"

func TestMalformedCPUDataRefused(t *testing.T) {
	cases := []struct {
		name, body string
		line       int
		column     string
	}{
		{"not a number", cpuHeader + "1,1,8,84166.7,82887.3,85137.7,7\n2,1,8,abc,1,2,7\n", 3, "median_us"},
		{"negative", cpuHeader + "1,1,8,-5,-6,1,7\n", 2, "median_us"},
		{"zero threads", cpuHeader + "0,1,8,5,4,6,7\n", 2, "threads"},
		{"fractional batch", cpuHeader + "1,1.5,8,5,4,6,7\n", 2, "batch"},
		{"median outside range", cpuHeader + "1,1,8,50,4,6,7\n", 2, "median_us"},
		{"duplicate", cpuHeader + "1,1,8,5,4,6,7\n1,1,8,5,4,6,7\n", 3, ""},
		{"short row", cpuHeader + "1,1,8,5,4\n", 2, ""},
		{"missing column", "threads,batch,median_us\n1,1,5\n", 1, "active_experts_last"},
		{"infinite", cpuHeader + "1,1,8,Inf,4,Inf,7\n", 2, "median_us"},
		{"empty", "", 0, ""},
		{"header only", cpuHeader, 0, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseCPUExpert(strings.NewReader(c.body), "cpu_expert.csv")
			var de *DataError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want a *DataError", err)
			}
			if de.File != "cpu_expert.csv" || de.Line != c.line || de.Column != c.column {
				t.Errorf("got %s (line %d, column %q), want line %d column %q", err, de.Line, de.Column, c.line, c.column)
			}
			if c.line > 0 && !strings.Contains(err.Error(), "cpu_expert.csv:") {
				t.Errorf("%q does not name file:line", err)
			}
		})
	}
}

func TestMalformedH2DRefused(t *testing.T) {
	cases := []struct {
		name, body string
		line       int
		column     string
	}{
		{"bad pinned", "pinned,MB,median_us,GBps\nmaybe,1,26.8,37\n", 2, "pinned"},
		{"zero size", "pinned,MB,median_us\nTrue,0,26.8\n", 2, "MB"},
		{"duplicate", "pinned,MB,median_us\nTrue,1,26.8\nFalse,1,30\ntrue,1,27\n", 4, ""},
		{"nan time", "pinned,MB,median_us\nTrue,1,NaN\n", 2, "median_us"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseH2D(strings.NewReader(c.body), "h2d.csv")
			var de *DataError
			if !errors.As(err, &de) || de.Line != c.line || de.Column != c.column {
				t.Fatalf("err = %v, want a DataError at line %d column %q", err, c.line, c.column)
			}
		})
	}
}

func TestProfileNeedsTwoThreadCounts(t *testing.T) {
	fsys := fakeFS(cpuHeader+"1,1,8,5,4,6,7\n", "pinned,MB,median_us\nTrue,1,26\nTrue,8,150\nFalse,1,98\nFalse,8,640\n")
	_, err := LoadHostProfile(fsys, "fake", testShape)
	var de *DataError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "batch 1 has 1 thread count") {
		t.Fatalf("err = %v", err)
	}
}
