package charts

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-echarts/go-echarts/v2/render"
)

// Chart is what Snippet renders: every go-echarts chart (*charts.Bar, *charts.Line, ...)
// and anything else with go-echarts' RenderSnippet method.
type Chart interface {
	RenderSnippet() render.ChartSnippet
}

// jsonOption is implemented by go-echarts charts; it is used to report why an option
// could not be encoded (go-echarts itself drops the error and emits an empty option).
type jsonOption interface {
	JSON() map[string]interface{}
}

var (
	// The chart element of go-echarts v2.6.7's base_element template.
	elementRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`<div class="item" id="([A-Za-z0-9_]+)" style="([^"]*)"></div>`)
	})
	// The opening tag of its base_script template.
	scriptOpenRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^<script type="text/javascript">`) })
)

// Snippet renders one chart as HTML: a <div class="dashlab-chart"> element holding the
// chart's static image (StaticOf: an <img> of its SVG, drawn by ECharts without a
// browser), followed by the <script> that replaces the image with the interactive chart,
// without the ECharts library (see LibraryHTML). Where scripts do not run (an untrusted
// notebook, an exported page with JavaScript off, a viewer that strips scripts, a PDF)
// the image stays; if the library never comes, the image stays and the element says why
// (data-dashlab-error).
//
// DASHLAB_STATIC=0 in the environment leaves the static image out (it is there to measure
// what the images cost; a page made so is blank where scripts do not run).
//
// It never panics: a panic inside go-echarts (its templates panic on errors, a chart that
// was not made with its New... constructor panics too) comes back as an error, and so does
// an option that cannot be encoded as JSON (NaN or ±Inf in the data, for example).
func Snippet(c Chart) (template.HTML, error) {
	p, err := snippetParts(c)
	if err != nil {
		return "", err
	}
	if os.Getenv("DASHLAB_STATIC") == "0" || interactiveOnly.Load() > 0 { // measuring what the images cost; InteractiveOnly
		return template.HTML(chartHTML(p.id, p.style, p.body, nil)), nil
	}
	st, err := drawStatic(p.body, p.style)
	if err != nil {
		return "", err
	}
	return template.HTML(chartHTML(p.id, p.style, p.body, &st)), nil
}

// interactiveOnly counts the InteractiveOnly calls under way.
var interactiveOnly atomic.Int32

// InteractiveOnly runs f with the static images turned off: every chart that Snippet,
// Render and the figure functions make while f runs is its element and its script only,
// drawn at no cost in the static renderer. nb.Redraw draws its precomputed slider states
// so: a page shows one static image for them all, the one at the notebook's values.
// The switch is the process's (the charts that other goroutines draw meanwhile have no
// image either), as DASHLAB_STATIC=0 is.
func InteractiveOnly(f func() (template.HTML, error)) (template.HTML, error) {
	interactiveOnly.Add(1)
	defer interactiveOnly.Add(-1)
	return f()
}

// InteractiveSnippet is Snippet without the static image: the element and its script
// only (the states of a precomputed slider, which show one static image for all).
func InteractiveSnippet(c Chart) (template.HTML, error) {
	p, err := snippetParts(c)
	if err != nil {
		return "", err
	}
	return template.HTML(chartHTML(p.id, p.style, p.body, nil)), nil
}

// parts are a go-echarts chart's element id and style, and its script's body.
type parts struct{ id, style, body string }

// snippetParts renders a chart with go-echarts and takes its snippet apart.
func snippetParts(c Chart) (out parts, err error) {
	if c == nil {
		return parts{}, errors.New("charts: Snippet of a nil chart")
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = parts{}, fmt.Errorf("charts: rendering the chart failed: %v", r)
		}
	}()
	s := c.RenderSnippet()
	if strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s.Option), ";")) == "" {
		cause := "empty option"
		if j, ok := c.(jsonOption); ok {
			if _, jerr := json.Marshal(j.JSON()); jerr != nil {
				cause = jerr.Error()
			}
		}
		return parts{}, fmt.Errorf("charts: the chart's option could not be encoded as JSON (NaN or Inf in the data?): %s", cause)
	}
	m := elementRE().FindStringSubmatch(s.Element)
	if m == nil {
		return parts{}, fmt.Errorf("charts: unexpected go-echarts element %.200q (chart IDs may use only letters, digits and _)", s.Element)
	}
	id, style := m[1], html.UnescapeString(m[2])
	script := strings.TrimSpace(s.Script)
	if !scriptOpenRE().MatchString(script) || !strings.HasSuffix(script, "</script>") {
		return parts{}, fmt.Errorf("charts: unexpected go-echarts script %.200q", script)
	}
	body := strings.TrimSuffix(scriptOpenRE().ReplaceAllString(script, ""), "</script>")
	return parts{id, style, body}, nil
}

// chartHTML wraps a go-echarts script body (which declares `let goecharts_ID`) in a
// function, so that showing the same output twice in one page (a notebook re-rendering a
// cell) does not redeclare globals, and runs it once the library is there: at once when
// it is, after it has loaded when its loader is still at work (LibraryHTML decompresses
// it), never when neither (then the static image stays and the element says why).
func chartHTML(id, style, body string, st *Static) string {
	idJS, _ := json.Marshal(id)
	var b strings.Builder
	// The margin keeps a chart's legend (at its bottom edge) apart from the title of the
	// chart below it, in a page and in a notebook alike.
	style = strings.TrimSuffix(strings.TrimSpace(style), ";") + ";margin:8px 0 28px"
	fmt.Fprintf(&b, `<div class="dashlab-chart" id="%s" style="%s">`, template.HTMLEscapeString(id), template.HTMLEscapeString(style))
	if st != nil {
		b.WriteString(staticImg(*st, style))
	}
	b.WriteString("</div>\n")
	b.WriteString(`<script type="text/javascript">(function () {` + "\n")
	fmt.Fprintf(&b, `var el = document.getElementById(%s);`+"\n", idJS)
	b.WriteString(`if (!el) { return; }` + "\n")
	// The interactive chart draws into a child element of the chart's size; the static
	// image stays in the element, hidden on screen and shown in print (PrintStyle), where
	// its vectors print sharper than the canvas.
	b.WriteString(`var draw = function (echarts) {` + "\n" +
		`var live = document.createElement("div"); live.className = "dashlab-live";` + "\n" +
		`live.style.width = el.style.width; live.style.height = el.style.height;` + "\n" +
		`var img = el.querySelector("img.dashlab-static"); if (img) { img.style.display = "none"; }` + "\n" +
		`el.appendChild(live);` + "\n" +
		`(function (document) {` + "\n")
	b.WriteString(escapeInlineScript(body))
	b.WriteString("\n})({ getElementById: function () { return live; } });\n};\n")
	// A page still being parsed (an exported report) draws its charts once it has been
	// read whole: drawn here, each chart held the parser up, and nbconvert's webpdf, which
	// prints when the network is idle, printed the page cut after the charts drawn so far.
	// A page loaded to be printed (nbconvert's webpdf emulates print media before it
	// loads the page) prints the static images (PrintStyle) and draws nothing: drawn, the
	// charts and the library's unpacking kept the page busy while webpdf, which prints 100 ms
	// after the network is idle, printed it, and the PDF was cut after the charts drawn so
	// far (CI, 2026-12-02: 2 of 5 exports of notebook 05 cut, 5 and 10 of 11 charts).
	b.WriteString(`var go = function () {` + "\n" +
		`if (window.matchMedia && window.matchMedia("print").matches) { return; }` + "\n" +
		`if (typeof echarts !== "undefined") { draw(echarts); }` + "\n" +
		`else if (window.dashlabEChartsQueue) { window.dashlabEChartsQueue.push(draw); }` + "\n" +
		`else { el.setAttribute("data-dashlab-error", "echarts library not loaded"); el.title = ` +
		`"Static image: the ECharts library is not on this page (in a notebook, run the cell that shows charts.LibraryHTML() first)"; }` + "\n" +
		`};` + "\n" +
		`if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", go); } else { go(); }` + "\n")
	b.WriteString("})();</script>")
	return b.String()
}

// staticImg is the static image of a chart as an <img> with the SVG inline as a data URI
// (kept by the sanitizers of untrusted notebooks, which drop <svg> elements), its text
// line as the alternative text, at the element's size.
func staticImg(st Static, style string) string {
	w, h := chartSize(style)
	return fmt.Sprintf(`<img class="dashlab-static" alt="%s" width="%d" height="%d" style="display:block;max-width:100%%;height:auto" src="data:image/svg+xml;base64,%s">`,
		template.HTMLEscapeString(st.Text), w, h, base64.StdEncoding.EncodeToString([]byte(st.SVG)))
}

// Render is Snippet for a builder's results: it passes a builder's error on and renders
// the chart otherwise, so that a notebook cell can write
//
//	show(charts.Render(charts.GroupedBar(spec)))
func Render[C Chart](c C, err error) (template.HTML, error) {
	if err != nil {
		return "", err
	}
	return Snippet(c)
}
