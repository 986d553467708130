# dashlab: the simulator's module, Go, JupyterLab 4 and Notebook 7 (pinned from PyPI, in a
# venv) and the GoNB kernel, serving the notebooks as an unprivileged user, token required.
#
#   docker build -t dashlab .
#   docker run --rm -p 127.0.0.1:8888:8888 -e JUPYTER_TOKEN=some-secret dashlab
#   # then open http://127.0.0.1:8888/?token=some-secret
#
# Podman: the same with `podman build --format docker` (the OCI format drops HEALTHCHECK).
# docker/container-check.sh builds this file with podman and checks the running container;
# docker/README.md ("The container") has the details, including running it on a checkout
# mounted from the host.
#
# Two stages. `tools` builds goimports, gopls and GoNB (their module and build caches,
# hundreds of MB, stay behind) and trims a copy of Go. The image starts from Debian slim
# and gets the Jupyter venv, those binaries, Go, the repository and a build cache warmed
# with exactly what a notebook compiles. All install logic is in docker/setup.sh; this
# file only orders it into cacheable layers.

# ---- stage 1: the Go tools (Debian bookworm with Go 1.26; the image sets GOTOOLCHAIN=local)
FROM golang:1.26-bookworm AS tools
ENV GOFLAGS=-buildvcs=false
COPY docker/setup.sh docker/versions.sh /src/docker/
RUN DASHLAB_GOBIN=/out/bin /src/docker/setup.sh --tools
# Go for the image, without what building programs never reads: the toolchain's own tests
# and test data, API lists, docs.
RUN cp -a "$(go env GOROOT)" /out/go \
 && rm -rf /out/go/test /out/go/api /out/go/doc /out/go/misc \
 && find /out/go/src -type d -name testdata -prune -exec rm -rf {} +

# ---- stage 2: the image
FROM debian:bookworm-slim

# 1. Debian's python3 (for the venv), and the CA certificates Go's module downloads need
#    (slim has none). Chromium only serves the browser check inside the image
#    (docker/ci-notebooks.sh): off by default.
ARG DASHLAB_CHROMIUM=0
COPY docker/setup.sh docker/versions.sh /tmp/dashlab-setup/docker/
RUN DASHLAB_CHROMIUM=${DASHLAB_CHROMIUM} DASHLAB_EXTRA_DEBS=ca-certificates \
    /tmp/dashlab-setup/docker/setup.sh --debs \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /tmp/dashlab-setup

# 1b. Jupyter from PyPI, every package pinned (docker/requirements-jupyter.txt), in a venv:
#    JupyterLab 4, Notebook 7, nbconvert 7, papermill with the Go translator.
COPY docker/setup.sh docker/versions.sh docker/requirements-jupyter.txt docker/requirements-check.txt /tmp/dashlab-setup/docker/
COPY docker/gonb-papermill /tmp/dashlab-setup/docker/gonb-papermill
RUN DASHLAB_CHROMIUM=${DASHLAB_CHROMIUM} DASHLAB_VENV=/opt/dashlab/jupyter \
    /tmp/dashlab-setup/docker/setup.sh --jupyter \
 && find /opt/dashlab/jupyter -name __pycache__ -prune -exec rm -rf {} + \
 && rm -rf /tmp/dashlab-setup /root/.cache/pip

# 2. The notebook user (the Jupyter images' convention: jovyan, uid 1000, group users).
#    Its home is group-writable (umask 002 below), so that `--user UID:GID --group-add users`
#    works too (see docker/README.md).
ARG NB_USER=jovyan
ARG NB_UID=1000
ARG NB_GID=100
RUN useradd --create-home --uid "${NB_UID}" --gid "${NB_GID}" --shell /bin/bash "${NB_USER}" \
 && chmod 2775 "/home/${NB_USER}"

# 3. Go and the tools from stage 1; the entry point.
COPY --from=tools /out/go /usr/local/go
COPY --from=tools /out/bin/ /usr/local/bin/
COPY docker/entrypoint.sh /usr/local/bin/dashlab-entrypoint

ENV HOME=/home/${NB_USER} \
    DASHLAB_ROOT=/home/${NB_USER}/dashlab \
    GOPATH=/home/${NB_USER}/go \
    GOTOOLCHAIN=local \
    GOFLAGS="-buildvcs=false -modcacherw" \
    DASHLAB_GOBIN=/usr/local/bin \
    DASHLAB_VENV=/opt/dashlab/jupyter \
    DASHLAB_IN_CONTAINER=1 \
    PATH=/home/${NB_USER}/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin:/opt/dashlab/jupyter/bin \
    PYDEVD_DISABLE_FILE_VALIDATION=1 \
    JUPYTER_PORT=8888
USER ${NB_UID}:${NB_GID}
WORKDIR ${DASHLAB_ROOT}

# 4. The GoNB kernel spec, for the notebook user (gonb --install makes its folders 0755).
RUN umask 002 && gonb --install >/dev/null 2>&1 \
 && jupyter kernelspec list | grep -q '^ *gonb ' \
 && mkdir -p "$HOME/.local/share/jupyter/runtime" && chmod -R g+rwX "$HOME/.local"

# 5. The modules: the repository's, and GoNB's at the pinned version fetched as a notebook's
#    setup cell does (docker/notebook-module.sh in a scratch module). Changes only with
#    go.mod, go.sum and the pinned versions. Their test data go (modcache-trim.sh).
COPY --chown=${NB_UID}:${NB_GID} go.mod go.sum ./
COPY --chown=${NB_UID}:${NB_GID} docker/notebook-module.sh docker/versions.sh docker/modcache-trim.sh docker/
RUN umask 002 && go mod download \
 && tmp=$(mktemp -d) && cd "$tmp" && go mod init dashlab_modules 2>/dev/null \
 && bash "$DASHLAB_ROOT/docker/notebook-module.sh" && cd / && rm -rf "$tmp" \
 && "$DASHLAB_ROOT/docker/modcache-trim.sh"

# 6. The repository (every notebook in notebooks/ included), go build ./... and the
#    notebook imports pre-compiled into the build cache, at the path the notebooks run from.
COPY --chown=${NB_UID}:${NB_GID} . .
RUN umask 002 && DASHLAB_MOD_DOWNLOAD=0 docker/setup.sh --module \
 && rm -rf report notebooks/.ipynb_checkpoints \
 && docker/modcache-trim.sh && du -sh "$(go env GOCACHE)"

# Jupyter answers /api without a token: alive. (curl is not in the image; python3 is.)
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD python3 -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/api' % os.environ.get('JUPYTER_PORT', '8888'), timeout=4)"

EXPOSE 8888
ENTRYPOINT ["dashlab-entrypoint"]

# Last: the version changes with every commit, and what follows a changed build argument is
# rebuilt.
ARG DASHLAB_VERSION=dev
ARG DASHLAB_REVISION=unknown
LABEL org.opencontainers.image.title="dashlab" \
      org.opencontainers.image.description="DASH paper reproduction: Go simulator and GoNB Jupyter notebooks" \
      org.opencontainers.image.source="https://github.com/dashlab/dashlab" \
      org.opencontainers.image.url="https://github.com/dashlab/dashlab" \
      org.opencontainers.image.documentation="https://github.com/dashlab/dashlab/blob/main/docker/README.md" \
      org.opencontainers.image.version="${DASHLAB_VERSION}" \
      org.opencontainers.image.revision="${DASHLAB_REVISION}" \
      org.opencontainers.image.base.name="docker.io/library/debian:bookworm-slim"
