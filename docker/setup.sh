#!/usr/bin/env bash
# docker/setup.sh: install everything the dashlab notebooks need, on a bare Debian
# bookworm machine (CI, a developer's machine) or inside the Docker image.
#
#   docker/setup.sh            # system part + module part (what CI uses)
#   docker/setup.sh --system   # only Debian packages, Jupyter and Go tools (no module needed)
#   docker/setup.sh --module   # only the module's dependencies and the warm build cache
#   docker/setup.sh --debs     # only the Debian packages          (the Dockerfile's layers:
#   docker/setup.sh --jupyter  # only the Jupyter venv             a build stage makes the
#   docker/setup.sh --tools    # only goimports, gopls and GoNB     tools, the image copies
#   docker/setup.sh --kernel   # only the GoNB kernel spec          them)
#
# Jupyter (JupyterLab 4, Notebook 7, nbconvert 7, nbclient, papermill with the Go translator
# of docker/gonb-papermill) comes from PyPI, every package pinned in
# docker/requirements-jupyter.txt, into its own venv: $DASHLAB_VENV/bin/jupyter and
# $DASHLAB_VENV/bin/python are what every script runs, whichever python is first on PATH.
#
# Environment:
#   DASHLAB_VENV=DIR        the Jupyter venv (default /opt/dashlab/jupyter)
#   DASHLAB_CHROMIUM=0      skip Debian's chromium and the browser-check packages
#                           (docker/requirements-check.txt: Playwright; only for the checks)
#   DASHLAB_GOBIN=DIR       where Go tools go (default /usr/local/bin, on every PATH)
#   DASHLAB_EXTRA_DEBS=...  more Debian packages (the Dockerfile: ca-certificates)
#   DASHLAB_MOD_DOWNLOAD=0  --module: no go mod download (the Dockerfile: modules are there)
#
# Idempotent: every step checks first and is skipped when already done, so a second
# run takes a few seconds. Needs root for apt-get and for writing DASHLAB_GOBIN.
# Versions are pinned in docker/versions.sh; docker/README.md says why.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# GONB_VERSION, GOPLS_VERSION, GOIMPORTS_VERSION
# shellcheck source=docker/versions.sh
. "$ROOT/docker/versions.sh"
DASHLAB_CHROMIUM=${DASHLAB_CHROMIUM:-1}
GOBIN_DIR=${DASHLAB_GOBIN:-/usr/local/bin}
VENV=${DASHLAB_VENV:-/opt/dashlab/jupyter}

do_debs=0 do_jupyter=0 do_tools=0 do_kernel=0 do_module=0
case "${1:-}" in
  "") do_debs=1 do_jupyter=1 do_tools=1 do_kernel=1 do_module=1 ;;
  --system) do_debs=1 do_jupyter=1 do_tools=1 do_kernel=1 ;;
  --module) do_module=1 ;;
  --debs) do_debs=1 ;;
  --jupyter) do_jupyter=1 ;;
  --tools) do_tools=1 ;;
  --kernel) do_kernel=1 ;;
  -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
  *) echo "setup.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
esac

if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
  export PATH=/usr/local/go/bin:$PATH
fi
export PATH=$GOBIN_DIR:$PATH

t_all=$SECONDS
step() { step_name=$1; t_step=$SECONDS; }
done_() { printf '[setup] %-40s %s (%ds)\n' "$step_name" "${1:-ok}" $((SECONDS - t_step)); }
# quiet CMD...: run CMD with its output kept aside, shown only if it fails.
quiet() {
  local log; log=$(mktemp)
  if ! "$@" >"$log" 2>&1; then
    echo "[setup] $step_name: FAILED: $*" >&2; cat "$log" >&2; rm -f "$log"; exit 1
  fi
  rm -f "$log"
}

