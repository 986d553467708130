// Command chartcheck opens HTML pages in headless Chromium and fails when a chart on
// them is blank or when its title, legend, axes or visual map draw over each other.
//
//	go run ./docker/chartcheck [-min-charts N] [-screenshot DIR] page.html...
//	go run ./docker/chartcheck -selftest
//	go run ./docker/chartcheck -without-library page.html   # negative control: must fail
//
// For each page it writes a copy, with a probe script added, to a temporary folder and
// loads that copy with Debian's chromium (--headless --dump-dom, virtual time). The probe
// waits for the page to load and its animations to end, then looks at every chart
// element (class "dashlab-chart", which the charts package writes, and any element that
// ECharts initialized): a chart passes when it has a canvas with at least -min-pixels
// pixels that differ from the canvas' background. It writes its verdict as JSON into the
// DOM, which --dump-dom prints. The page itself is not modified.
//
// The probe also reads, from each ECharts instance, the laid-out boxes of its title,
// legend, axes and visual map (the component views' bounding rectangles: ECharts keeps
// them on the instance, go-echarts exposes nothing of the layout). A page fails when two
// of a chart's boxes overlap (the two axes excepted), or when a title or legend comes
// within 8 px of another chart's title or legend (a legend sitting on the next chart's
// title).
//
// A page fails when any chart is blank or overlaps, or when it has fewer than -min-charts charts.
// -selftest proves the check both ways: a page made with the charts package must pass,
// the same page without the ECharts library must fail, and so must a page whose chart
// draws nothing and one whose legend lies on its title.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Verdict is what the probe reports.
type Verdict struct {
	ECharts string        `json:"echarts"` // library version seen on the page, "" if none
	Charts  []ChartResult `json:"charts"`
	Errors  []string      `json:"errors"` // JavaScript errors and failed resource loads
}

// ChartResult is the probe's finding for one chart element.
type ChartResult struct {
	ID       string `json:"id"`
	Canvases int    `json:"canvases"`
	Width    int    `json:"w"`
	Height   int    `json:"h"`
	Painted  int    `json:"painted"` // pixels that differ from the background
	Error    string `json:"error"`
	OK       bool   `json:"ok"`
	// X and Y are the chart element's position on the page (CSS px), Boxes the laid-out
	// boxes of its title, legend, axes and visual map, in the chart's own coordinates.
	X     int   `json:"x"`
	Y     int   `json:"y"`
	Boxes []Box `json:"boxes"`
}

const (
	beginMark = "DASHLAB_CHARTCHECK_BEGIN"
	endMark   = "DASHLAB_CHARTCHECK_END"
)

// headProbe records errors from the start of the page.
const headProbe = `<script>window.__dashlabErrors=[];window.addEventListener('error',function(e){var t=e.target;` +
	`window.__dashlabErrors.push(e.message?String(e.message):('failed to load '+((t&&(t.src||t.href))||'a resource')));},true);</script>`

// bodyProbe is added at the end of the page; %d is the pixel threshold and %d the delay (ms).
const bodyProbe = `<script>(function(){
var boxKinds=['title','legend','xAxis','yAxis','visualMap'];
function check(){
  var out={echarts:(typeof echarts!=='undefined'&&echarts.version)||'',charts:[],errors:window.__dashlabErrors||[]};
  var seen=[];
  document.querySelectorAll('.dashlab-chart,[_echarts_instance_]').forEach(function(el){
    // A chart of the charts package draws into a child (.dashlab-live): one chart, its id.
    if(!el.classList.contains('dashlab-chart')&&el.parentElement&&el.parentElement.closest('.dashlab-chart')){return;}
    if(seen.indexOf(el)>=0){return;} seen.push(el);
    var r={id:el.id||'',canvases:0,w:0,h:0,painted:0,error:el.getAttribute('data-dashlab-error')||'',ok:false};
    var ie=el.querySelector('[_echarts_instance_]')||el;
    var zi=(typeof echarts!=='undefined')&&echarts.getInstanceByDom&&echarts.getInstanceByDom(ie);
    if(zi&&zi.getZr){try{zi.getZr().flush();}catch(e){}}
    el.querySelectorAll('canvas').forEach(function(c){
      r.canvases++; r.w=Math.max(r.w,c.width); r.h=Math.max(r.h,c.height);
      if(!c.width||!c.height){return;}
      try{
        var d=c.getContext('2d').getImageData(0,0,c.width,c.height).data, n=0;
        for(var i=0;i<d.length;i+=4){
          if(Math.abs(d[i]-d[0])+Math.abs(d[i+1]-d[1])+Math.abs(d[i+2]-d[2])+Math.abs(d[i+3]-d[3])>48){n++;}
        }
        r.painted+=n;
      }catch(e){ r.error=r.error||('cannot read canvas: '+e); }
    });
    var br=el.getBoundingClientRect(); r.x=Math.round(br.left+window.scrollX); r.y=Math.round(br.top+window.scrollY); r.boxes=[];
    var inst=zi;
    try{
      ((inst&&inst._componentsViews)||[]).forEach(function(v){
        var m=v&&v.__model, g=v&&v.group;
        if(!m||!g||g.ignore||boxKinds.indexOf(m.mainType)<0){return;}
        g.updateTransform(); var b=g.getBoundingRect();
        if(!b||!(b.width>0)||!(b.height>0)){return;}
        b=b.clone(); if(g.transform){b.applyTransform(g.transform);}
        r.boxes.push({kind:m.mainType,x:Math.round(b.x),y:Math.round(b.y),w:Math.round(b.width),h:Math.round(b.height)});
      });
    }catch(e){ r.error=r.error||('cannot read the layout: '+e); }
    if(!r.error&&r.canvases===0){r.error='no canvas';}
    if(!r.error&&r.painted<%d){r.error='blank canvas';}
    r.ok=!r.error;
    out.charts.push(r);
  });
  var pre=document.createElement('pre');
  pre.id='dashlab-chartcheck';
  pre.textContent='` + beginMark + `'+JSON.stringify(out)+'` + endMark + `';
  document.body.appendChild(pre);
}
window.addEventListener('load',function(){var d=%d; if(d>0){setTimeout(check,d);}else{check();}});
})();</script>`

