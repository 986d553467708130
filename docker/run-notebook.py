#!/usr/bin/python3
"""Executes one notebook headless with the GoNB kernel and exports it as HTML.

docker/run-notebooks.sh calls it once per notebook (see there for the options):

  run-notebook.py [--param NAME=GOEXPR]... [--no-code] [--timings FILE] [--executed FILE]
                  --timeout S --html OUT.html NOTEBOOK.ipynb

Parameters follow papermill's convention: the notebook's cell tagged `parameters` holds
the defaults; the values given are written as Go declarations into a new cell, tagged
`injected-parameters`, right after it (GoNB keeps the last declaration of a name, so
the cells below see the new values). A name the parameters cell does not declare is an
error (a typo would otherwise be ignored). The notebook file is not modified.

The cells run in the notebook's folder (GoNB's $GONB_DIR), as under nbconvert. Prints
one line per code cell with its wall time to --timings (or nothing), with the kernel's
start (to the first cell) and the HTML export, and exits 1 with the failing cell's error
when a cell fails.
"""
import argparse
import json
import os
import re
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
from nbconvert import HTMLExporter

IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def declared_names(src):
    """The names a parameters cell declares (var blocks, var lines, `a, b = ...` specs)."""
    names = set()
    in_block = False
    for line in src.splitlines():
        code = line.split("//", 1)[0].rstrip()
        s = code.strip()
        if code.startswith("var ("):
            in_block = True
            continue
        if in_block and code == ")":
            in_block = False
            continue
        if code.startswith("var "):
            s = s[4:]
        elif not (in_block and code.startswith("\t") and not code.startswith("\t\t")):
            continue
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*(\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*(=|\s[^=]*=|\s)", s)
        if m:
            names.update(n.strip() for n in m.group(1).split(","))
    return names


def go_string(s):
    """s as a Go interpreted string literal."""
    return json.dumps(s, ensure_ascii=False)


def inject(nb, params, path):
    """Adds the injected-parameters cell after the cell tagged `parameters`."""
    idx = [i for i, c in enumerate(nb.cells) if "parameters" in c.get("metadata", {}).get("tags", [])]
    if not idx:
        sys.exit(f"run-notebook: {path} has no cell tagged `parameters`: it takes no parameters")
    if len(idx) > 1:
        sys.exit(f"run-notebook: {path} has {len(idx)} cells tagged `parameters`; one is expected")
    i = idx[0]
    known = declared_names(nb.cells[i].source)
    unknown = [n for n, _ in params if n not in known]
    if unknown:
        sys.exit(f"run-notebook: {path}: its parameters cell declares no {', '.join(unknown)} "
                 f"(it declares: {', '.join(sorted(known))})")
    decls = "\n".join(f"\t{n} = {v}" for n, v in params)
    shown = "; ".join(f"{n} = {v}" for n, v in params)
    src = (f"// Parameters of this run (docker/run-notebooks.sh -p), replacing the defaults above.\n"
           f"var (\n{decls}\n)\n\n%%\n"
           f"nb.Note({go_string('Parameters of this run (docker/run-notebooks.sh -p): ' + shown + '.')})")
    # Drop a cell injected by an earlier run, as papermill does.
    nb.cells = [c for c in nb.cells if "injected-parameters" not in c.get("metadata", {}).get("tags", [])]
    cell = nbformat.v4.new_code_cell(src, metadata={"tags": ["injected-parameters"]})
    nb.cells.insert(i + 1, cell)


def parse_param(s, raw):
    if "=" not in s:
        sys.exit(f"run-notebook: parameter {s!r} is not NAME=VALUE")
    name, value = s.split("=", 1)
    name = name.strip()
    if not IDENT.match(name):
        sys.exit(f"run-notebook: parameter name {name!r} is not a Go identifier")
    if raw:
        return name, go_string(value)
    if not value.strip():
        sys.exit(f"run-notebook: parameter {name} has no value")
    return name, value.strip()


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
        inject(nb, params, a.notebook)

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
    exporter = HTMLExporter()
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
