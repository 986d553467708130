#!/usr/bin/env python3
"""Checks that shared notebooks keep their charts, in a real browser (Debian's chromium,
driven by Playwright). docker/ci-notebooks.sh runs every check; each is a subcommand:

  nbcheck.py lab NB.ipynb...          (a) each executed notebook, reopened untrusted in
                                      JupyterLab 4 and in Notebook 7 (one server), shows
                                      every chart: its static image, loaded, on screen
  nbcheck.py nojs PAGE.html [NB.ipynb] (b) the exported page with JavaScript disabled shows
                                      every chart of the executed notebook (static images);
                                      without NB (report/index.html), every chart element of
                                      the page (--min-charts N)
  nbcheck.py stripped NB.ipynb...     (c) the notebook rendered with every script stripped
                                      from its outputs (as GitHub's and other viewers'
                                      sanitizers do: JupyterLab's allow-list, bleach)
                                      shows every chart, and every chart output is a
                                      MIME bundle (image/svg+xml and text/plain beside
                                      its text/html)
  nbcheck.py pdf NB.ipynb...          (d) nbconvert's webpdf export, with Debian's
                                      chromium, shows every chart (its title, axis and
                                      legend text are in the PDF)
  nbcheck.py slider NB.ipynb          (e) in JupyterLab, Run All on a notebook whose slider
                                      cell is followed by another cell: the last cell
                                      finishes with no interrupt, no error and no
                                      interrupt noise, and moving a slider redraws the chart
  nbcheck.py papermill NB.ipynb NAME=VALUE...
                                      (f) a papermill run (-p NAME VALUE, the Go
                                      translator) gives the same numbers, cell by cell, as
                                      the parameters cell edited by hand and run

"Every chart" is every output of the executed notebook that has an image/svg+xml entry
(nb.Show and nb.ShowFig make each chart one), found by its text line (text/plain, which
the static image carries as its alternative text). Exit status 1 on any failure, with
what is missing. Run with the Jupyter venv's python, after docker/setup.sh (with
DASHLAB_CHROMIUM=1: Playwright and poppler-utils).
"""
import argparse
import base64
import copy
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import nbformat

CHROMIUM = os.environ.get("DASHLAB_CHROMIUM_BIN", "/usr/bin/chromium")
VENV = os.path.dirname(os.path.dirname(os.path.abspath(sys.executable)))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
failures = []


def fail(msg):
    failures.append(msg)
    print(f"FAIL {msg}")


def ok(msg):
    print(f"ok   {msg}")


def read_nb(path):
    with open(path, encoding="utf-8") as f:
        return nbformat.read(f, as_version=4)


def text_of(v):
    return "".join(v) if isinstance(v, list) else (v or "")


def expected_charts(nb):
    """The text lines of the notebook's chart outputs, in order."""
    out = []
    for c in nb.cells:
        for o in c.get("outputs", []):
            d = o.get("data", {})
            if "image/svg+xml" in d:
                out.append(text_of(d.get("text/plain")).strip())
    return out


def unbundled_charts(nb):
    """Outputs that draw a chart (an element of class dashlab-chart) without the rest of its
    MIME bundle: no image/svg+xml or no one-line text/plain (a chart shown as bare HTML, as
    a new notebook calling gonbui.DisplayHTML would show it, instead of nb.Show/ShowFig)."""
    out = []
    for i, c in enumerate(nb.cells):
        for o in c.get("outputs", []):
            d = o.get("data", {})
            if 'class="dashlab-chart"' in text_of(d.get("text/html")) and not (
                    "image/svg+xml" in d and text_of(d.get("text/plain")).strip()):
                out.append(i)
    return out


def svg_shapes(data_uri):
    """Shapes in a static image (a data: URI of an SVG): paths, rectangles, text."""
    m = re.match(r"data:image/svg\+xml;base64,(.*)", data_uri or "")
    if not m:
        return 0
    svg = base64.b64decode(m.group(1)).decode("utf-8", "replace")
    return sum(svg.count(t) for t in ("<path", "<rect", "<text", "<circle", "<polyline"))


def browser(p):
    return p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu",
                                                               "--disable-background-networking"])


