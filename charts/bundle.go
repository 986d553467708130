package charts

import (
	"encoding/base64"
	"html"
	"html/template"
	"regexp"
	"strings"
	"sync"
)

// Bundle is one output of a notebook cell, as Jupyter's MIME bundles carry it: HTML and,
// for a chart, the chart's static SVG (image/svg+xml, for front-ends and converters that
// prefer an image) and a one-line description (text/plain, for those that show text
// only). The HTML of a chart carries the same SVG as its fallback image (see Snippet).
type Bundle struct {
	HTML template.HTML
	SVG  string // "" when the output is not a chart
	Text string // "" when the output is not a chart
}

var (
	// A chart as chartHTML writes it: its element, then its script (whose body cannot hold
	// "</script": escapeInlineScript).
	chartRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)<div class="dashlab-chart" id="[^"]*"[^>]*>.*?</div>\s*<script type="text/javascript">.*?</script>`)
	})
	staticImgRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`<img class="dashlab-static" alt="([^"]*)"[^>]*src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]*)">`)
	})
)

// Bundles splits HTML made by this package (a chart, a figure's parts, a table, a page
// fragment) into notebook outputs: each chart its own bundle, with its SVG and text line,
// and the HTML between charts as bundles of HTML alone. Text that is only white space is
// dropped. HTML in which a chart is nested in an element (Figure.HTML's wrapper) is one
// bundle: use Figure.Parts to show a figure's charts as bundles.
func Bundles(h template.HTML) []Bundle {
	s := string(h)
	var out []Bundle
	plain := func(t string) {
		if strings.TrimSpace(t) != "" {
			out = append(out, Bundle{HTML: template.HTML(t)})
		}
	}
	if !topLevelCharts(s) {
		plain(s)
		return out
	}
	last := 0
	for _, loc := range chartRE().FindAllStringIndex(s, -1) {
		plain(s[last:loc[0]])
		out = append(out, chartBundle(s[loc[0]:loc[1]]))
		last = loc[1]
	}
	plain(s[last:])
	return out
}

// topLevelCharts reports whether every chart in s stands outside any other element (no
// element is open where one starts), so that cutting s at the charts keeps it well formed.
func topLevelCharts(s string) bool {
	last := 0
	for _, loc := range chartRE().FindAllStringIndex(s, -1) {
		seg := s[last:loc[0]]
		if strings.Count(seg, "<div") != strings.Count(seg, "</div>") ||
			strings.Count(seg, "<table") != strings.Count(seg, "</table>") {
			return false
		}
		last = loc[1]
	}
	return true
}

// chartBundle is the bundle of one chart's HTML.
func chartBundle(h string) Bundle {
	b := Bundle{HTML: template.HTML(h)}
	if m := staticImgRE().FindStringSubmatch(h); m != nil {
		if svg, err := base64.StdEncoding.DecodeString(m[2]); err == nil {
			b.SVG = string(svg)
		}
		b.Text = html.UnescapeString(m[1])
	}
	return b
}
