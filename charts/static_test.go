package charts

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"regexp"
	"strings"
	"testing"
)

// Every builder's chart draws to SVG without a browser, with its title, axis names and
// series names as text, and a text line naming the chart.
func TestStaticOfBuilders(t *testing.T) {
	for _, tc := range []struct {
		c    Chart
		text []string
		line string
	}{
		{exampleBar(t), []string{"RelayOnly", "DASH", "Batch size", "Throughput (tokens/s)"}, `(bar`},
		{exampleTimeline(t), []string{"expert weights", "Time (µs)"}, `Chart "`},
		{exampleLines(t), []string{"Qwen3"}, `(line`},
		{exampleScatter(t), []string{"TPOT"}, `(scatter`},
	} {
		st, err := StaticOf(tc.c)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(st.SVG, "<svg") || !strings.HasSuffix(strings.TrimSpace(st.SVG), "</svg>") {
			t.Fatalf("not an SVG document: %.120s ... %.40s", st.SVG, st.SVG[max(0, len(st.SVG)-40):])
		}
		for _, s := range tc.text {
			if !strings.Contains(st.SVG, s) {
				t.Errorf("%s: %q not drawn", st.Text, s)
			}
		}
		if !strings.Contains(st.Text, tc.line) || strings.Contains(st.Text, "\n") {
			t.Errorf("text line %q: want one line with %q", st.Text, tc.line)
		}
		// Something is drawn: paths and rectangles beyond the background.
		if n := strings.Count(st.SVG, "<path") + strings.Count(st.SVG, "<rect"); n < 5 {
			t.Errorf("%s: only %d shapes", st.Text, n)
		}
	}
}

// The snippet carries the static image of the same chart, decoded to the SVG StaticOf draws.
func TestSnippetCarriesStaticImage(t *testing.T) {
	c := exampleBar(t)
	h, err := Snippet(c)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<img class="dashlab-static" alt="([^"]*)" width="900" height="480" [^>]*src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)">`).FindStringSubmatch(string(h))
	if m == nil {
		t.Fatalf("no static image in %.300s", h)
	}
	svg, err := base64.StdEncoding.DecodeString(m[2])
	if err != nil {
		t.Fatal(err)
	}
	st, err := StaticOf(c)
	if err != nil {
		t.Fatal(err)
	}
	if string(svg) != st.SVG {
		t.Error("the snippet's image is not the chart's static drawing")
	}
	if !strings.HasPrefix(m[1], "Chart &#34;") {
		t.Errorf("alt text %q", m[1])
	}
}

func BenchmarkStaticOf(b *testing.B) {
	c := exampleBar(b)
	if _, err := StaticOf(c); err != nil { // the library's loading, once
		b.Fatal(err)
	}
	before := StaticStatsSoFar()
	b.ResetTimer()
	for range b.N {
		if _, err := StaticOf(c); err != nil {
			b.Fatal(err)
		}
	}
	after := StaticStatsSoFar()
	b.ReportMetric(float64((after.DrawCPU-before.DrawCPU).Microseconds())/1e3/float64(b.N), "cpu-ms/chart")
	b.ReportMetric(float64(after.LoadCPU.Microseconds())/1e3, "cpu-ms-load")
}

// The library on the page is the embedded one, compressed: unpacked, it is echarts.min.js.
func TestLibraryHTMLUnpacks(t *testing.T) {
	m := regexp.MustCompile(`var packed = "([A-Za-z0-9+/=]+)";`).FindStringSubmatch(string(LibraryHTML()))
	if m == nil {
		t.Fatal("no packed library")
	}
	raw, err := base64.StdEncoding.DecodeString(m[1])
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	js, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if string(js) != LibraryJS() {
		t.Error("the packed library is not echarts.min.js")
	}
	if n := len(LibraryHTML()); n > len(LibraryJS())/2 {
		t.Errorf("library HTML is %d bytes, over half the library's %d", n, len(LibraryJS()))
	}
	t.Logf("library: %d bytes; on the page: %d bytes", len(LibraryJS()), len(LibraryHTML()))
}

// A line of thousands of points draws at the image's resolution (LTTB downsampling), so
// that its static image stays small: 5,000 points in well under 100 KB of SVG (1.09 MB
// point by point).
func TestStaticLargeLineIsSampled(t *testing.T) {
	pts := make([]Point, 5000)
	for i := range pts {
		pts[i] = Point{float64(i), float64(i%97) / 10}
	}
	l, err := Lines(LineSpec{Common: Common{ID: "big"}, Series: []XYSeries{{Name: "s", Points: pts}}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := StaticOf(l)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.SVG) > 100000 || !strings.Contains(st.SVG, "<path") {
		t.Errorf("5,000-point line: %d bytes of SVG", len(st.SVG))
	}
}
