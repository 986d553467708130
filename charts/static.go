package charts

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// Static drawings: the same ECharts option that the interactive chart draws, rendered to
// SVG by ECharts itself (its server-side renderer: no DOM, no browser, no network) inside
// goja, a JavaScript engine written in Go. One runtime per process, loaded with the
// embedded library on the first drawing (about 0.2 to 0.4 s of CPU) and reused for every
// chart after it (60 ms of CPU for a small bar chart, BenchmarkStaticOf, up to about 0.9 s
// for one of thousands of points); a mutex serializes the drawings, since a goja runtime
// is not safe for concurrent use. (A page's charts drawn on one runtime per CPU were
// measured and not kept: under reproduce's 150 MB heap limit the runtimes' garbage made
// the collector run so often that six groups' report took 8.4 s of CPU instead of 3.3,
// and 4.9 s of wall time instead of 2.9.)

// Static is a chart drawn without a browser: its SVG, and a one-line text description
// (the title, the kind of chart and its series) for front-ends that show only text.
type Static struct {
	SVG  string
	Text string
}

// StaticStats counts the drawings of this process and the CPU-bound time they took (the
// library's loading apart), for the cost reports of the notebooks and the tests.
type StaticStats struct {
	Charts  int
	Load    time.Duration // loading the library into the runtime (once), wall time
	Draw    time.Duration // drawing the charts, all together, wall time
	LoadCPU time.Duration // the same as CPU time of the drawing thread (Linux; 0 elsewhere)
	DrawCPU time.Duration
}

var ssr struct {
	sync.Mutex
	vm    *goja.Runtime
	err   error
	stats StaticStats
}

// ssrPrelude gives the library what a browser would: no-op timers (goja has none; the
// library calls them while it loads) and a console.
const ssrPrelude = `var window = this, self = this;
var setTimeout = function () { return 0; }, clearTimeout = function () {};
var setInterval = function () { return 0; }, clearInterval = function () {};
var requestAnimationFrame = function () { return 0; }, cancelAnimationFrame = function () {};
var console = { log: function () {}, warn: function () {}, error: function () {}, info: function () {} };
`

// ssrDraw runs a chart script of go-echarts (its body: "let goecharts_ID =
// echarts.init(...); let option_ID = {...}; goecharts_ID.setOption(option_ID); ...") with
// echarts.init replaced by a server-side one of the given size and animations off, and
// returns the SVG and the text line.
const ssrDraw = `(function (body, width, height) {
  var inst = null;
  var realInit = echarts.init;
  var fake = {
    init: function (el, theme) {
      inst = realInit(null, theme, { renderer: 'svg', ssr: true, width: width, height: height });
      var set = inst.setOption;
      inst.setOption = function (o, a, b) {
        if (o && typeof o === 'object') {
          o = Object.assign({}, o, { animation: false, toolbox: { show: false } });
          // A line of many points is drawn at the image's resolution (largest-triangle
          // downsampling, as ECharts does on screen with sampling: 'lttb'): the same
          // picture in a fraction of the SVG.
          if (Array.isArray(o.series)) {
            o.series = o.series.map(function (s) {
              if (s && s.type === 'line' && Array.isArray(s.data) && s.data.length > width) {
                return Object.assign({}, s, { sampling: s.sampling || 'lttb', showSymbol: false });
              }
              return s;
            });
          }
        }
        return set.call(inst, o, a, b);
      };
      return inst;
    }
  };
  var document = { getElementById: function () { return null; } };
  try {
    new Function('echarts', 'document', body)(Object.assign(Object.create(echarts), fake), document);
    if (!inst) { throw new Error('the chart script did not initialise a chart'); }
    var svg = inst.renderToSVGString();
    var opt = inst.getOption();
    var title = (opt.title && opt.title[0] && opt.title[0].text) || '';
    var kinds = {}, names = [];
    (opt.series || []).forEach(function (s) {
      kinds[s.type] = true;
      if (s.name && names.indexOf(s.name) < 0) { names.push(s.name); }
    });
    return [svg, title, Object.keys(kinds).join('/'), String((opt.series || []).length), names.join(', ')];
  } finally {
    if (inst) { inst.dispose(); }
  }
})`

var (
	// go-echarts' script body, from its base_script template, without the opening tag.
	useStrictRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\s*"use strict";`) })
	// zrender's ids and class names count up across the charts of a runtime ("zr3-cls-17").
	zrIDRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`zr[0-9]+-([a-z]+)(-?)([0-9]+)`) })
	sizeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:^|;)\s*(width|height)\s*:\s*([0-9.]+)px`) })
)