# The static images on a page: alternative text, loaded width, shown width, shapes.
IMAGES_JS = """() => Array.from(document.querySelectorAll('img.dashlab-static')).map(i => {
  const r = i.getBoundingClientRect();
  return {alt: i.alt, natural: i.naturalWidth, shown: Math.round(r.width), h: Math.round(r.height), src: i.src};
})"""


def compare(what, want, seen):
    """seen maps a text line to (natural width, shown width, height, shapes)."""
    missing = [w for w in want if w not in seen]
    bad = [w for w in want if w in seen and not (seen[w][0] > 0 and seen[w][1] >= 100 and seen[w][2] >= 60 and seen[w][3] >= 5)]
    if not want:
        fail(f"{what}: the notebook has no chart outputs (was it executed?)")
    elif missing or bad:
        for w in missing:
            print(f"     missing: {w}")
        for w in bad:
            print(f"     not drawn: {w} (loaded {seen[w][0]} px, shown {seen[w][1]}x{seen[w][2]} px, {seen[w][3]} shapes)")
        fail(f"{what}: {len(want) - len(missing) - len(bad)} of {len(want)} charts shown")
    else:
        ok(f"{what}: {len(want)} of {len(want)} charts shown")


def collect(page, seen, scroller=None, steps=400):
    """Reads the static images on the page, scrolling scroller (a windowed notebook draws only
    the cells in view) to its end."""
    last = -1
    for _ in range(steps):
        for i in page.evaluate(IMAGES_JS):
            if i["alt"] and (i["alt"] not in seen or seen[i["alt"]][1] == 0):
                seen[i["alt"]] = (i["natural"], i["shown"], i["h"], svg_shapes(i["src"]))
        if scroller is None:
            return
        pos = page.evaluate(f"""() => {{ const s = document.querySelector({json.dumps(scroller)}); if (!s) return -2;
            s.scrollBy(0, Math.max(200, s.clientHeight * 0.6));
            return s.scrollTop + s.clientHeight >= s.scrollHeight - 2 ? -1 : Math.round(s.scrollTop); }}""")
        if pos == -1 or (pos == last and pos != 0):
            # at the end: one more look once the last cells have drawn
            time.sleep(1.0)
            for i in page.evaluate(IMAGES_JS):
                if i["alt"] and (i["alt"] not in seen or seen[i["alt"]][1] == 0):
                    seen[i["alt"]] = (i["natural"], i["shown"], i["h"], svg_shapes(i["src"]))
            return
        last = pos
        time.sleep(0.3)


# ---------- (a) JupyterLab 4 and Notebook 7, untrusted ----------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Jupyter:
    """JupyterLab (and Notebook 7, the same server) on a free port over folder root."""

    def __init__(self, root, env=None):
        self.port, self.token, self.root = free_port(), secrets.token_hex(16), root
        self.cfg = tempfile.mkdtemp(prefix="nbcheck-jupyter-")
        # No news pop-up, no announcements: nothing from the network, nothing over the page.
        os.makedirs(os.path.join(self.cfg, "lab", "user-settings", "@jupyterlab", "apputils-extension"), exist_ok=True)
        with open(os.path.join(self.cfg, "lab", "user-settings", "@jupyterlab", "apputils-extension", "notification.jupyterlab-settings"), "w") as f:
            json.dump({"fetchNews": "false", "checkForUpdates": False}, f)
        e = dict(os.environ, **(env or {}))
        e.update(JUPYTER_CONFIG_DIR=self.cfg, JUPYTERLAB_SETTINGS_DIR=os.path.join(self.cfg, "lab", "user-settings"),
                 JUPYTER_RUNTIME_DIR=os.path.join(self.cfg, "runtime"), PYDEVD_DISABLE_FILE_VALIDATION="1",
                 PATH=f"/usr/local/bin:/usr/local/go/bin:{e.get('PATH', '')}")
        self.log = open(os.path.join(self.cfg, "jupyter.log"), "w")
        self.proc = subprocess.Popen(
            [os.path.join(VENV, "bin", "jupyter"), "lab", "--no-browser", "--allow-root", f"--port={self.port}",
             "--ip=127.0.0.1", f"--ServerApp.token={self.token}", f"--ServerApp.root_dir={root}",
             "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
            env=e, stdout=self.log, stderr=subprocess.STDOUT)
        end = time.time() + 90
        while time.time() < end:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/api/status?token={self.token}", timeout=2)
                return
            except Exception:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.5)
        self.close()
        raise SystemExit(f"nbcheck: Jupyter did not start; its log: {self.log.name}")

    def url(self, path, query=""):
        return f"http://127.0.0.1:{self.port}{path}?token={self.token}{'&' + query if query else ''}"

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()
        shutil.rmtree(self.cfg, ignore_errors=True)


