#!/usr/bin/python3
"""Checks a notebook's sliders in a live Jupyter front-end: headless Chromium drives it.

  docker/slider-check.py NOTEBOOK.ipynb [--screenshot DIR] [--timeout S]

Starts Debian's Jupyter Notebook on a free port (a random token, DASHLAB_INTERACTIVE=1, as
docker/entrypoint.sh does) and headless Chromium with its DevTools port, opens the notebook,
runs all its cells and waits for the sliders of its last nb.Redraw cell. It reads the
values line above the chart and the chart's ECharts subtitle, moves the first slider to
its first position as a user would (input and change events), and waits for both to
change: the chart was redrawn in place, in the same output. Exit status 0 when it was,
1 otherwise. Not part of CI (it takes a minute or two and needs the live kernel); run it
after changing nb.Redraw or GoNB.
"""
import argparse
import asyncio
import base64
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from tornado import websocket

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url, timeout):
    end = time.time() + timeout
    while time.time() < end:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                return r.read()
        except Exception:
            time.sleep(0.5)
    raise SystemExit(f"slider-check: {url} did not answer within {timeout} s")


class Page:
    """A minimal DevTools protocol client for one page."""

    def __init__(self, ws):
        self.ws, self.n = ws, 0

    async def call(self, method, **params):
        self.n += 1
        await self.ws.write_message(json.dumps({"id": self.n, "method": method, "params": params}))
        while True:
            msg = json.loads(await self.ws.read_message())
            if msg.get("id") == self.n:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    async def eval(self, js):
        r = await self.call("Runtime.evaluate", expression=js, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{js[:60]}...: {r['exceptionDetails']}")
        return r.get("result", {}).get("value")

    async def until(self, js, timeout, what):
        end = time.time() + timeout
        while time.time() < end:
            try:
                v = await self.eval(js)
                if v:
                    return v
            except RuntimeError:
                pass
            await asyncio.sleep(1)
        raise TimeoutError(f"{what}: not within {timeout} s")


# The last code cell's output: its values line (nb.Redraw's frame), its sliders, the
# subtitle of the chart drawn there.
STATE_JS = r"""
(() => {
  const cells = Jupyter.notebook.get_cells().filter(c => c.cell_type === 'code');
  const out = cells[cells.length - 1].output_area.element[0];
  const sliders = out.querySelectorAll('input[type=range]');
  const charts = out.querySelectorAll('.dashlab-chart, [_echarts_instance_]');
  let subtitle = null;
  for (const el of out.querySelectorAll('div')) {
    const inst = window.echarts && echarts.getInstanceByDom(el);
    if (inst) { const t = inst.getOption().title; subtitle = t && t[0] ? t[0].subtext : null; break; }
  }
  const line = out.querySelector('div b') ? out.querySelector('div b').parentElement.textContent : null;
  return {sliders: sliders.length, charts: charts.length, line: line, subtitle: subtitle};
})()
"""

MOVE_JS = r"""
(() => {
  const cells = Jupyter.notebook.get_cells().filter(c => c.cell_type === 'code');
  const s = cells[cells.length - 1].output_area.element[0].querySelector('input[type=range]');
  s.value = s.min;
  s.dispatchEvent(new Event('input'));
  s.dispatchEvent(new Event('change'));
  return s.value;
})()
"""


async def drive(devtools_port, url, timeout, shots):
    with urllib.request.urlopen(f"http://127.0.0.1:{devtools_port}/json/list") as r:
        targets = [t for t in json.load(r) if t.get("type") == "page"]
    ws = await websocket.websocket_connect(targets[0]["webSocketDebuggerUrl"], max_message_size=64 << 20)
    page = Page(ws)
    await page.call("Page.enable")
    await page.call("Page.navigate", url=url)
    await page.until("window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected()",
                     60, "the notebook's kernel connected")
    await page.eval("Jupyter.notebook.execute_all_cells(), true")
    state = await page.until(f"(() => {{ const s = {STATE_JS}; return s.sliders > 0 && s.subtitle ? s : null; }})()",
                             timeout, "the sliders and the chart of the last code cell")
    print(f"before: {state['sliders']} sliders; values: {state['line']!r}; chart subtitle: {state['subtitle']!r}")
    if shots:
        await screenshot(page, os.path.join(shots, "before.png"))
    moved = await page.eval(MOVE_JS)
    print(f"moved the first slider to position {moved}")
    after = await page.until(f"(() => {{ const s = {STATE_JS}; return s.line !== {json.dumps(state['line'])} && s.subtitle !== {json.dumps(state['subtitle'])} ? s : null; }})()",
                             120, "the chart redrawn after the move")
    print(f"after:  {after['sliders']} sliders; values: {after['line']!r}; chart subtitle: {after['subtitle']!r}")
    if shots:
        await screenshot(page, os.path.join(shots, "after.png"))
    await page.eval("Jupyter.notebook.kernel.interrupt(), true")
    return after["charts"] >= 1


async def screenshot(page, path):
    await page.eval("(() => { const cells = Jupyter.notebook.get_cells(); const c = cells.filter(c => c.cell_type === 'code'); c[c.length-1].element[0].scrollIntoView(); return true; })()")
    await asyncio.sleep(1)
    r = await page.call("Page.captureScreenshot", format="png")
    with open(path, "wb") as f:
        f.write(base64.b64decode(r["data"]))
    print(f"screenshot: {path}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("notebook")
    ap.add_argument("--screenshot")
    ap.add_argument("--timeout", type=int, default=600)
    a = ap.parse_args()
    nb = os.path.abspath(a.notebook)
    jport, dport, token = free_port(), free_port(), secrets.token_hex(16)
    tmp = tempfile.mkdtemp(prefix="slider-check-")
    env = dict(os.environ, DASHLAB_INTERACTIVE="1", PYDEVD_DISABLE_FILE_VALIDATION="1",
               PATH=f"/usr/local/bin:/usr/local/go/bin:{os.environ.get('PATH', '')}")
    procs = []
    try:
        procs.append(subprocess.Popen(
            ["/usr/bin/jupyter", "notebook", "--no-browser", "--allow-root", f"--port={jport}", "--ip=127.0.0.1",
             f"--NotebookApp.token={token}", f"--notebook-dir={os.path.dirname(nb)}"],
            env=env, stdout=open(os.path.join(tmp, "jupyter.log"), "w"), stderr=subprocess.STDOUT))
        wait_http(f"http://127.0.0.1:{jport}/api?token={token}", 60)
        procs.append(subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp}/chromium", f"--remote-debugging-port={dport}", "--window-size=1280,1600", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        wait_http(f"http://127.0.0.1:{dport}/json/version", 60)
        if a.screenshot:
            os.makedirs(a.screenshot, exist_ok=True)
        url = f"http://127.0.0.1:{jport}/notebooks/{os.path.basename(nb)}?token={token}"
        ok = asyncio.run(drive(dport, url, a.timeout, a.screenshot))
    except (TimeoutError, RuntimeError) as e:
        print(f"slider-check: FAIL: {e}")
        print(f"slider-check: Jupyter's log: {tmp}/jupyter.log")
        ok = False
        tmp = None
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    print("slider-check: ok: the chart was redrawn in place" if ok else "slider-check: FAIL")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
