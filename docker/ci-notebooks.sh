#!/usr/bin/env bash
# docker/ci-notebooks.sh: the notebook stage of CI. .ci/run calls it after the unit tests:
#
#   bash docker/ci-notebooks.sh
#
#  1. docker/setup.sh           (installs what is missing; a few seconds when all is there)
#  2. chartcheck -selftest      (the browser check passes a good page and fails blank ones)
#     and the papermill translator's unit tests (docker/gonb-papermill)
#  3. docker/run-notebooks.sh   (executes every notebooks/*.ipynb, exports report/notebooks/*.html,
#                                keeps the executed notebooks, fails on a cell error or a page
#                                of 3 MB or more)
#  3b. a parameterised run: 01-capacity exported as a what-if report without code
#      (run-notebooks.sh -r/-p --no-code): the values are set and said, the code left out; a
#      name the parameters cell does not declare fails
#  3c. the shared-notebook checks of docker/nbcheck.py, in headless Chromium:
#      (a) executed notebooks (CHECK_LAB: 00, 05, 11, 12, 99) reopened untrusted in JupyterLab 4 and
#          Notebook 7 show every chart; (b) every exported page with JavaScript disabled shows every chart,
#          and a page without its static images must fail (negative control); (c) every
#          notebook rendered with its scripts stripped shows every chart; (d) nbconvert's
#          webpdf export (Debian's chromium) of every notebook shows every chart; (e) Run
#          All in JupyterLab on docker/nbcheck-slider.ipynb: the cell after the slider runs
#          with no interrupt, and the slider redraws the chart with no kernel; (f) papermill
#          -p on 01-capacity gives the same numbers as the parameters cell edited by hand
#  4. the HTML report: report/index.html, which .ci/run writes just before
#     (go run ./dash/cmd/dashlab reproduce --out report/); made here when it is missing
#  5. chartcheck on report/index.html (every figure: at least REPORT_MIN_CHARTS charts) and on
#     every exported notebook page, plus a negative control: the first exported page without
#     its ECharts library must fail.
#
# Exit status non-zero when any step fails. Prints the time of each step.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export PATH=${DASHLAB_GOBIN:-/usr/local/bin}:/usr/local/go/bin:$PATH

t_all=$SECONDS
timings=()
run_step() { # run_step NAME CMD...: run CMD, record its time
  local name=$1 t0=$SECONDS; shift
  echo "== $name"
  if "$@"; then
    timings+=("$(printf '%-34s %4ds' "$name" $((SECONDS - t0)))")
  else
    local rc=$?
    timings+=("$(printf '%-34s %4ds  FAILED' "$name" $((SECONDS - t0)))")
    summary
    echo "ci-notebooks: FAILED at: $name (exit $rc)"
    exit 1
  fi
}
summary() {
  echo "== timings"
  printf '   %s\n' "${timings[@]}"
  printf '   %-34s %4ds\n' "total" $((SECONDS - t_all))
}

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
VENV=${DASHLAB_VENV:-/opt/dashlab/jupyter}
PY=$VENV/bin/python # the Jupyter venv of docker/setup.sh, whichever python is first on PATH
executed=$bin/executed
chartcheck=$bin/chartcheck

negative_control() { # the check must fail on a page whose charts cannot draw
  if "$chartcheck" -without-library "$1"; then
    echo "chartcheck passed $1 without its ECharts library: the check is broken"
    return 1
  fi
  echo "ok   negative control: $1 without its library fails, as it must"
}

# The full report has Fig. 1 (2 charts), the GPU timing model (2), Fig. 9(a) and (b) (4 each)
# and three route timelines: a figure that goes missing fails the check.
REPORT_MIN_CHARTS=${REPORT_MIN_CHARTS:-15}

report() {
  if [ -f report/index.html ]; then
    echo "     report/index.html present ($(stat -c %s report/index.html) bytes)"
  else
    go run ./dash/cmd/dashlab reproduce --out report/ >/dev/null
  fi
}