def check_lab(notebooks):
    from playwright.sync_api import sync_playwright
    root = tempfile.mkdtemp(prefix="nbcheck-lab-")
    names = []
    for nb in notebooks:
        # Copied as they are: written by nbclient, never signed, so untrusted for this server.
        shutil.copy(nb, os.path.join(root, os.path.basename(nb)))
        names.append(os.path.basename(nb))
    j = Jupyter(root)
    try:
        with sync_playwright() as p:
            b = browser(p)
            for k, (name, nb) in enumerate(zip(names, notebooks)):
                want = expected_charts(read_nb(nb))
                # JupyterLab keeps its workspace on the server: /lab/tree/X would reopen every
                # notebook of the pages before as hidden tabs (whose cells are never visible).
                # A workspace of its own, reset, holds this notebook alone.
                lab = (f"/lab/workspaces/nbcheck-{k}/tree/{name}", "reset")
                for ui, (path, query) in (("JupyterLab 4", lab), ("Notebook 7", (f"/notebooks/{name}", ""))):
                    page = b.new_page(viewport={"width": 1280, "height": 1000})
                    page.goto(j.url(path, query))
                    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120000)
                    # the first outputs drawn (a loaded machine takes seconds to lay them out)
                    page.wait_for_selector(".jp-OutputArea-output", state="attached", timeout=120000)
                    page.wait_for_timeout(2000)
                    seen = {}
                    for _ in range(3):  # a windowed notebook draws cells as they come into view
                        collect(page, seen, ".jp-WindowedPanel-outer")
                        if all(w in seen and seen[w][0] > 0 for w in want):
                            break
                        page.evaluate("() => { const s = document.querySelector('.jp-WindowedPanel-outer'); if (s) s.scrollTop = 0; }")
                        page.wait_for_timeout(2000)
                    canvases = page.evaluate("() => document.querySelectorAll('.jp-OutputArea canvas').length")
                    scripts_ran = page.evaluate("() => document.querySelectorAll('.jp-OutputArea .dashlab-live').length")
                    if canvases or scripts_ran:
                        fail(f"{ui}, {name}: the notebook's scripts ran ({canvases} canvases): it is not untrusted")
                    compare(f"(a) {ui}, untrusted, {name}", want, seen)
                    page.close()
            b.close()
    finally:
        j.close()
        shutil.rmtree(root, ignore_errors=True)


# ---------- (b) an exported page with JavaScript disabled ----------

# An <img> element, its attributes in any order and quoting (nbconvert's export writes them
# again: alphabetical, single quotes around a value holding double quotes).
IMG_RE = re.compile(r"""<img\b(?:[^>"']|"[^"]*"|'[^']*')*>""")
STATIC_CLASS_RE = re.compile(r"""\bclass=(["'])(?:(?!\1).)*\bdashlab-static\b""")


def without_static(page_path, out_path):
    """Writes the page without its static images (the negative control of (b))."""
    with open(page_path, encoding="utf-8") as f:
        s = f.read()
    s, n = IMG_RE.subn(lambda m: "" if STATIC_CLASS_RE.search(m.group(0)) else m.group(0), s)
    if any(STATIC_CLASS_RE.search(m.group(0)) for m in IMG_RE.finditer(s)):
        raise SystemExit(f"nbcheck: static images left in {out_path}")
    with open(out_path, "w", encoding="utf-8") as f:
        f.write(s)