var (
	headRE = regexp.MustCompile(`(?i)<head[^>]*>`)
	bodyRE = regexp.MustCompile(`(?i)</body\s*>`)
)

// inject returns page with the probe scripts added.
func inject(page []byte, minPixels, delayMS int) []byte {
	body := fmt.Sprintf(bodyProbe, minPixels, delayMS)
	var out []byte
	if loc := headRE.FindIndex(page); loc != nil {
		out = append(append(append(out, page[:loc[1]]...), headProbe...), page[loc[1]:]...)
	} else {
		out = append([]byte(headProbe), page...)
	}
	locs := bodyRE.FindAllIndex(out, -1)
	if len(locs) == 0 {
		return append(out, body...)
	}
	last := locs[len(locs)-1]
	res := make([]byte, 0, len(out)+len(body))
	res = append(append(append(res, out[:last[0]]...), body...), out[last[0]:]...)
	return res
}

// parseVerdict finds the probe's verdict in Chromium's --dump-dom output.
func parseVerdict(dom []byte) (*Verdict, error) {
	i := bytes.LastIndex(dom, []byte(beginMark))
	if i < 0 {
		return nil, errors.New("no verdict in the page (did it load? is JavaScript running?)")
	}
	rest := dom[i+len(beginMark):]
	j := bytes.Index(rest, []byte(endMark))
	if j < 0 {
		return nil, errors.New("truncated verdict")
	}
	raw := unescapeHTMLText(string(rest[:j]))
	var v Verdict
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return nil, fmt.Errorf("bad verdict %.200q: %v", raw, err)
	}
	return &v, nil
}

// unescapeHTMLText undoes the escaping --dump-dom applies to text content.
func unescapeHTMLText(s string) string {
	return strings.NewReplacer("&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&nbsp;", "\u00a0", "&amp;", "&").Replace(s)
}

type options struct {
	chromium   string
	minCharts  int
	minPixels  int
	budgetMS   int
	delayMS    int
	timeout    time.Duration
	screenshot string
	verbose    bool
	// withoutLibrary removes the inlined ECharts library before loading the page.
	withoutLibrary bool
	// realTime loads the page without Chromium's virtual clock and looks at the charts
	// as soon as it has loaded: the retry after a run whose virtual time never ran out.
	realTime bool
}

func chromiumArgs(o options, userDir string) []string {
	args := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
		"--user-data-dir=" + userDir,
		"--window-size=1280,1000",
	}
	if o.realTime {
		// Without a virtual clock Chromium dumps the DOM right after the load event: the
		// probe then looks at once (delay 0), after making every chart paint.
		return args
	}
	return append(args, fmt.Sprintf("--virtual-time-budget=%d", o.budgetMS))
}

// errChromiumTimeout marks a browser that never finished the page: an
// environment failure (a hung start), not a verdict on the charts.
var errChromiumTimeout = errors.New("chromium timed out")