check_pages() {
  local pages=() ok=0
  shopt -s nullglob
  pages=(report/notebooks/*.html)
  shopt -u nullglob
  # Pages left out of the browser check (space-separated base names; none by default).
  # 07-serving's page used to be left out: Chromium's virtual clock now and then never ran
  # out on it; chartcheck now retries such a page without virtual time (docker/README.md).
  local skip=" ${CHARTCHECK_SKIP-} " kept=()
  for p in "${pages[@]}"; do
    if [[ "$skip" == *" $(basename "$p") "* ]]; then echo "skip $p (CHARTCHECK_SKIP)"; else kept+=("$p"); fi
  done
  pages=("${kept[@]}")
  [ ${#pages[@]} -gt 0 ] || { echo "no exported notebook pages"; return 1; }
  "$chartcheck" -min-charts "$REPORT_MIN_CHARTS" report/index.html || ok=1
  nbcheck nojs --min-charts "$REPORT_MIN_CHARTS" report/index.html || ok=1 # (b) for the report
  "$chartcheck" "${pages[@]}" || ok=1
  negative_control "${pages[0]}" || ok=1
  return $ok
}

run_step "setup (docker/setup.sh)" docker/setup.sh
run_step "build chartcheck" go build -o "$chartcheck" ./docker/chartcheck
run_step "chartcheck -selftest" "$chartcheck" -selftest
run_step "papermill translator tests" "$PY" -m unittest discover -s docker/gonb-papermill
run_step "execute + export notebooks" docker/run-notebooks.sh --executed "$executed"
param_run() {
  local page=$bin/01-capacity.what-if.html out=$bin/param.out
  docker/run-notebooks.sh --no-code -r inventoryModel=deepseek-v3 -p contextTokens=8192 -o "$page" \
    notebooks/01-capacity.ipynb || return 1
  grep -q 'Parameters of this run (papermill): inventoryModel = \("\|&#34;\|&quot;\)deepseek-v3\("\|&#34;\|&quot;\); contextTokens = 8192' "$page" ||
    { echo "the what-if page does not say which parameters were set"; return 1; }
  if grep -q 'nb.Library()' "$page"; then echo "the --no-code page has code cells"; return 1; fi
  if docker/run-notebooks.sh -p noSuchParameter=1 -o "$bin/x.html" notebooks/01-capacity.ipynb >"$out" 2>&1; then
    echo "a parameter the notebook does not declare was accepted"; return 1
  fi
  grep -q 'declares no noSuchParameter' "$out" || { echo "unexpected error for an unknown parameter:"; cat "$out"; return 1; }
  echo "ok   parameters set and said, no code on the page, an unknown name refused"
}

run_step "parameterised run (-p, --no-code)" param_run
nbcheck() { # nbcheck ARGS...: docker/nbcheck.py, GoNB's and Jupyter's logs kept aside (shown on failure)
  local log=$bin/nbcheck.log
  if "$PY" docker/nbcheck.py "$@" 2>"$log"; then return 0; fi
  grep -v -e '^I1' -e 'Debugger warning' -e 'frozen modules' "$log" | tail -n 30
  return 1
}
# (a) on a few notebooks (each takes a JupyterLab and a Notebook 7 page, 20-30 s on a loaded
# machine): the overview, the one with the most charts, the newest (cluster, routing), and the one with a
# slider of its own.
CHECK_LAB=${CHECK_LAB-00-overview 05-throughput-latency 11-cluster 12-routing 99-design-your-own}
check_lab() {
  local n list=()
  for n in $CHECK_LAB; do list+=("$executed/$n.ipynb"); done
  nbcheck lab "${list[@]}"
}
check_nojs() {
  local nb rc=0
  for nb in "$executed"/*.ipynb; do
    nbcheck nojs "report/notebooks/$(basename "$nb" .ipynb).html" "$nb" || rc=1
  done
  # Negative control: without its static images, a page with JavaScript off shows no chart.
  # (nbcheck removes them whatever the order of their attributes: nbconvert writes them again.)
  if "$PY" docker/nbcheck.py nojs --without-static report/notebooks/01-capacity.html "$executed/01-capacity.ipynb" >/dev/null 2>&1; then
    echo "nbcheck nojs passed a page without static images: the check is broken"; return 1
  fi
  echo "ok   negative control: 01-capacity's page without its static images fails, as it must"
  return $rc
}
check_stripped() { nbcheck stripped "$executed"/*.ipynb; }
check_pdf() { nbcheck pdf "$executed"/*.ipynb; }
check_slider() { nbcheck slider docker/nbcheck-slider.ipynb; }
check_papermill() { nbcheck papermill notebooks/01-capacity.ipynb contextTokens=8192 inventoryModel=deepseek-v3; }

run_step "(a) JupyterLab 4 + Notebook 7, untrusted" check_lab
run_step "(b) exported pages, JavaScript off" check_nojs
run_step "(c) notebooks, scripts stripped" check_stripped
run_step "(d) webpdf (Debian's chromium)" check_pdf
run_step "(e) slider cell, then a cell" check_slider
run_step "(f) papermill = live tweak" check_papermill
run_step "HTML report (report/index.html)" report
run_step "browser check of the pages" check_pages
summary
echo "ci-notebooks: all passed"