# retry CMD...: run CMD up to 3 times, 10 s apart (network steps: mirrors fail now and then).
retry() {
  local n
  for n in 1 2 3; do
    "$@" && return 0
    [ "$n" = 3 ] || { echo "[setup] $step_name: attempt $n failed: $*; retrying in 10 s" >&2; sleep 10; }
  done
  return 1
}

# ---------- system part: Debian packages and Go tools ----------
install_debs() {
  # Debian's python3 only makes the Jupyter venv (install_jupyter); Jupyter is from PyPI.
  local want=(python3 python3-venv)
  # fonts: chromium draws chart text with them (--no-install-recommends drops them).
  # poppler-utils: the PDF check reads the webpdf export (pdftotext, pdftoppm).
  [ "$DASHLAB_CHROMIUM" = 1 ] && want+=(chromium fonts-liberation poppler-utils)
  # shellcheck disable=SC2206 # a list of package names
  [ -n "${DASHLAB_EXTRA_DEBS:-}" ] && want+=($DASHLAB_EXTRA_DEBS)
  local missing=() p
  for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  step "Debian packages"
  if [ ${#missing[@]} -eq 0 ]; then done_ "already installed"; return; fi
  export DEBIAN_FRONTEND=noninteractive
  quiet retry apt-get update
  quiet retry apt-get install -y --no-install-recommends "${missing[@]}"
  done_ "installed ${missing[*]}"
}

# The Jupyter venv: remade when its requirements or the translator change (a stamp holds
# their hash), else left as it is.
install_jupyter() {
  local reqs=("$ROOT/docker/requirements-jupyter.txt") stamp tmp
  [ "$DASHLAB_CHROMIUM" = 1 ] && reqs+=("$ROOT/docker/requirements-check.txt")
  step "Jupyter venv $VENV"
  stamp=$(cat "${reqs[@]}" "$ROOT"/docker/gonb-papermill/pyproject.toml "$ROOT"/docker/gonb-papermill/gonb_papermill/*.py | sha256sum | cut -c1-16)
  if [ -x "$VENV/bin/jupyter-lab" ] && [ "$(cat "$VENV/.dashlab-stamp" 2>/dev/null)" = "$stamp" ]; then
    done_ "present"; return
  fi
  [ -x "$VENV/bin/python" ] || quiet /usr/bin/python3 -m venv "$VENV"
  local args=()
  for r in "${reqs[@]}"; do args+=(-r "$r"); done
  quiet retry "$VENV/bin/pip" install --disable-pip-version-check --no-input -q "${args[@]}"
  # The translator from a copy (a build leaves build/ and *.egg-info behind in its source).
  tmp=$(mktemp -d)
  cp -r "$ROOT/docker/gonb-papermill/." "$tmp/"
  quiet "$VENV/bin/pip" install --disable-pip-version-check --no-input -q --no-deps --no-build-isolation "$tmp"
  rm -rf "$tmp"
  echo "$stamp" >"$VENV/.dashlab-stamp"
  done_ "installed (JupyterLab $("$VENV/bin/jupyter-lab" --version 2>/dev/null | tail -n 1))"
}

# has_go_bin BIN MODULE VERSION: BIN exists and was built from MODULE at VERSION.
has_go_bin() {
  [ -x "$GOBIN_DIR/$1" ] && go version -m "$GOBIN_DIR/$1" 2>/dev/null |
    grep -Eq "^[[:space:]]+(mod|dep)[[:space:]]+$2[[:space:]]+$3([[:space:]]|$)"
}

install_go_tools() {
  command -v go >/dev/null || { echo "setup.sh: Go not found (expected /usr/local/go)" >&2; exit 1; }
  mkdir -p "$GOBIN_DIR"
  step "goimports $GOIMPORTS_VERSION"
  if has_go_bin goimports golang.org/x/tools "$GOIMPORTS_VERSION"; then done_ "present"; else
    GOBIN=$GOBIN_DIR quiet go install "golang.org/x/tools/cmd/goimports@$GOIMPORTS_VERSION"; done_ "installed"; fi
  step "gopls $GOPLS_VERSION"
  if has_go_bin gopls golang.org/x/tools/gopls "$GOPLS_VERSION"; then done_ "present"; else
    GOBIN=$GOBIN_DIR quiet go install "golang.org/x/tools/gopls@$GOPLS_VERSION"; done_ "installed"; fi
  step "gonb $GONB_VERSION"
  if has_go_bin gonb github.com/janpfeifer/gonb "$GONB_VERSION"; then done_ "present"; else
    # `go install gonb@version` asks the proxy for gonb's version list, which it refuses;
    # installing from inside a throw-away module asks only for the exact version.
    local tmp; tmp=$(mktemp -d)
    (cd "$tmp" && quiet go mod init dashlab-tools &&
      quiet go get "github.com/janpfeifer/gonb@$GONB_VERSION" &&
      GOBIN=$GOBIN_DIR quiet go install github.com/janpfeifer/gonb)
    rm -rf "$tmp"; done_ "installed"
  fi
}

install_kernel() {
  step "GoNB Jupyter kernel"
  # HTML error display for interactive use; docker/run-notebooks.sh installs its own
  # --raw_error copy for headless runs. gonb --install needs goimports and gopls on PATH.
  local spec=${JUPYTER_DATA_DIR:-$HOME/.local/share/jupyter}/kernels/gonb/kernel.json
  if [ -f "$spec" ] && grep -q "\"$GOBIN_DIR/gonb\"" "$spec"; then done_ "present"; else
    quiet "$GOBIN_DIR/gonb" --install
    PYDEVD_DISABLE_FILE_VALIDATION=1 "$VENV/bin/jupyter" kernelspec list 2>/dev/null | grep -q '^ *gonb ' ||
      { echo "gonb kernel not registered" >&2; exit 1; }
    done_ "installed"
  fi
}

# ---------- module part: dependencies and a warm build cache ----------
warm_module() {
  cd "$ROOT"
  step "go mod download"
  # The Dockerfile's cache has the modules without their zips, which go mod download would
  # fetch again; go build reads the extracted sources.
  if [ "${DASHLAB_MOD_DOWNLOAD:-1}" = 0 ]; then done_ "skipped (DASHLAB_MOD_DOWNLOAD=0)"; else
    quiet go mod download; done_; fi
  step "go build ./... (warm build cache)"
  quiet go build ./...; done_
  step "pre-compile notebook imports"
  # A notebook's cells build in GoNB's own temporary module, which its setup cell points at
  # this repository with docker/notebook-module.sh. Building, in a module set up by the same
  # script, every importable package of this module (charts, the engine, ...) and gonbui
  # leaves the same compiled packages in the build cache: a notebook's first cell then
  # compiles none of them.
  local tmp pkgs
  pkgs=$(go list -f '{{if ne .Name "main"}}{{.ImportPath}}{{end}}' ./... | grep -v '/internal\(/\|$\)')
  tmp=$(mktemp -d)
  {
    printf 'package main\n\nimport (\n\t_ "github.com/janpfeifer/gonb/gonbui"\n'
    for p in $pkgs; do printf '\t_ "%s"\n' "$p"; done
    printf ')\n\nfunc main() {}\n'
  } >"$tmp/main.go"
  (cd "$tmp" && quiet go mod init dashlab_nbwarm && quiet bash "$ROOT/docker/notebook-module.sh" &&
    quiet go build -o /dev/null .)
  rm -rf "$tmp"
  done_ "$(echo "$pkgs" | wc -w) packages of the module + gonbui"
}

[ "$do_debs" = 1 ] && install_debs
[ "$do_jupyter" = 1 ] && install_jupyter
[ "$do_tools" = 1 ] && install_go_tools
[ "$do_kernel" = 1 ] && install_kernel
[ "$do_module" = 1 ] && warm_module
echo "[setup] done in $((SECONDS - t_all))s"
