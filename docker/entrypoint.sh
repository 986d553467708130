#!/usr/bin/env bash
# docker/entrypoint.sh: the container's entry point.
#
#   (no arguments)  serve the notebooks with Jupyter Notebook on 0.0.0.0:$JUPYTER_PORT
#                   (default 8888), protected by the token in $JUPYTER_TOKEN; when it is
#                   unset, Jupyter makes a random one and logs the URL with it.
#   COMMAND...      run COMMAND instead, e.g. `bash docker/ci-notebooks.sh`.
#
# Also usable outside the container (after docker/setup.sh) to serve the notebooks locally.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export PATH=${DASHLAB_GOBIN:-/usr/local/bin}:/usr/local/go/bin:$PATH
export PYDEVD_DISABLE_FILE_VALIDATION=1

if [ $# -gt 0 ]; then
  exec "$@"
fi

# Jupyter Notebook takes the token from $JUPYTER_TOKEN (not from argv, where `ps` would show
# it) and masks it in its log; when it is unset, Jupyter makes a random one and logs the URL
# with it in full.
if [ -z "${JUPYTER_TOKEN:-}" ]; then
  unset JUPYTER_TOKEN
  echo "entrypoint: JUPYTER_TOKEN is not set: Jupyter makes a random token; see the URL below."
fi

# A live front-end: notebooks may show GoNB widgets (notebook 99's slider). Headless runs
# (docker/run-notebooks.sh) unset it, since widgets wait for a browser that is not there.
export DASHLAB_INTERACTIVE=${DASHLAB_INTERACTIVE:-1}

# /usr/bin/jupyter: Debian's; another python3 without Jupyter may stand first on PATH.
exec /usr/bin/jupyter notebook \
  --ip="${JUPYTER_IP:-0.0.0.0}" --port="${JUPYTER_PORT:-8888}" --no-browser --allow-root \
  --notebook-dir="$ROOT/notebooks"
