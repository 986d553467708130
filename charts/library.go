package charts

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/base64"
	"html/template"
	"strings"
	"sync"
)

// LibraryVersion is the version of the embedded ECharts library.
const LibraryVersion = "5.6.0"

//go:embed assets/echarts.min.js
var echartsMinJS string

//go:embed assets/LICENSE
var echartsLicense string

// LibraryJS returns the embedded echarts.min.js, unchanged.
func LibraryJS() string { return echartsMinJS }

// LibraryLicense returns the Apache-2.0 license text that comes with the embedded library.
func LibraryLicense() string { return echartsLicense }

// libraryHTML is built once, on first use rather than at package init, where compressing
// the 1 MB library would cost every dashlab process CPU, charts or not.
//
// The library travels gzip-compressed and base64-encoded (about 0.45 MB instead of
// 1.03 MB: a saved notebook carries it once, in the cell that shows it) and is unpacked by
// the browser's DecompressionStream, then run as an inline script. Chart scripts that run
// before it is unpacked wait in window.dashlabEChartsQueue (see chartHTML); where it cannot
// be unpacked (no DecompressionStream, scripts off) every chart keeps its static image.
//
// The library is wrapped so that it always defines the global `echarts`, even on a page
// that loads RequireJS (nbconvert's HTML does): the UMD header of echarts.min.js registers
// an anonymous AMD module instead of the global when it sees `define.amd`, and then
// `echarts.init` in the chart scripts fails. Shadowing define, module and exports with
// undefined parameters makes it take the global branch.
var libraryHTML = sync.OnceValue(func() template.HTML {
	return template.HTML(`<script type="text/javascript" data-dashlab-echarts="` + LibraryVersion + `">(function () {` + "\n" +
		`if (window.echarts || window.dashlabEChartsQueue) { return; }` + "\n" +
		// A page loaded to be printed shows the static images only (see chartHTML).
		`if (window.matchMedia && window.matchMedia("print").matches) { return; }` + "\n" +
		`var queue = window.dashlabEChartsQueue = [];` + "\n" +
		`var packed = "` + libraryGzipBase64() + `";` + "\n" +
		`if (typeof DecompressionStream === "undefined") { return; }` + "\n" +
		`var bin = atob(packed), bytes = new Uint8Array(bin.length);` + "\n" +
		`for (var i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }` + "\n" +
		`new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text().then(function (src) {` + "\n" +
		`  var s = document.createElement("script");` + "\n" +
		`  s.text = "(function(define,module,exports){\n" + src + "\n}).call(window);";` + "\n" +
		`  document.head.appendChild(s);` + "\n" +
		`  window.dashlabEChartsQueue = { push: function (draw) { draw(window.echarts); } };` + "\n" +
		`  queue.forEach(function (draw) { try { draw(window.echarts); } catch (e) { console.error(e); } });` + "\n" +
		`});` + "\n" +
		`})();</script>`)
})

// libraryGzipBase64 is the library, gzip-compressed (best compression) and base64-encoded.
func libraryGzipBase64() string {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		panic(err) // only for an invalid level
	}
	zw.Write([]byte(echartsMinJS)) //nolint:errcheck // a bytes.Buffer does not fail
	zw.Close()                     //nolint:errcheck
	return base64.StdEncoding.EncodeToString(buf.Bytes())
}

// LibraryHTML returns the ECharts library as one inline <script> element, compressed
// (see libraryHTML). Put it on a page, or display it in a notebook, once, before the
// first chart snippet.
func LibraryHTML() template.HTML { return libraryHTML() }

// escapeInlineScript keeps JavaScript from ending or confusing the <script> element it is
// inlined in: "</script" and "<!--" can only occur inside string literals, regular
// expressions or comments, where "<\/script" and "\x3C!--" mean the same thing.
func escapeInlineScript(js string) string {
	if !strings.Contains(js, "<") {
		return js
	}
	var b strings.Builder
	b.Grow(len(js))
	for i := 0; i < len(js); i++ {
		if js[i] == '<' {
			rest := js[i+1:]
			if len(rest) >= 7 && rest[0] == '/' && strings.EqualFold(rest[1:7], "script") {
				b.WriteString(`<\/`)
				i++ // skip the '/'
				continue
			}
			if strings.HasPrefix(rest, "!--") {
				b.WriteString(`\x3C!--`)
				i += 3
				continue
			}
		}
		b.WriteByte(js[i])
	}
	return b.String()
}

// NotebookStyle is the CSS a notebook page needs beside the charts: in the HTML pages
// that nbconvert exports (docker/run-notebooks.sh), long code lines and text outputs wrap
// instead of being cut at the page's right edge. It selects only nbconvert's exported
// markup, so a live Jupyter front-end is unchanged. nb.Library shows it with the library.
const NotebookStyle = template.HTML(`<style>
.jp-InputArea-editor .highlight pre, .jp-RenderedText pre { white-space: pre-wrap; overflow-wrap: anywhere; }
` + PrintStyle + `
</style>`)

// PrintStyle is the CSS rule that prints every chart as its static image (vector SVG)
// instead of its interactive canvas: a PDF export (nbconvert's webpdf) or a printed
// report shows the same drawing whether or not the page's scripts ran. Page and
// NotebookStyle carry it. A chart is printed at the page's width.
const PrintStyle = `@media print { .dashlab-chart { width: auto !important; height: auto !important; max-width: 100%; } .dashlab-chart > .dashlab-live { display: none !important; } .dashlab-chart > img.dashlab-static { display: block !important; width: 100% !important; height: auto !important; } }`