def check_nojs(page_path, nb, min_charts=1, no_static=False):
    """With nb, every chart of the executed notebook; without, every chart element of the
    page (at least min_charts of them). no_static: the page without its static images
    (a negative control: it must fail)."""
    from playwright.sync_api import sync_playwright
    want = expected_charts(read_nb(nb)) if nb else None
    if no_static:
        tmp = tempfile.mkdtemp(prefix="nbcheck-nostatic-")
        stripped = os.path.join(tmp, os.path.basename(page_path))
        without_static(page_path, stripped)
        try:
            return check_nojs(stripped, nb, min_charts)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    with sync_playwright() as p:
        b = browser(p)
        ctx = b.new_context(java_script_enabled=False, viewport={"width": 1280, "height": 1000})
        page = ctx.new_page()
        page.goto("file://" + os.path.abspath(page_path))
        page.wait_for_load_state("load")
        seen = {}
        collect(page, seen)
        if want is None:
            n = page.evaluate("() => document.querySelectorAll('.dashlab-chart').length")
            bare = page.evaluate("() => Array.from(document.querySelectorAll('.dashlab-chart')).filter(e => !e.querySelector('img.dashlab-static')).map(e => e.id)")
            want = list(seen)
            if bare:
                fail(f"(b) {os.path.basename(page_path)}: charts without a static image: {bare}")
            if n < min_charts:
                fail(f"(b) {os.path.basename(page_path)}: {n} charts, fewer than {min_charts}")
        compare(f"(b) {os.path.basename(page_path)} with JavaScript disabled", want, seen)
        b.close()


# ---------- (c) scripts stripped ----------

# JupyterLab's sanitizer allow-list for outputs (the tags and attributes our outputs use):
# no <script>, no event handlers, no <svg>, data: images kept.
ALLOWED_TAGS = ["a", "abbr", "b", "blockquote", "br", "caption", "code", "col", "colgroup", "dd", "details", "div",
                "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "li",
                "ol", "p", "pre", "s", "small", "span", "strong", "sub", "summary", "sup", "table", "tbody", "td",
                "tfoot", "th", "thead", "tr", "u", "ul"]
ALLOWED_ATTRS = {"*": ["class", "id", "style", "title"], "a": ["href"], "img": ["src", "alt", "width", "height"],
                 "td": ["colspan", "rowspan"], "th": ["colspan", "rowspan"]}


def strip_scripts(nb):
    import bleach
    from bleach.css_sanitizer import CSSSanitizer
    css = CSSSanitizer(allowed_css_properties=["display", "max-width", "width", "height", "margin", "padding",
                                               "color", "background", "font-size", "font-family", "font-weight"])
    nb = copy.deepcopy(nb)
    for c in nb.cells:
        for o in c.get("outputs", []):
            d = o.get("data", {})
            d.pop("application/javascript", None)
            if "text/html" in d:
                h = re.sub(r"(?is)<script\b.*?</script>", "", text_of(d["text/html"]))
                h = re.sub(r"(?is)<style\b.*?</style>", "", h)
                d["text/html"] = bleach.clean(h, tags=ALLOWED_TAGS, attributes=ALLOWED_ATTRS,
                                              protocols=["http", "https", "data"], css_sanitizer=css, strip=True)
    return nb


def check_stripped(notebooks):
    from nbconvert import HTMLExporter
    from playwright.sync_api import sync_playwright
    tmp = tempfile.mkdtemp(prefix="nbcheck-stripped-")
    try:
        with sync_playwright() as p:
            b = browser(p)
            for path in notebooks:
                nb = read_nb(path)
                want = expected_charts(nb)
                bare = unbundled_charts(nb)
                if bare:
                    fail(f"(c) {os.path.basename(path)}: {len(bare)} chart outputs are not MIME bundles (no image/svg+xml or "
                         f"text/plain; show charts with nb.Show/nb.ShowFig), in cells {sorted(set(bare))}")
                body, _ = HTMLExporter().from_notebook_node(strip_scripts(nb))
                if re.search(r"(?i)<script[^>]*>[^<]*dashlab", body) or "dashlabEChartsQueue" in body:
                    fail(f"(c) {os.path.basename(path)}: a chart script survived the stripping")
                out = os.path.join(tmp, os.path.basename(path) + ".stripped.html")
                with open(out, "w", encoding="utf-8") as f:
                    f.write(body)
                page = b.new_page(viewport={"width": 1280, "height": 1000})
                page.goto("file://" + out)
                page.wait_for_load_state("load")
                seen = {}
                collect(page, seen)
                compare(f"(c) {os.path.basename(path)} with its scripts stripped", want, seen)
                page.close()
            b.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------- (d) webpdf with Debian's chromium ----------

