package charts

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"regexp"
	"strings"
	"sync"

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

// Snippet renders one chart as HTML: a <div class="dashlab-chart"> element followed by
// the <script> that draws it, without the ECharts library (see LibraryHTML). If the
// library is not on the page when the script runs, the element shows a message saying so
// instead of staying blank.
//
// It never panics: a panic inside go-echarts (its templates panic on errors, a chart that
// was not made with its New... constructor panics too) comes back as an error, and so does
// an option that cannot be encoded as JSON (NaN or ±Inf in the data, for example).
func Snippet(c Chart) (out template.HTML, err error) {
	if c == nil {
		return "", errors.New("charts: Snippet of a nil chart")
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("charts: rendering the chart failed: %v", r)
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
		return "", fmt.Errorf("charts: the chart's option could not be encoded as JSON (NaN or Inf in the data?): %s", cause)
	}
	m := elementRE().FindStringSubmatch(s.Element)
	if m == nil {
		return "", fmt.Errorf("charts: unexpected go-echarts element %.200q (chart IDs may use only letters, digits and _)", s.Element)
	}
	id, style := m[1], html.UnescapeString(m[2])
	script := strings.TrimSpace(s.Script)
	if !scriptOpenRE().MatchString(script) || !strings.HasSuffix(script, "</script>") {
		return "", fmt.Errorf("charts: unexpected go-echarts script %.200q", script)
	}
	body := strings.TrimSuffix(scriptOpenRE().ReplaceAllString(script, ""), "</script>")
	return template.HTML(chartHTML(id, style, body)), nil
}

// chartHTML wraps a go-echarts script body (which declares `let goecharts_ID`) in a
// function, so that showing the same output twice in one page (a notebook re-rendering a
// cell) does not redeclare globals, and guards it against a missing library.
func chartHTML(id, style, body string) string {
	idJS, _ := json.Marshal(id)
	var b strings.Builder
	// The margin keeps a chart's legend (at its bottom edge) apart from the title of the
	// chart below it, in a page and in a notebook alike.
	style = strings.TrimSuffix(strings.TrimSpace(style), ";") + ";margin:8px 0 28px"
	fmt.Fprintf(&b, `<div class="dashlab-chart" id="%s" style="%s"></div>`+"\n", template.HTMLEscapeString(id), template.HTMLEscapeString(style))
	b.WriteString(`<script type="text/javascript">(function () {` + "\n")
	fmt.Fprintf(&b, `var el = document.getElementById(%s);`+"\n", idJS)
	b.WriteString(`if (!el) { return; }` + "\n")
	b.WriteString(`if (typeof echarts === "undefined") {` + "\n" +
		`  el.setAttribute("data-dashlab-error", "echarts library not loaded");` + "\n" +
		`  el.innerHTML = '<p style="color:#a50e0e;background:#fce8e6;padding:8px;font-family:sans-serif">` +
		`Chart not drawn: the ECharts library is not on this page. In a notebook, run the cell that shows charts.LibraryHTML() first.</p>';` + "\n" +
		`  return;` + "\n" + `}` + "\n")
	b.WriteString(escapeInlineScript(body))
	b.WriteString("\n})();</script>")
	return b.String()
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
