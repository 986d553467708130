#!/usr/bin/env bash
# docker/run-notebooks.sh [OPTIONS] [NOTEBOOK.ipynb...]
#
# Executes notebooks headless with the GoNB kernel (Debian's nbclient, as nbconvert does)
# and exports each as an offline HTML report: report/notebooks/NAME.html. Default: every
# notebooks/*.ipynb. The notebooks in notebooks/ are not modified (they are committed
# without outputs). Prints each notebook's time and the time of each code cell.
#
# Options (papermill's convention for parameters):
#   -p NAME=GOEXPR   set a parameter: NAME is declared in the notebook's cell tagged
#                    `parameters`; GOEXPR is Go, e.g. -p 'tRead=10*unit.Microsecond',
#                    -p batch=64, -p 'linkRate=0.8*unit.TBps'. papermill writes the values
#                    into a new cell after the parameters cell (tagged `injected-parameters`,
#                    docker/gonb-papermill's Go translator), which also says on the page what
#                    was set. Repeatable. (papermill itself takes the same values as
#                    -p batch 64 -p tRead 'go:10*unit.Microsecond' -r model deepseek-v3.)
#   -r NAME=TEXT     a string parameter, quoted for Go: -r model=deepseek-v3.
#   --no-code        export without the code cells (nbconvert's --no-input): a report.
#   -o FILE.html     the exported page (one notebook only). Default: report/notebooks/NAME.html,
#                    NAME.what-if.html when parameters are given.
#   --executed DIR   also keep the executed notebooks (with outputs) in DIR.
#
#   docker/run-notebooks.sh -p 'tRead=10*unit.Microsecond' --no-code notebooks/05-throughput-latency.ipynb
#
# Fails (exit 1) when a cell fails (compile error, panic, timeout) or when an exported file
# is 3 MB or more (the ECharts library is inlined once per notebook, about 1 MB).
#
# Environment:
#   DASHLAB_REPORT_DIR    output folder (default report/notebooks)
#   DASHLAB_CELL_TIMEOUT  seconds one cell may run (default 600)
#
# Needs docker/setup.sh to have run. Uses its own copy of the GoNB kernel spec, installed
# with --raw_error (plain-text errors in the log) into a temporary JUPYTER_PATH entry, so
# the interactive kernel's settings do not matter here.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$(realpath -m "${DASHLAB_REPORT_DIR:-$ROOT/report/notebooks}")
TIMEOUT=${DASHLAB_CELL_TIMEOUT:-600}
MAX_BYTES=3000000
GOBIN_DIR=${DASHLAB_GOBIN:-/usr/local/bin}
VENV=${DASHLAB_VENV:-/opt/dashlab/jupyter} # docker/setup.sh --jupyter
JUPYTER=$VENV/bin/jupyter # never the first python3 on PATH, which may have no Jupyter

export PATH=$GOBIN_DIR:/usr/local/go/bin:$PATH
export PYDEVD_DISABLE_FILE_VALIDATION=1 # silences a debugger warning of Debian's ipykernel
export DASHLAB_INTERACTIVE=0 # no front-end here: sliders draw once and never wait for input
# GoNB links a program per cell: without DWARF (-w; panics still name file and line) the
# link takes about a quarter less time.
[[ "${GOFLAGS:-}" == *-ldflags* ]] || export GOFLAGS="${GOFLAGS:+$GOFLAGS }-ldflags=-w"
PYTHON=$VENV/bin/python    # the venv's: nbclient, nbconvert, papermill
for tool in "$JUPYTER" gonb go goimports; do
  command -v "$tool" >/dev/null || { echo "run-notebooks: $tool not found: run docker/setup.sh" >&2; exit 1; }
done

# elapsed T0: seconds since T0 (from date +%s%N), with one decimal.
elapsed() { local ms=$((($(date +%s%N) - $1) / 1000000)); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }

usage() { sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//' >&2; exit 2; }
nbargs=()  # passed to run-notebook.py for every notebook
page=""    # -o
keep=""    # --executed
has_params=false
while [ $# -gt 0 ]; do
  case $1 in
    -p|-r)
      [ $# -ge 2 ] || { echo "run-notebooks: $1 needs NAME=VALUE" >&2; exit 2; }
      if [ "$1" = -p ]; then nbargs+=(--param "$2"); else nbargs+=(--raw "$2"); fi
      has_params=true; shift 2 ;;
    -p*) nbargs+=(--param "${1#-p}"); has_params=true; shift ;;
    --no-code|--no-input) nbargs+=(--no-code); shift ;;
    -o) [ $# -ge 2 ] || usage; page=$(realpath -m "$2"); shift 2 ;;
    --executed) [ $# -ge 2 ] || usage; keep=$(realpath -m "$2"); mkdir -p "$keep"; shift 2 ;;
    -h|--help) usage ;;
    --) shift; break ;;
    -*) echo "run-notebooks: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done

if [ $# -gt 0 ]; then
  notebooks=()
  for nb in "$@"; do
    [ -f "$nb" ] || { echo "run-notebooks: no notebook $nb" >&2; exit 2; }
    notebooks+=("$(realpath "$nb")")
  done
else
  shopt -s nullglob
  notebooks=("$ROOT"/notebooks/*.ipynb)
  shopt -u nullglob
  [ ${#notebooks[@]} -gt 0 ] || { echo "run-notebooks: no notebooks in $ROOT/notebooks" >&2; exit 1; }
  $has_params || [ -n "$page" ] || rm -f "$OUT"/*.html # a full run leaves no page of a deleted notebook behind
fi
if [ -n "$page" ] && [ ${#notebooks[@]} -ne 1 ]; then
  echo "run-notebooks: -o names one page: give one notebook" >&2; exit 2
fi
mkdir -p "$OUT"

kdir=$(mktemp -d)
trap 'rm -rf "$kdir"' EXIT
JUPYTER_DATA_DIR=$kdir gonb --install --raw_error >/dev/null 2>&1 ||
  { echo "run-notebooks: gonb --install failed" >&2; exit 1; }
export JUPYTER_PATH=$kdir${JUPYTER_PATH:+:$JUPYTER_PATH}

failed=()
for nb in "${notebooks[@]}"; do
  name=$(basename "$nb" .ipynb)
  html=$OUT/$name.html
  $has_params && html=$OUT/$name.what-if.html
  [ -n "$page" ] && html=$page
  mkdir -p "$(dirname "$html")"
  log=$kdir/$name.log
  times=$kdir/$name.times
  extra=()
  [ -n "$keep" ] && extra=(--executed "$keep/$name.ipynb")
  t0=$(date +%s%N)
  if "$PYTHON" "$ROOT/docker/run-notebook.py" "${nbargs[@]}" "${extra[@]}" --timeout "$TIMEOUT" \
      --timings "$times" --html "$html" "$nb" >"$log" 2>&1; then
    secs=$(elapsed "$t0")
    size=$(stat -c %s "$html")
    if [ "$size" -ge "$MAX_BYTES" ]; then
      printf 'FAIL %-28s %6ss  %s is %d bytes, over the %d limit\n' "$name" "$secs" "$html" "$size" "$MAX_BYTES"
      failed+=("$name")
    else
      printf 'ok   %-28s %6ss  %s (%d bytes)\n' "$name" "$secs" "${html#"$ROOT"/}" "$size"
    fi
  else
    secs=$(elapsed "$t0")
    printf 'FAIL %-28s %6ss  execution failed:\n' "$name" "$secs"
    grep -v -e 'Debugger warning' -e 'frozen modules' -e 'PYDEVD_DISABLE' -e 'Xfrozen_modules' "$log" | tail -n 40 | sed 's/^/     /'
    failed+=("$name")
  fi
  # The time of each code cell: [index] seconds.
  [ -s "$times" ] && awk -F'\t' '{ printf "%s[%s] %ss", (NR == 1 ? "     cells: " : "  "), $1, $2 } END { print "" }' "$times"
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "run-notebooks: ${#failed[@]} of ${#notebooks[@]} notebooks failed: ${failed[*]}"
  exit 1
fi
where=$OUT
[ -n "$page" ] && where=$(dirname "$page")
echo "run-notebooks: ${#notebooks[@]} notebooks executed and exported to ${where#"$ROOT"/}/"