def use_debian_chromium():
    """nbconvert's webpdf launches Playwright's own chromium, which cannot be downloaded
    here: launch Debian's instead."""
    from playwright.async_api import BrowserType
    launch = BrowserType.launch
    if getattr(launch, "_dashlab", False):
        return

    async def debian_launch(self, *args, **kw):
        kw.setdefault("executable_path", CHROMIUM)
        return await launch(self, *args, **kw)

    debian_launch._dashlab = True
    BrowserType.launch = debian_launch


def words(s):
    return " ".join(re.findall(r"[A-Za-z0-9.%()]+", s))


def check_pdf(notebooks, keep=None):
    from nbconvert import WebPDFExporter
    use_debian_chromium()
    tmp = tempfile.mkdtemp(prefix="nbcheck-pdf-")
    try:
        for path in notebooks:
            nb = read_nb(path)
            want = expected_charts(nb)
            ex = WebPDFExporter()
            ex.disable_sandbox = True
            t0 = time.monotonic()
            pdf, _ = ex.from_notebook_node(nb)
            secs = time.monotonic() - t0
            out = os.path.join(keep or tmp, os.path.basename(path).replace(".ipynb", ".pdf"))
            with open(out, "wb") as f:
                f.write(pdf)
            text = subprocess.run(["pdftotext", "-layout", out, "-"], capture_output=True, text=True, check=True).stdout
            flat = words(text)
            titles = [re.match(r'Chart "(.*)" \(', w) for w in want]
            missing = [w for w, t in zip(want, titles) if not t or words(t.group(1)) not in flat]
            if not want:
                fail(f"(d) {os.path.basename(path)}: no chart outputs")
            elif missing:
                for w in missing:
                    print(f"     not in the PDF: {w}")
                fail(f"(d) {os.path.basename(path)}: webpdf shows {len(want) - len(missing)} of {len(want)} charts")
            else:
                ok(f"(d) {os.path.basename(path)}: webpdf ({len(pdf)} bytes, {secs:.1f} s) shows {len(want)} of {len(want)} charts (their text is in the PDF)")
            if keep:
                subprocess.run(["pdftoppm", "-png", "-r", "50", "-f", "1", "-l", "3", out, out[:-4]], check=False)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# ---------- (e) a slider cell, then another cell ----------

SLIDER_STATE_JS = """() => {
  const cells = Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell'));
  return cells.map(c => ({
    prompt: (c.querySelector('.jp-InputPrompt') || {}).textContent || '',
    text: (c.querySelector('.jp-OutputArea') || {}).innerText || '',
    sliders: c.querySelectorAll('input[type=range]').length,
    charts: c.querySelectorAll('.dashlab-live canvas').length,
  }));
}"""


