#!/usr/bin/env python3
"""Executes one notebook headless with the GoNB kernel and exports it as HTML.

docker/run-notebooks.sh calls it once per notebook (see there for the options):

  run-notebook.py [--param NAME=GOEXPR]... [--no-code] [--timings FILE] [--executed FILE]
                  --timeout S --html OUT.html NOTEBOOK.ipynb

Parameters are papermill's: the notebook's cell tagged `parameters` holds the defaults;
papermill's parameterize_notebook, with the Go translator of docker/gonb-papermill, writes
the values given as Go declarations into a new cell, tagged `injected-parameters`, right
after it (GoNB keeps the last declaration of a name, so the cells below see the new
values), which prints what was set. --param NAME=GOEXPR is papermill's 'go:GOEXPR' (Go
source), --raw NAME=TEXT a string. A name the parameters cell does not declare is an error
(a typo would otherwise be ignored). The notebook file is not modified.

Run with the Jupyter venv's python (docker/setup.sh --jupyter; run-notebooks.sh does).

The cells run in the notebook's folder (GoNB's $GONB_DIR), as under nbconvert. Prints
one line per code cell with its wall time to --timings (or nothing), with the kernel's
start (to the first cell) and the HTML export, and exits 1 with the failing cell's error
when a cell fails.
"""
import argparse
import os
import re
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbconvert import HTMLExporter
from papermill.parameterize import parameterize_notebook

from gonb_papermill import declared

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def inject(nb, params, path):
    """Adds the injected-parameters cell after the cell tagged `parameters` (papermill)."""
    idx = [i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])]
    if not idx:
        sys.exit(f"run-notebook: {path} has no cell tagged `parameters`: it takes no parameters")
    if len(idx) > 1:
        sys.exit(f"run-notebook: {path} has {len(idx)} cells tagged `parameters`; one is expected")
    known = [n for n, _, _, _ in declared(nb.cells[idx[0]].source)]
    unknown = [n for n, _ in params if n not in known]
    if unknown:
        sys.exit(f"run-notebook: {path}: its parameters cell declares no {', '.join(unknown)} "
                 f"(it declares: {', '.join(sorted(known))})")
    for c in nb.cells:  # papermill reads every cell's tags
        c.setdefault("metadata", {}).setdefault("tags", [])
    nb.metadata.setdefault("papermill", {})
    return parameterize_notebook(nb, dict(params), kernel_name="gonb", language="go")


def parse_param(s, raw):
    if "=" not in s:
        sys.exit(f"run-notebook: parameter {s!r} is not NAME=VALUE")
    name, value = s.split("=", 1)
    name = name.strip()
    if not IDENT.match(name):
        sys.exit(f"run-notebook: parameter name {name!r} is not a Go identifier")
    if raw:
        return name, value
    if not value.strip():
        sys.exit(f"run-notebook: parameter {name} has no value")
    return name, "go:" + value.strip()


def main():
    ap = argparse.ArgumentParser()
    # One list, in the order given: (raw, NAME=VALUE).
    ap.add_argument("--param", dest="params", action="append", default=[], type=lambda s: (False, s))
    ap.add_argument("--raw", dest="params", action="append", type=lambda s: (True, s))
    ap.add_argument("--no-code", action="store_true")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--html", required=True)
    ap.add_argument("--executed")
    ap.add_argument("--timings")
    ap.add_argument("notebook")
    a = ap.parse_args()

    nb = nbformat.read(a.notebook, as_version=4)
    params = [parse_param(p, raw) for raw, p in a.params]
    if params:
        nb = inject(nb, params, a.notebook)

    times = {}
    starts = {}

    def on_start(cell, cell_index, **_):
        starts[cell_index] = time.monotonic()

    def on_done(cell, cell_index, **_):
        times[cell_index] = time.monotonic() - starts.get(cell_index, time.monotonic())

    client = NotebookClient(nb, timeout=a.timeout, kernel_name="gonb",
                            resources={"metadata": {"path": os.path.dirname(os.path.abspath(a.notebook))}},
                            on_cell_execute=on_start, on_cell_executed=on_done)
    err = None
    started = time.monotonic()
    try:
        client.execute()
    except CellTimeoutError as e:
        err = f"a cell ran over {a.timeout} s (DASHLAB_CELL_TIMEOUT):\n{e}"
    except (CellExecutionError, DeadKernelError) as e:
        err = str(e)
    if a.timings:
        with open(a.timings, "w") as f:
            if starts:  # from starting the kernel to the first cell
                f.write(f"kernel\t{min(starts.values()) - started:.1f}\tkernel start\n")
            for i, c in enumerate(nb.cells):
                if c.cell_type != "code" or i not in times:
                    continue
                first = next((l for l in c.source.splitlines() if l.strip() and not l.startswith("import")
                              and not l.startswith("\t") and l.strip() not in ("(", ")", "%%")), "")
                f.write(f"{i}\t{times[i]:.1f}\t{first[:60]}\n")
    if a.executed:
        nbformat.write(nb, a.executed)
    if err is not None:
        print(err, file=sys.stderr)
        sys.exit(1)
    # The lab template without its CDN scripts (docker/nbconvert-templates/dashlab).
    exporter = HTMLExporter(template_name="dashlab",
                            extra_template_basedirs=[os.path.join(os.path.dirname(os.path.abspath(__file__)), "nbconvert-templates")])
    if a.no_code:
        exporter.exclude_input = True
        exporter.exclude_input_prompt = True
        exporter.exclude_output_prompt = True
    t0 = time.monotonic()
    body, _ = exporter.from_notebook_node(nb)
    with open(a.html, "w", encoding="utf-8") as f:
        f.write(body)
    if a.timings:
        with open(a.timings, "a") as f:
            f.write(f"export\t{time.monotonic() - t0:.1f}\tHTML export\n")


if __name__ == "__main__":
    main()
