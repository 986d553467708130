#!/usr/bin/env bash
# docker/notebook-module.sh: makes the Go module of the current directory build against
# this repository. A notebook's setup cell runs it in GoNB's temporary module:
#
#   !*bash "$GONB_DIR/../docker/notebook-module.sh"
#
# and docker/setup.sh runs it in a scratch module to warm the build cache with exactly the
# packages a notebook compiles. It
#   - replaces github.com/dashlab/dashlab with this checkout and requires it at the zero
#     pseudo-version (with only the replace, go get would ask the proxy for the module);
#   - requires every module the repository builds with, at the repository's versions: with
#     Go's module graph pruning, a module that imports the repository's packages must list
#     the modules those packages import (go-echarts, gonum, yaml, ...) itself;
#   - adds the repository's go.sum, and GoNB's gonbui at the pinned version.
# Idempotent. Prints nothing when all is well, except on a cold build cache, where it says
# that it compiles the packages (and how long that took) instead of leaving the next cell
# silent for a minute.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=docker/versions.sh
. "$ROOT/docker/versions.sh"
MODULE=github.com/dashlab/dashlab

[ -f go.mod ] || { echo "notebook-module.sh: no go.mod in $PWD" >&2; exit 1; }
list_reqs() { (cd "$ROOT" && go list -m -f '{{if not .Main}}-require={{.Path}}@{{.Version}}{{end}}' all); }
reqs_text=$(GOPROXY=off list_reqs 2>/dev/null || list_reqs)
mapfile -t reqs < <(grep . <<<"$reqs_text")
go mod edit -replace "$MODULE=$ROOT" -require "$MODULE@v0.0.0-00010101000000-000000000000" "${reqs[@]}"
touch go.sum
sort -u -o go.sum go.sum "$ROOT/go.sum"
# From the module cache first (docker/setup.sh filled it): no network round trips, which
# otherwise cost seconds per notebook; from the proxy when something is missing.
log=$(mktemp)
if ! GOPROXY=off go get "github.com/janpfeifer/gonb@$GONB_VERSION" >"$log" 2>&1 &&
  ! go get "github.com/janpfeifer/gonb@$GONB_VERSION" >"$log" 2>&1; then
  cat "$log" >&2; rm -f "$log"; exit 1
fi
# On a cold build cache the next cell (the imports) compiles the engine, the charts and
# goja: about 40 s on two cores, which would pass in silence. Say so, and do it here, where
# the wait is explained (`go list` tells whether anything needs compiling: about a second).
if [ "${DASHLAB_NOTEBOOK_PREBUILD:-1}" = 1 ]; then
  pkg=github.com/dashlab/dashlab/notebooks/nb
  if [ "$(go list -f '{{.Stale}}' "$pkg" 2>/dev/null)" = true ]; then
    t0=$(date +%s)
    echo "notebook-module.sh: compiling the dashlab packages for the notebooks (a cold Go build cache: about a minute on two cores; later cells take seconds) ..."
    go build "$pkg" >"$log" 2>&1 || { cat "$log" >&2; rm -f "$log"; exit 1; }
    echo "notebook-module.sh: compiled in $(($(date +%s) - t0)) s"
  fi
fi
rm -f "$log"