def check_slider(path, timeout):
    from playwright.sync_api import sync_playwright
    root = tempfile.mkdtemp(prefix="nbcheck-slider-")
    # The notebook runs from a folder beside notebooks/ (its setup cell finds the repository
    # from $GONB_DIR/..): a copy in the repository's notebooks/ folder would be seen by git.
    name = "nbcheck-" + os.path.basename(path)
    shutil.copy(path, os.path.join(ROOT, "notebooks", name))
    j = Jupyter(os.path.join(ROOT, "notebooks"), env={"DASHLAB_INTERACTIVE": "1"})
    try:
        with sync_playwright() as p:
            b = browser(p)
            page = b.new_page(viewport={"width": 1280, "height": 1400})
            page.goto(j.url(f"/lab/tree/{name}"))  # a server of its own: no other notebook in its workspace
            page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120000)
            # The kernel's idle mark, when the page shows one. It is only a courtesy wait: in one CI
            # run neither the toolbar's indicator nor the status bar's item became visible in 120 s
            # while the page was otherwise up; Run All queues the cells whatever the kernel's state,
            # and the loop below is what checks that they ran.
            try:
                page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle'], .jp-KernelStatus",
                                       state="attached", timeout=60000)
            except Exception:
                print("     (e) no kernel status on the page after 60 s; running all cells anyway", file=sys.stderr)
            page.wait_for_timeout(3000)
            t0 = time.monotonic()
            page.click(".lm-MenuBar-item:has-text('Run')")  # the menu, as a user does
            page.click(".lm-Menu-item[data-command='runmenu:run-all']")
            # Until the last code cell has an execution count: no cell left queued ([*]).
            end = time.time() + timeout
            state = None
            while time.time() < end:
                state = page.evaluate(SLIDER_STATE_JS)
                if state and re.search(r"\[\d+\]", state[-1]["prompt"]) and not any("*" in s["prompt"] for s in state):
                    break
                page.wait_for_timeout(1000)
            secs = time.monotonic() - t0
            if not state or not re.search(r"\[\d+\]", state[-1]["prompt"]):
                fail(f"(e) {os.path.basename(path)}: the cell after the slider did not finish within {timeout} s "
                     f"(prompts: {[s['prompt'] for s in state or []]})")
                return
            noise = [s["text"][:200] for s in state if re.search(r"(?i)interrupt|signal: |Error", s["text"])]
            if noise:
                fail(f"(e) {os.path.basename(path)}: interrupt or error text in the outputs: {noise}")
            sl = [i for i, s in enumerate(state) if s["sliders"]]
            if not sl or sl[-1] == len(state) - 1:
                fail(f"(e) {os.path.basename(path)}: no slider cell followed by another cell")
                return
            ok(f"(e) {os.path.basename(path)}: Run All finished in {secs:.0f} s, the cell after the slider ran "
               f"({state[-1]['prompt'].strip()}), no interrupt")
            # Move the first slider: the chart must change without the kernel.
            before = page.evaluate("""() => { const c = document.querySelector('.jp-OutputArea .dashlab-states');
                return c ? c.getAttribute('data-state') : null; }""")
            page.evaluate("""() => { const s = document.querySelector('.jp-OutputArea input[type=range]');
                s.value = s.min === s.value ? s.max : s.min; s.dispatchEvent(new Event('input', {bubbles: true})); }""")
            page.wait_for_timeout(1500)
            after = page.evaluate("""() => { const c = document.querySelector('.jp-OutputArea .dashlab-states');
                return c ? [c.getAttribute('data-state'), c.querySelectorAll('.dashlab-live canvas').length] : null; }""")
            if before is None or after is None or after[0] == before or after[1] == 0:
                fail(f"(e) moving the slider did not redraw the chart (state {before} -> {after})")
            else:
                ok(f"(e) moving the slider redrew the chart with no kernel (state {before} -> {after[0]})")
            b.close()
    finally:
        j.close()
        os.remove(os.path.join(ROOT, "notebooks", name))
        shutil.rmtree(root, ignore_errors=True)


# ---------- (f) papermill against the live tweak ----------

NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*(?:e[-+]?\d+)?")


def numbers_of(cell):
    """The numbers a cell's outputs show (HTML without its tags, images and scripts)."""
    out = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            t = text_of(o.get("text"))
        else:
            d = o.get("data", {})
            t = text_of(d.get("text/markdown")) + " " + text_of(d.get("text/plain"))
            h = text_of(d.get("text/html"))
            h = re.sub(r"(?is)<script\b.*?</script>|<style\b.*?</style>|<img\b[^>]*>", " ", h)
            t += " " + re.sub(r"<[^>]+>", " ", h)
        out.extend(NUMBER.findall(re.sub(r"\b\d+(\.\d+)? ?s\b|\d+\.\d+ ?ms wall", " ", t)))
    return out


