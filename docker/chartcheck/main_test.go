package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestInject(t *testing.T) {
	page := []byte("<!DOCTYPE html><html><HEAD lang=x><title>t</title></HEAD><body><p>x</p></body>\n</BODY></html>")
	out := string(inject(page, 500, 2500))
	if i, j := strings.Index(out, "<HEAD lang=x>"), strings.Index(out, "__dashlabErrors=[]"); i < 0 || j != i+len("<HEAD lang=x>")+len("<script>window.") {
		t.Errorf("head probe not right after <head>: %s", out)
	}
	if i, j := strings.Index(out, "DASHLAB_CHARTCHECK_BEGIN"), strings.LastIndex(out, "</BODY>"); i < 0 || i > j {
		t.Errorf("body probe not before the last </body>")
	}
	if !strings.Contains(out, "r.painted<500") || !strings.Contains(out, "var d=2500;") {
		t.Error("thresholds not filled in")
	}
	// A fragment without head or body still gets both probes.
	out = string(inject([]byte("<div>x</div>"), 1, 1))
	if !strings.HasPrefix(out, "<script>window.__dashlabErrors") || !strings.HasSuffix(out, "})();</script>") {
		t.Errorf("fragment: %s", out)
	}
}

func TestParseVerdict(t *testing.T) {
	dom := []byte(`<html><body><pre id="dashlab-chartcheck">` + beginMark +
		`{"echarts":"5.6.0","charts":[{"id":"a","canvases":1,"w":900,"h":480,"painted":1234,"error":"","ok":true},` +
		`{"id":"b&amp;c","canvases":0,"w":0,"h":0,"painted":0,"error":"no canvas","ok":false}],"errors":["x &lt; y"]}` +
		endMark + `</pre></body></html>`)
	v, err := parseVerdict(dom)
	if err != nil {
		t.Fatal(err)
	}
	if v.ECharts != "5.6.0" || len(v.Charts) != 2 || !v.Charts[0].OK || v.Charts[1].OK || v.Charts[1].ID != "b&c" || v.Errors[0] != "x < y" {
		t.Errorf("verdict: %+v", v)
	}
	if _, err := parseVerdict([]byte("<html></html>")); err == nil {
		t.Error("missing verdict accepted")
	}
	if _, err := parseVerdict(bytes.Replace(dom, []byte(endMark), nil, 1)); err == nil {
		t.Error("truncated verdict accepted")
	}
}

func TestDemoPageHasOneLibrary(t *testing.T) {
	p, err := demoPage()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(libraryRE.FindAll(p, -1)); n != 1 {
		t.Errorf("%d libraries", n)
	}
	if stripped := libraryRE.ReplaceAll(p, nil); bytes.Contains(stripped, []byte("data-dashlab-echarts")) || len(stripped) > 100000 {
		t.Errorf("library not removed: %d bytes left", len(stripped))
	}
}

func TestOverlaps(t *testing.T) {
	chart := func(id string, y int, boxes ...Box) ChartResult { return ChartResult{ID: id, Y: y, Boxes: boxes} }
	title := Box{Kind: "title", X: 300, Y: 0, W: 300, H: 30}
	legend := Box{Kind: "legend", X: 100, Y: 440, W: 700, H: 25}
	xAxis := Box{Kind: "xAxis", X: 50, Y: 80, W: 800, H: 340}
	yAxis := Box{Kind: "yAxis", X: 30, Y: 60, W: 820, H: 330}
	good := []ChartResult{chart("a", 0, title, xAxis, yAxis, legend), chart("b", 500, title, xAxis, yAxis, legend)}
	if got := overlaps(good); len(got) != 0 {
		t.Errorf("a clean layout: %v", got)
	}
	onTitle := legend
	onTitle.Y = 10
	if got := overlaps([]ChartResult{chart("a", 0, title, onTitle)}); len(got) != 1 || !strings.Contains(got[0], "title and its legend overlap") {
		t.Errorf("legend on the title: %v", got)
	}
	// The next chart starts 3 px below the legend: its title is too close.
	tight := []ChartResult{chart("a", 0, title, legend), chart("b", 468, title)}
	if got := overlaps(tight); len(got) != 1 || !strings.Contains(got[0], `chart "a"'s legend and chart "b"'s title`) {
		t.Errorf("legend against the next title: %v", got)
	}
}
