#!/usr/bin/env bash
# docker/run-notebooks.sh [NOTEBOOK.ipynb...]
#
# Executes notebooks headless with Debian's nbconvert and the GoNB kernel, and exports each
# as an offline HTML report: report/notebooks/NAME.html. Default: every notebooks/*.ipynb.
# The notebooks in notebooks/ are not modified (they are committed without outputs).
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
JUPYTER=/usr/bin/jupyter # another python3 (without Jupyter) may stand first on PATH

export PATH=$GOBIN_DIR:/usr/local/go/bin:$PATH
export PYDEVD_DISABLE_FILE_VALIDATION=1 # silences a debugger warning of Debian's ipykernel
unset DASHLAB_INTERACTIVE                # no front-end here: notebooks skip their widgets
for tool in "$JUPYTER" gonb go goimports; do
  command -v "$tool" >/dev/null || { echo "run-notebooks: $tool not found: run docker/setup.sh" >&2; exit 1; }
done

# elapsed T0: seconds since T0 (from date +%s%N), with one decimal.
elapsed() { local ms=$((($(date +%s%N) - $1) / 1000000)); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }

if [ $# -gt 0 ]; then
  notebooks=()
  for nb in "$@"; do notebooks+=("$(realpath "$nb")"); done
else
  shopt -s nullglob
  notebooks=("$ROOT"/notebooks/*.ipynb)
  shopt -u nullglob
  [ ${#notebooks[@]} -gt 0 ] || { echo "run-notebooks: no notebooks in $ROOT/notebooks" >&2; exit 1; }
  rm -f "$OUT"/*.html # a full run leaves no page of a deleted notebook behind
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
  log=$kdir/$name.log
  t0=$(date +%s%N)
  if (cd "$(dirname "$nb")" && "$JUPYTER" nbconvert --to html --execute \
        --ExecutePreprocessor.timeout="$TIMEOUT" --ExecutePreprocessor.kernel_name=gonb \
        --output-dir "$OUT" --output "$name" "$(basename "$nb")") >"$log" 2>&1; then
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
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "run-notebooks: ${#failed[@]} of ${#notebooks[@]} notebooks failed: ${failed[*]}"
  exit 1
fi
echo "run-notebooks: ${#notebooks[@]} notebooks executed and exported to ${OUT#"$ROOT"/}/"