def check_papermill(path, params, timeout):
    import papermill as pm
    from nbclient import NotebookClient
    from gonb_papermill import GoTranslator, declared
    nb = read_nb(path)
    values = {}
    for p in params:
        name, _, value = p.partition("=")
        values[name] = int(value) if re.fullmatch(r"-?\d+", value) else value
    tmp = tempfile.mkdtemp(prefix="nbcheck-papermill-")
    cwd = os.path.dirname(os.path.abspath(path))
    env_saved = os.environ.get("DASHLAB_INTERACTIVE")
    os.environ["DASHLAB_INTERACTIVE"] = "0"
    try:
        t0 = time.monotonic()
        run = pm.execute_notebook(path, os.path.join(tmp, "papermill.ipynb"), parameters=values, kernel_name="gonb",
                                  cwd=cwd, progress_bar=False, execution_timeout=timeout)
        t_pm = time.monotonic() - t0
        # The live tweak: the parameters cell edited as a user does, then Run All.
        tweak = copy.deepcopy(nb)
        pc = next(c for c in tweak.cells if "parameters" in c.get("metadata", {}).get("tags", []))
        known = {n for n, _, _, _ in declared(pc.source)}
        lines = pc.source.splitlines()
        for name, v in values.items():
            if name not in known:
                fail(f"(f) {name} is not a parameter of {path}")
                return
            go = GoTranslator.translate(v)
            for i, line in enumerate(lines):
                m = re.match(rf"^(\s*(?:var\s+)?){re.escape(name)}(\s*(?:[^=]*)?)=\s*(.*?)(\s*//.*)?$", line)
                if m and not line.strip().startswith("//"):
                    lines[i] = f"{m.group(1)}{name}{m.group(2)}= {go}{m.group(4) or ''}"
                    break
        pc.source = "\n".join(lines)
        t0 = time.monotonic()
        NotebookClient(tweak, timeout=timeout, kernel_name="gonb", resources={"metadata": {"path": cwd}}).execute()
        t_live = time.monotonic() - t0
        pm_cells = [c for c in run.cells if "injected-parameters" not in c.get("metadata", {}).get("tags", [])]
        diffs = []
        compared = 0
        for a, b_ in zip(pm_cells, tweak.cells):
            if a.cell_type != "code":
                continue
            na, nb_ = numbers_of(a), numbers_of(b_)
            compared += len(na)
            if na != nb_:
                diffs.append((a.source.splitlines()[0] if a.source else "", na[:12], nb_[:12]))
        injected = [c for c in run.cells if "injected-parameters" in c.get("metadata", {}).get("tags", [])]
        if not injected:
            fail("(f) papermill injected no parameters cell")
        if diffs:
            for d in diffs:
                print(f"     cell {d[0]!r}: papermill {d[1]} vs live {d[2]}")
            fail(f"(f) papermill and the live tweak differ in {len(diffs)} cells")
        elif compared == 0:
            fail("(f) no numbers to compare")
        else:
            ok(f"(f) papermill {' '.join(params)} ({t_pm:.0f} s) and the parameters cell edited by hand ({t_live:.0f} s) "
               f"show the same {compared} numbers in {os.path.basename(path)}")
    finally:
        if env_saved is None:
            os.environ.pop("DASHLAB_INTERACTIVE", None)
        else:
            os.environ["DASHLAB_INTERACTIVE"] = env_saved
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("lab").add_argument("notebooks", nargs="+")
    s = sub.add_parser("nojs")
    s.add_argument("page")
    s.add_argument("notebook", nargs="?", help="the executed notebook the page was exported from (default: every chart on the page)")
    s.add_argument("--min-charts", type=int, default=1)
    s.add_argument("--without-static", action="store_true", help="negative control: the page without its static images (must fail)")
    sub.add_parser("stripped").add_argument("notebooks", nargs="+")
    s = sub.add_parser("pdf")
    s.add_argument("notebooks", nargs="+")
    s.add_argument("--keep", help="keep the PDFs (and PNGs of their first pages) in this folder")
    s = sub.add_parser("slider")
    s.add_argument("notebook")
    s.add_argument("--timeout", type=int, default=300)
    s = sub.add_parser("papermill")
    s.add_argument("notebook")
    s.add_argument("params", nargs="+", help="NAME=VALUE (an integer, text, or go:EXPR)")
    s.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args()
    if a.cmd == "lab":
        check_lab(a.notebooks)
    elif a.cmd == "nojs":
        check_nojs(a.page, a.notebook, a.min_charts, a.without_static)
    elif a.cmd == "stripped":
        check_stripped(a.notebooks)
    elif a.cmd == "pdf":
        check_pdf(a.notebooks, a.keep)
    elif a.cmd == "slider":
        check_slider(a.notebook, a.timeout)
    elif a.cmd == "papermill":
        check_papermill(a.notebook, a.params, a.timeout)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
