# dashlab: the simulator's module with Go, Jupyter Notebook (Debian's packages), the GoNB
# kernel (pinned), goimports and gopls, and a warm Go build cache, serving the notebooks.
#
#   docker build -t dashlab .
#   docker run --rm -p 8888:8888 -e JUPYTER_TOKEN=some-secret dashlab
#   # then open http://localhost:8888/?token=some-secret
#
#   docker build --build-arg DASHLAB_CHROMIUM=1 -t dashlab-ci .   # with chromium, then:
#   docker run --rm dashlab-ci bash docker/ci-notebooks.sh          # the CI notebook stage
#
# All install logic is in docker/setup.sh, which CI runs on a bare machine too; this file
# only orders it into cacheable layers. See docker/README.md.

# Debian bookworm with Go 1.26 at /usr/local/go (the image sets GOTOOLCHAIN=local).
FROM golang:1.26-bookworm

ENV DEBIAN_FRONTEND=noninteractive \
    DASHLAB_GOBIN=/usr/local/bin \
    GOFLAGS=-buildvcs=false \
    PYDEVD_DISABLE_FILE_VALIDATION=1 \
    JUPYTER_PORT=8888

WORKDIR /opt/dashlab

# 1. Debian packages, GoNB, goimports, gopls and the kernel spec: independent of the
#    repository's contents, so this layer survives code changes. Chromium is only needed
#    for the browser check (docker/ci-notebooks.sh), not to use the notebooks: off by default.
ARG DASHLAB_CHROMIUM=0
COPY docker/setup.sh docker/versions.sh docker/
RUN DASHLAB_CHROMIUM=${DASHLAB_CHROMIUM} docker/setup.sh --system \
 && rm -rf /var/lib/apt/lists/*

# 2. The module's dependencies: changes only with go.mod and go.sum.
COPY go.mod go.sum ./
RUN go mod download

# 3. The repository, then go build ./... and the notebook imports pre-compiled.
COPY . .
RUN docker/setup.sh --module \
 && rm -rf report notebooks/.ipynb_checkpoints

EXPOSE 8888
ENTRYPOINT ["/opt/dashlab/docker/entrypoint.sh"]
