#!/usr/bin/env bash
# docker/entrypoint.sh: the container's entry point (the image has it as dashlab-entrypoint).
#
#   (no arguments)  serve the notebooks with JupyterLab 4 (and Notebook 7 at /tree, the same
#                   server) on $JUPYTER_IP:$JUPYTER_PORT (default port 8888), always behind a
#                   token: $JUPYTER_TOKEN, or, when it is unset or empty, a random one,
#                   printed with the URL to open.
#                   JUPYTER_IP: inside the container (DASHLAB_IN_CONTAINER=1, which the image
#                   sets) 0.0.0.0, so that a published port reaches it (publish it on the
#                   host's loopback: -p 127.0.0.1:8888:8888); anywhere else 127.0.0.1, this
#                   machine only. Set JUPYTER_IP=0.0.0.0 to serve other machines on purpose.
#   COMMAND...      run COMMAND instead, e.g. `bash docker/ci-notebooks.sh`.
#
# The repository is $DASHLAB_ROOT (the image sets it; default: this script's checkout), and
# Jupyter serves its notebooks/ folder. Also usable outside the container (after
# docker/setup.sh) to serve the notebooks locally. Jupyter is the venv's of docker/setup.sh
# ($DASHLAB_VENV, default /opt/dashlab/jupyter), never the first one on PATH.
set -euo pipefail

ROOT=${DASHLAB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
if [ ! -d "$ROOT/notebooks" ]; then
  echo "entrypoint: no notebooks/ in $ROOT: mount a dashlab checkout there, or none at all" >&2
  exit 1
fi
cd "$ROOT"
export PATH=${DASHLAB_GOBIN:-/usr/local/bin}:/usr/local/go/bin:$PATH
export PYDEVD_DISABLE_FILE_VALIDATION=1
VENV=${DASHLAB_VENV:-/opt/dashlab/jupyter}

if [ $# -gt 0 ]; then
  exec "$@"
fi

port=${JUPYTER_PORT:-8888}
# A token is always required. Jupyter's server takes it from $JUPYTER_TOKEN (not from argv,
# where `ps` would show it).
if [ -z "${JUPYTER_TOKEN:-}" ]; then
  JUPYTER_TOKEN=$("$VENV/bin/python" -c 'import secrets; print(secrets.token_hex(24))')
  export JUPYTER_TOKEN
  echo "entrypoint: JUPYTER_TOKEN was not set; made a random token. Open:"
  echo "    http://127.0.0.1:$port/?token=$JUPYTER_TOKEN"
  echo "(with the host port you published in place of $port)"
fi

# A live front-end: notebooks show their sliders (nb.Redraw). Headless runs
# (docker/run-notebooks.sh) set it to 0, since widgets wait for a browser that is not there.
export DASHLAB_INTERACTIVE=${DASHLAB_INTERACTIVE:-1}
# GoNB links a program per cell: without DWARF the link takes about a quarter less time.
[[ "${GOFLAGS:-}" == *-ldflags* ]] || export GOFLAGS="${GOFLAGS:+$GOFLAGS }-ldflags=-w"

if [ -z "${JUPYTER_IP:-}" ]; then
  if [ "${DASHLAB_IN_CONTAINER:-0}" = 1 ]; then JUPYTER_IP=0.0.0.0; else JUPYTER_IP=127.0.0.1; fi
fi
args=(--ip="$JUPYTER_IP" --port="$port" --no-browser --ServerApp.root_dir="$ROOT/notebooks")
# Jupyter refuses to run as root without --allow-root (the image runs as jovyan; a plain
# checkout may be served by root on a CI machine).
[ "$(id -u)" = 0 ] && args+=(--allow-root)

[ -x "$VENV/bin/jupyter-lab" ] || { echo "entrypoint: no JupyterLab in $VENV: run docker/setup.sh" >&2; exit 1; }
echo "entrypoint: JupyterLab on $JUPYTER_IP:$port (/lab; Notebook 7 at /tree)"
exec "$VENV/bin/jupyter" lab "${args[@]}"