// runChromium runs chromium with args plus target, returning stdout.
func runChromium(o options, target string, extra ...string) ([]byte, error) {
	userDir, err := os.MkdirTemp("", "chartcheck-profile-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(userDir)
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	args := append(append(chromiumArgs(o, userDir), extra...), target)
	cmd := exec.CommandContext(ctx, o.chromium, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("%w after %s", errChromiumTimeout, o.timeout)
	}
	if err != nil {
		return nil, fmt.Errorf("chromium: %v\n%s", err, tail(stderr.String(), 2000))
	}
	return stdout.Bytes(), nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// checkPage loads one page and returns its verdict and a list of failures (empty: pass).
func checkPage(o options, path string) (*Verdict, []string, error) {
	page, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "chartcheck-page-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	if o.withoutLibrary {
		if !libraryRE.Match(page) {
			return nil, nil, errors.New("-without-library: the page has no inlined ECharts library")
		}
		page = libraryRE.ReplaceAll(page, nil)
	}
	probed := filepath.Join(dir, filepath.Base(path))
	delay := o.delayMS
	if o.realTime {
		delay = 0
	}
	if err := os.WriteFile(probed, inject(page, o.minPixels, delay), 0o644); err != nil {
		return nil, nil, err
	}
	url := "file://" + probed
	dom, err := runChromium(o, url, "--dump-dom")
	if errors.Is(err, errChromiumTimeout) {
		// One more try, on the wall clock. Chromium's virtual clock now and then never
		// runs out its budget (the page is drawn and the probe has run, yet the browser
		// does not dump the DOM; seen with notebook 07's animated time series, about one
		// run in ten on a loaded machine); a blank chart never times out.
		fmt.Fprintf(os.Stderr, "     %s: %v; trying once more on the wall clock\n", path, err)
		if err := os.WriteFile(probed, inject(page, o.minPixels, 0), 0o644); err != nil {
			return nil, nil, err
		}
		rt := o
		rt.realTime = true
		dom, err = runChromium(rt, url, "--dump-dom")
	}
	if err != nil {
		return nil, nil, err
	}
	v, err := parseVerdict(dom)
	if err != nil {
		return nil, nil, err
	}
	if o.screenshot != "" {
		if err := os.MkdirAll(o.screenshot, 0o755); err != nil {
			return nil, nil, err
		}
		png := filepath.Join(o.screenshot, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+".png")
		if _, err := runChromium(o, url, "--screenshot="+png); err != nil {
			return nil, nil, err
		}
	}
	var fails []string
	for _, c := range v.Charts {
		if !c.OK {
			fails = append(fails, fmt.Sprintf("chart %q: %s (canvases %d, %dx%d, %d painted pixels)", c.ID, c.Error, c.Canvases, c.Width, c.Height, c.Painted))
		}
	}
	fails = append(fails, overlaps(v.Charts)...)
	if len(v.Charts) < o.minCharts {
		fails = append(fails, fmt.Sprintf("%d charts found, want at least %d", len(v.Charts), o.minCharts))
	}
	return v, fails, nil
}

func report(o options, path string) bool {
	start := time.Now()
	v, fails, err := checkPage(o, path)
	if err != nil {
		fmt.Printf("FAIL %s: %v\n", path, err)
		return false
	}
	ok := 0
	for _, c := range v.Charts {
		if c.OK {
			ok++
		}
		if o.verbose {
			fmt.Printf("     chart %-28q canvases=%d %dx%d painted=%d boxes=%v %s\n", c.ID, c.Canvases, c.Width, c.Height, c.Painted, c.Boxes, c.Error)
		}
	}
	lib := v.ECharts
	if lib == "" {
		lib = "none"
	}
	status := "ok  "
	if len(fails) > 0 {
		status = "FAIL"
	}
	fmt.Printf("%s %s: %d/%d charts drawn (echarts %s, %d page errors, %.1fs)\n", status, path, ok, len(v.Charts), lib, len(v.Errors), time.Since(start).Seconds())
	for _, f := range fails {
		fmt.Printf("     %s\n", f)
	}
	if o.verbose || len(fails) > 0 {
		for _, e := range v.Errors {
			fmt.Printf("     page error: %s\n", e)
		}
	}
	return len(fails) == 0
}

func findChromium() string {
	for _, c := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	return ""
}

func main() {
	var o options
	flag.StringVar(&o.chromium, "chromium", "", "browser binary (default: chromium on PATH)")
	flag.IntVar(&o.minCharts, "min-charts", 1, "fail when a page has fewer charts")
	flag.IntVar(&o.minPixels, "min-pixels", 500, "a chart canvas with fewer non-background pixels is blank")
	flag.IntVar(&o.budgetMS, "budget", 8000, "Chromium --virtual-time-budget in ms")
	flag.IntVar(&o.delayMS, "delay", 2500, "ms after the load event before the probe looks (animations end)")
	flag.DurationVar(&o.timeout, "timeout", 90*time.Second, "wall-clock limit per Chromium run")
	flag.StringVar(&o.screenshot, "screenshot", "", "also write a screenshot of each page into this folder")
	flag.BoolVar(&o.verbose, "v", false, "print every chart and page error")
	selftest := flag.Bool("selftest", false, "prove the check: a good page passes, blank ones fail")
	flag.BoolVar(&o.realTime, "real-time", false, "look at the charts right after the load event, without Chromium's virtual time")
	flag.BoolVar(&o.withoutLibrary, "without-library", false, "negative control: check the pages with the inlined ECharts library removed (must fail)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: chartcheck [flags] page.html...\n       chartcheck -selftest\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if o.chromium == "" {
		o.chromium = findChromium()
	}
	if o.chromium == "" {
		fmt.Fprintln(os.Stderr, "chartcheck: chromium not found (apt-get install chromium, or docker/setup.sh)")
		os.Exit(2)
	}
	if *selftest {
		if err := selfTest(o); err != nil {
			fmt.Printf("FAIL selftest: %v\n", err)
			os.Exit(1)
		}
		fmt.Println("ok   selftest: the good page passes, the blank and the overlapping pages fail")
		return
	}
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	ok := true
	for _, p := range flag.Args() {
		ok = report(o, p) && ok
	}
	if !ok {
		os.Exit(1)
	}
}