// loadSSR makes the runtime (held under ssr's lock).
func loadSSR() error {
	if ssr.vm != nil || ssr.err != nil {
		return ssr.err
	}
	t0 := time.Now()
	cpu := threadCPU()
	defer func() { ssr.stats.LoadCPU += cpu() }()
	vm := goja.New()
	if _, err := vm.RunString(ssrPrelude); err != nil {
		ssr.err = fmt.Errorf("charts: static renderer prelude: %w", err)
		return ssr.err
	}
	if _, err := vm.RunScript("echarts.min.js", echartsMinJS); err != nil {
		ssr.err = fmt.Errorf("charts: loading ECharts into the static renderer: %w", err)
		return ssr.err
	}
	if _, err := vm.RunString("var __dashlabDraw = " + ssrDraw + ";"); err != nil {
		ssr.err = fmt.Errorf("charts: static renderer: %w", err)
		return ssr.err
	}
	ssr.vm = vm
	ssr.stats.Load = time.Since(t0)
	return nil
}

// StaticStatsSoFar returns what this process's static drawings have cost so far.
func StaticStatsSoFar() StaticStats {
	ssr.Lock()
	defer ssr.Unlock()
	return ssr.stats
}

// logStats appends this process's totals so far to the file named by DASHLAB_STATIC_LOG,
// when set ("pid charts load_ms draw_ms load_cpu_ms draw_cpu_ms" a line, wall then CPU
// time; a process's last line is its total):
// how docker/README.md measures what the static images cost a notebook, cell by cell.
func logStats() {
	path := os.Getenv("DASHLAB_STATIC_LOG")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "%d %d %.1f %.1f %.1f %.1f\n", os.Getpid(), ssr.stats.Charts, ssr.stats.Load.Seconds()*1e3, ssr.stats.Draw.Seconds()*1e3,
		ssr.stats.LoadCPU.Seconds()*1e3, ssr.stats.DrawCPU.Seconds()*1e3)
}

// chartSize reads a chart element's width and height in px from its style ("width:900px;
// height:500px"); defaults for what is not in px.
func chartSize(style string) (w, h int) {
	w, h = 900, 500
	for _, m := range sizeRE().FindAllStringSubmatch(style, -1) {
		v, err := strconv.ParseFloat(m[2], 64)
		if err != nil || v <= 0 {
			continue
		}
		if m[1] == "width" {
			w = int(v + 0.5)
		} else {
			h = int(v + 0.5)
		}
	}
	return w, h
}

// drawStatic draws a go-echarts script body (see Snippet) at the element's size.
func drawStatic(body, style string) (Static, error) {
	w, h := chartSize(style)
	ssr.Lock()
	defer ssr.Unlock()
	if err := loadSSR(); err != nil {
		return Static{}, err
	}
	t0 := time.Now()
	cpu := threadCPU()
	draw, ok := goja.AssertFunction(ssr.vm.Get("__dashlabDraw"))
	if !ok {
		return Static{}, errors.New("charts: static renderer not loaded")
	}
	body = useStrictRE().ReplaceAllString(body, "")
	v, err := draw(goja.Undefined(), ssr.vm.ToValue(body), ssr.vm.ToValue(w), ssr.vm.ToValue(h))
	ssr.stats.Draw += time.Since(t0)
	ssr.stats.DrawCPU += cpu()
	if err != nil {
		return Static{}, fmt.Errorf("charts: drawing the static image: %w", err)
	}
	var parts []string
	if err := ssr.vm.ExportTo(v, &parts); err != nil || len(parts) != 5 {
		return Static{}, fmt.Errorf("charts: the static renderer returned %v", v)
	}
	ssr.stats.Charts++
	logStats()
	return Static{SVG: stableIDs(parts[0]), Text: textLine(parts[1], parts[2], parts[3], parts[4])}, nil
}

// stableIDs renumbers zrender's ids and class names in the order they first appear
// ("zr0-cls-0", "zr0-cls-1", ...), so that a chart draws to the same SVG, byte for byte,
// whichever charts the process drew before it.
func stableIDs(svg string) string {
	seen := map[string]string{}
	next := map[string]int{}
	return zrIDRE().ReplaceAllStringFunc(svg, func(id string) string {
		if s, ok := seen[id]; ok {
			return s
		}
		m := zrIDRE().FindStringSubmatch(id)
		s := fmt.Sprintf("zr0-%s%s%d", m[1], m[2], next[m[1]])
		next[m[1]]++
		seen[id] = s
		return s
	})
}

// textLine is the one-line text/plain of a chart: `Chart "Title" (bar, 3 series: a, b, c)`.
func textLine(title, kinds, n, names string) string {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		title = "untitled"
	}
	s := fmt.Sprintf("Chart %q (%s, %s series", title, kinds, n)
	if names != "" {
		s += ": " + names
	}
	return s + ")"
}

// StaticOf draws a chart without a browser (see Static).
func StaticOf(c Chart) (Static, error) {
	p, err := snippetParts(c)
	if err != nil {
		return Static{}, err
	}
	return drawStatic(p.body, p.style)
}
