package charts

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"regexp"
	"strings"
	"sync"
)

// SliderAxis is one slider of precomputed states: its name and the labels of its
// positions, in order.
type SliderAxis struct {
	Name   string
	Labels []string
}

var staticImgTagRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<img class="dashlab-static" [^>]*>`) })

// WithoutStatic drops the static images from HTML made by this package: what is left of
// each chart is its element and the script that draws it (the states of SliderStates,
// which would otherwise carry an image each).
func WithoutStatic(h template.HTML) template.HTML {
	return template.HTML(staticImgTagRE().ReplaceAllString(string(h), ""))
}

// SliderStates is one output holding sliders over precomputed states: one range input
// per axis, the view (the HTML of the starting positions, start, with its static images:
// what a page without scripts shows) and every state's HTML, gzip-compressed and
// base64-encoded in the page, switched by a few lines of script as the sliders move (the
// browser's DecompressionStream unpacks them on the first move; no kernel is involved).
// states[k] is the HTML at positions k in mixed radix, the last axis fastest. The
// bundle's image and text are those of the view's first chart, wherever it is nested.
func SliderStates(id string, view template.HTML, axes []SliderAxis, start []int, states []string) (Bundle, error) {
	n := 1
	for _, a := range axes {
		n *= max(len(a.Labels), 1)
	}
	if n != len(states) || len(start) != len(axes) {
		return Bundle{}, fmt.Errorf("charts: SliderStates %q: %d states for %d positions, %d starts for %d axes", id, len(states), n, len(start), len(axes))
	}
	k0 := 0
	for i, a := range axes {
		k0 = k0*max(len(a.Labels), 1) + start[i]
	}
	raw, err := json.Marshal(states)
	if err != nil {
		return Bundle{}, err
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(raw) //nolint:errcheck // a bytes.Buffer does not fail
	zw.Close()    //nolint:errcheck
	lens := make([]int, len(axes))
	labels := make([][]string, len(axes))
	for i, a := range axes {
		lens[i], labels[i] = len(a.Labels), a.Labels
	}
	lensJS, _ := json.Marshal(lens)
	labelsJS, _ := json.Marshal(labels)
	esc := template.HTMLEscapeString
	var b strings.Builder
	fmt.Fprintf(&b, `<div class="dashlab-states" id="%s" data-state="%d" data-states="%d">`, esc(SanitizeID(id)+"_states"), k0, n)
	b.WriteString(`<div class="dashlab-sliders" style="font-family:sans-serif;font-size:13px;color:#3c4043;max-width:900px">`)
	for i, a := range axes {
		fmt.Fprintf(&b, `<div style="display:flex;align-items:center;gap:8px;margin:4px 0"><span style="min-width:110px">%s</span>`+
			`<input type="range" min="0" max="%d" step="1" value="%d" data-axis="%d" style="flex:1;max-width:420px">`+
			`<span class="dashlab-slider-value" style="min-width:90px"><b>%s</b></span></div>`,
			esc(a.Name), max(len(a.Labels)-1, 0), start[i], i, esc(a.Labels[start[i]]))
	}
	b.WriteString(`</div><div class="dashlab-state-view">`)
	b.WriteString(string(view))
	b.WriteString(`</div><script type="text/javascript">(function () {` + "\n")
	b.WriteString(`var root = document.currentScript && document.currentScript.parentElement; if (!root) { return; }` + "\n")
	fmt.Fprintf(&b, "var packed = %q, lens = %s, labels = %s, states = null;\n", base64.StdEncoding.EncodeToString(buf.Bytes()), lensJS, labelsJS)
	b.WriteString(`var view = root.querySelector(".dashlab-state-view"), inputs = root.querySelectorAll(".dashlab-sliders input");
function unpack() {
  if (states) { return Promise.resolve(states); }
  var bin = atob(packed), bytes = new Uint8Array(bin.length);
  for (var i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }
  return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text()
    .then(function (t) { states = JSON.parse(t); return states; });
}
function show() {
  var k = 0;
  inputs.forEach(function (inp, i) {
    k = k * lens[i] + Number(inp.value);
    inp.parentElement.querySelector(".dashlab-slider-value").innerHTML = "<b></b>";
    inp.parentElement.querySelector(".dashlab-slider-value b").textContent = labels[i][Number(inp.value)];
  });
  unpack().then(function (s) {
    view.innerHTML = s[k];
    view.querySelectorAll("script").forEach(function (old) {
      var n = document.createElement("script"); n.text = old.text; old.parentNode.replaceChild(n, old);
    });
    root.setAttribute("data-state", String(k));
  });
}
if (typeof DecompressionStream === "undefined") { return; }
inputs.forEach(function (inp) { inp.addEventListener("input", show); });
})();</script></div>`)
	// The view's first static image, top level or nested in a figure (a figure of several
	// charts under sliders, as notebook 02's route timelines: Bundles does not split it).
	first := chartBundle(string(view))
	return Bundle{HTML: template.HTML(b.String()), SVG: first.SVG, Text: first.Text}, nil
}
