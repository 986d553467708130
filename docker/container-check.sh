#!/usr/bin/env bash
# docker/container-check.sh: builds the Dockerfile with podman and checks the running
# container, on a Debian bookworm machine that reaches no container registry (as root).
# .ci/run calls it after the notebook stage:
#
#   bash docker/container-check.sh
#
#  1. podman, buildah, runc, mmdebstrap... from Debian's packages (skipped when installed)
#  2. /etc/containers/{containers,storage}.conf: runc with cgroupfs, lower ulimits, overlay
#  3. the local stand-ins for the Dockerfile's base images (no registry here), made once and
#     kept in podman's storage: debian:bookworm-slim (mmdebstrap) and golang:1.26-bookworm
#     (that + Debian's build packages + this machine's Go); remade when their recipe changes
#  4. podman build --pull=never (layers cached between runs), the image size reported
#  5. the container started on 127.0.0.1 with a random token and a host folder mounted on
#     its report/ folder; then: Jupyter answers, PID 1 and the notebooks' owner are not
#     root, the API refuses requests without the token (or with a wrong one), it lists the
#     gonb kernel, a Go cell runs in a gonb kernel through the REST and websocket API
#     (docker/kernel-exec.py), the healthcheck passes
#  6. notebooks/00-overview.ipynb executed inside the running container (docker/run-notebooks.sh),
#     its HTML export written into the mounted folder and checked in the host's Chromium
#     (docker/chartcheck: every chart drawn)
#  7. the container stopped and removed; then a second one run as another uid on a copy of the
#     checkout mounted over the image's, with no token given: a random token is printed
#     and required, a Go cell runs as that uid, and a notebook saved through the API is on
#     the host, owned by that uid (the README's way to keep work)
#  8. every container removed, whatever happened (also on failure or Ctrl-C)
#
# Every step prints its time; a failing step is named, with the last lines of its log.
# Needs: root, Go at /usr/local/go, chromium for step 6 (docker/setup.sh installs it).
# Environment:
#   DASHLAB_IMAGE            the image's tag (default localhost/dashlab:latest)
#   DASHLAB_IMAGE_MAX_MB     fail when the image is larger (default 1500)
#   DASHLAB_CONTAINER_LOGS   keep the step logs in this folder (default: a temporary one,
#                            removed on success)
#   DASHLAB_NOTEBOOK         the notebook executed in the container (default notebooks/00-overview.ipynb)
#   DASHLAB_CELL_TIMEOUT     seconds one of its cells may run (default 900)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export PATH=/usr/local/go/bin:$PATH

IMAGE=${DASHLAB_IMAGE:-localhost/dashlab:latest}
MAX_MB=${DASHLAB_IMAGE_MAX_MB:-1500}
NOTEBOOK=${DASHLAB_NOTEBOOK:-notebooks/00-overview.ipynb}
GO_BASE=localhost/golang:1.26-bookworm
SLIM_BASE=localhost/debian:bookworm-slim
ROOTFS=localhost/dashlab-rootfs:bookworm
NB_HOME=/home/jovyan/dashlab # the repository in the image (the Dockerfile's DASHLAB_ROOT)
PY=${DASHLAB_VENV:-/opt/dashlab/jupyter}/bin/python # the host's Jupyter venv (docker/setup.sh)
PACKAGES=(podman buildah runc mmdebstrap uidmap slirp4netns fuse-overlayfs crun netavark
  aardvark-dns containernetworking-plugins)

[ "$(id -u)" = 0 ] || { echo "container-check: needs root (apt-get, podman storage)" >&2; exit 1; }

logs=${DASHLAB_CONTAINER_LOGS:-}
keep_logs=1
[ -n "$logs" ] || { logs=$(mktemp -d /tmp/dashlab-container-check.XXXXXX); keep_logs=0; }
mkdir -p "$logs"
work=$(mktemp -d /tmp/dashlab-container-work.XXXXXX)
name=dashlab-check-$$
started=0
step_pid=

t_all=$SECONDS
timings=()
summary() {
  echo "== timings"
  printf '   %s\n' "${timings[@]}"
  printf '   %-44s %5ds\n' "total" $((SECONDS - t_all))
}
cleanup() {
  local rc=$?
  if [ -n "$step_pid" ]; then # interrupted: stop the step and what it started
    pkill -TERM -P "$step_pid" 2>/dev/null || true
    kill "$step_pid" 2>/dev/null || true
    wait "$step_pid" 2>/dev/null || true
  fi
  if [ "$started" = 1 ]; then
    podman rm -f -i -t 5 "$name" "$name-mounted" >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
  if [ "$rc" = 0 ] && [ "$keep_logs" = 0 ]; then rm -rf "$logs"; else echo "container-check: logs in $logs"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# run_step NAME CMD...: runs CMD with its output in $logs/<n>.log, records its time; on
# failure names the step, shows the end of its log (and the container's), and exits.
n_step=0
run_step() {
  local step=$1 t0=$SECONDS log rc=0
  shift
  n_step=$((n_step + 1))
  log=$logs/$(printf '%02d' $n_step)-$(tr -c 'a-zA-Z0-9\n' '-' <<<"$step" | head -c 40).log
  printf '== %-44s ' "$step"
  # In the background, so that `set -e` holds inside the step (bash ignores it in a
  # function called as `f || ...`); a step's variables do not come back.
  "$@" >"$log" 2>&1 &
  step_pid=$!
  wait "$step_pid" || rc=$?
  step_pid=
  local secs=$((SECONDS - t0)) note
  note=$(tail -n 1 "$log" 2>/dev/null | grep '^result: ' | cut -c9- || true)
  if [ "$rc" = 0 ]; then
    printf '%5ds  %s\n' "$secs" "$note"
    timings+=("$(printf '%-44s %5ds  %s' "$step" "$secs" "$note")")
    return 0
  fi
  printf '%5ds  FAILED (exit %d)\n' "$secs" "$rc"
  timings+=("$(printf '%-44s %5ds  FAILED' "$step" "$secs")")
  echo "container-check: FAILED at step: $step (exit $rc). Last lines of $log:"
  tail -n 40 "$log" | sed 's/^/    /'
  if [ "$started" = 1 ]; then
    echo "container-check: last lines of the container's log:"
    podman logs --tail 20 "$name" 2>&1 | sed 's/^/    /' || true
  fi
  summary
  exit 1
}
# result TEXT: the one-line result a step shows next to its time (the log's last line).
result() { echo "result: $*"; }

# retry N CMD...: network steps (mirrors, the module proxy) fail now and then.
retry() {
  local tries=$1 i
  shift
  for ((i = 1; i <= tries; i++)); do
    "$@" && return 0
    [ "$i" = "$tries" ] || { echo "--- attempt $i of $tries failed: $*; retrying in 15 s"; sleep 15; }
  done
  return 1
}

# ---------- 1-2. podman ----------
install_podman() {
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -eq 0 ]; then result "already installed ($(podman --version))"; return; fi
  export DEBIAN_FRONTEND=noninteractive
  retry 3 apt-get update
  retry 3 apt-get install -y --no-install-recommends "${missing[@]}"
  result "installed ${missing[*]}"
}

# write_conf FILE: FILE gets stdin, unless it already has exactly that (a file not written
# by this script is kept aside as FILE.orig-dashlab first).
write_conf() {
  local file=$1 want
  want=$(cat)
  if [ -f "$file" ] && [ "$(cat "$file")" = "$want" ]; then echo "$file: unchanged"; return; fi
  if [ -f "$file" ] && ! grep -q 'docker/container-check.sh' "$file" && [ ! -f "$file.orig-dashlab" ]; then
    cp -p "$file" "$file.orig-dashlab"
  fi
  mkdir -p "$(dirname "$file")"
  printf '%s\n' "$want" >"$file"
  echo "$file: written"
}

configure_podman() {
  # The sandbox's root lacks CAP_SYS_RESOURCE (podman's default ulimits fail), its cgroups
  # are hybrid (crun refuses them): runc with the cgroupfs manager and lower limits.
  write_conf /etc/containers/containers.conf <<'EOF'
# written by dashlab's docker/container-check.sh (see docker/README.md)
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
EOF
  write_conf /etc/containers/storage.conf <<'EOF'
# written by dashlab's docker/container-check.sh (see docker/README.md)
[storage]
driver = "overlay"
runroot = "/run/containers/storage"
graphroot = "/var/lib/containers/storage"
EOF
  podman info --format '{{.Host.OCIRuntime.Name}} {{.Store.GraphDriverName}}'
  result "$(podman info --format 'runtime {{.Host.OCIRuntime.Name}}, storage {{.Store.GraphDriverName}}')"
}

# ---------- 3. the stand-in base images ----------
MMDEBSTRAP_ARGS=(--variant=minbase --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr
  --aptopt='Apt::Install-Recommends "false"'
  # as in Debian's slim images: no docs, man pages or translations
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*'
  --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-include=/usr/share/locale/locale.alias'
  --dpkgopt='path-exclude=/usr/share/lintian/*')
MIRRORS=("deb http://deb.debian.org/debian bookworm main"
  "deb http://deb.debian.org/debian bookworm-updates main"
  "deb http://deb.debian.org/debian-security bookworm-security main")

# The recipe of the stand-ins: when it changes (the Containerfiles, the mmdebstrap options,
# this machine's Go or its CA certificates), they are made again.
standin_recipe() {
  {
    cat docker/standin/*.Containerfile
    printf '%s\n' "${MMDEBSTRAP_ARGS[@]}" "${MIRRORS[@]}"
    /usr/local/go/bin/go version
    cat /usr/local/share/ca-certificates/*.crt 2>/dev/null || true
  } | sha256sum | cut -c1-16
}
RECIPE=$(standin_recipe)
has_standin() {
  [ "$(podman image inspect --format '{{index .Config.Labels "dashlab.standin"}}' "$1" 2>/dev/null)" = "$RECIPE" ]
}

make_rootfs() {
  local tar=$work/rootfs.tar
  retry 2 mmdebstrap "${MMDEBSTRAP_ARGS[@]}" bookworm "$tar" "${MIRRORS[@]}"
  podman import -q "$tar" "$ROOTFS"
  rm -f "$tar"
  result "$(podman image inspect --format '{{.Size}}' "$ROOTFS" | awk '{printf "%d MB", $1/1e6}')"
}
build_slim() {
  podman build --pull=never --format docker --label "dashlab.standin=$RECIPE" \
    -v /usr/local/share/ca-certificates:/hostca:ro \
    -t "$SLIM_BASE" -f docker/standin/debian-slim.Containerfile docker/standin
  result "$(podman image inspect --format '{{.Size}}' "$SLIM_BASE" | awk '{printf "%d MB", $1/1e6}')"
}
build_golang() {
  retry 2 podman build --pull=never --format docker --label "dashlab.standin=$RECIPE" \
    -v /usr/local/go:/hostgo:ro \
    -t "$GO_BASE" -f docker/standin/golang.Containerfile docker/standin
  result "$(podman image inspect --format '{{.Size}}' "$GO_BASE" | awk '{printf "%d MB", $1/1e6}')"
}

# ---------- 4. the image ----------
build_image() {
  local version revision
  version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
  revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
  # Layers are cached; a retry after a network failure resumes at the failed layer.
  # The image id file proves that this build made the image (the tag may be an older one).
  rm -f "$work/iid"
  retry 2 podman build --pull=never --format docker --iidfile "$work/iid" \
    --build-arg "DASHLAB_VERSION=$version" --build-arg "DASHLAB_REVISION=$revision" \
    -t "$IMAGE" .
  [ -s "$work/iid" ] && podman image exists "$(cat "$work/iid")" ||
    { echo "podman build ended without making an image"; return 1; }
  # The tools stage tagged too (from the cache: seconds), so that pruning keeps its layers;
  # then the layers of older builds go (each code change leaves about 0.5 GB behind).
  podman build --pull=never --format docker --target tools -t "${IMAGE%:*}:tools" . >/dev/null
  podman image prune -f
  echo "podman storage: $(du -sh /var/lib/containers/storage | cut -f1)"
  result "$IMAGE ($version)"
}
image_size() {
  local bytes mb
  bytes=$(podman image inspect --format '{{.Size}}' "$IMAGE")
  [ -n "$bytes" ] || return 1
  mb=$((bytes / 1000000))
  podman history --format '{{.Size}}\t{{.CreatedBy}}' "$IMAGE" | cut -c1-160
  podman image inspect --format '{{range $k, $v := .Config.Labels}}{{$k}}={{$v}}{{"\n"}}{{end}}' "$IMAGE"
  if [ "$mb" -gt "$MAX_MB" ]; then
    echo "the image is $mb MB, over the $MAX_MB MB budget (DASHLAB_IMAGE_MAX_MB)"
    return 1
  fi
  result "$mb MB (budget $MAX_MB MB)"
}

# ---------- 5. the running container ----------
token=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
port=
url() { echo "http://127.0.0.1:$port$1"; }
# http_code PATH [CURL ARGS...]: the HTTP status of a request to the container.
http_code() { local p=$1; shift; curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@" "$(url "$p")"; }
api() { curl -sf --max-time 20 -H "Authorization: token $token" "$@"; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
start_container() {
  mkdir -p "$work/report"
  # The folder mounted from the host belongs to the notebook user, as a user's checkout
  # would (docker/README.md): what the container writes there persists on the host.
  chown 1000:100 "$work/report"
  podman run -d --name "$name" -p "127.0.0.1:$port:8888" -e "JUPYTER_TOKEN=$token" \
    -v "$work/report:$NB_HOME/report" "$IMAGE"
  result "$name on 127.0.0.1:$port"
}
# wait_jupyter NAME: until Jupyter answers on $port (/api needs no token), or NAME exits.
wait_jupyter() {
  local i
  for ((i = 0; i < 120; i++)); do
    if [ "$(http_code /api)" = 200 ]; then
      result "answered after $((i / 2)).$((i % 2 * 5)) s"
      return 0
    fi
    if [ "$(podman inspect --format '{{.State.Running}}' "$1")" != true ]; then
      echo "the container exited:"; podman logs "$1"; return 1
    fi
    sleep 0.5
  done
  echo "Jupyter did not answer within 60 s"; podman logs "$1"; return 1
}
check_user() {
  local uid owner user
  uid=$(podman exec "$name" awk '/^Uid:/ {print $2}' /proc/1/status)
  user=$(podman exec "$name" id -un)
  owner=$(podman exec "$name" stat -c '%U' "$NB_HOME" "$NB_HOME/notebooks" | sort -u)
  echo "PID 1 uid $uid; exec user $user; $NB_HOME and notebooks/ owned by $owner"
  [ "$uid" != 0 ] || { echo "Jupyter runs as root"; return 1; }
  [ "$owner" = "$user" ] || { echo "the working directory is not the notebook user's"; return 1; }
  podman exec "$name" test -w "$NB_HOME/notebooks/$(basename "$NOTEBOOK")" ||
    { echo "the notebook user cannot write the notebooks"; return 1; }
  result "Jupyter runs as $user (uid $uid), who owns $NB_HOME"
}
check_token() {
  local none wrong good
  none=$(http_code /api/kernelspecs)
  wrong=$(http_code /api/kernelspecs -H "Authorization: token not-$token")
  good=$(http_code /api/kernelspecs -H "Authorization: token $token")
  echo "/api/kernelspecs: no token $none, wrong token $wrong, token $good"
  [ "$none" = 403 ] && [ "$wrong" = 403 ] && [ "$good" = 200 ] || return 1
  # Without the token, the notebook page sends the browser to the login form.
  local page
  page=$(http_code /tree)
  echo "/tree without token: $page"
  [ "$page" = 302 ] || return 1
  result "refused without (403) or with a wrong token (403); 200 with it"
}
check_kernelspecs() {
  api "$(url /api/kernelspecs)" | tee "$work/kernelspecs.json"
  echo
  python3 -c 'import json, sys; k = json.load(open(sys.argv[1]))["kernelspecs"]; print(sorted(k)); sys.exit(0 if "gonb" in k else 1)' \
    "$work/kernelspecs.json"
  result "lists $(python3 -c 'import json, sys; print(", ".join(sorted(json.load(open(sys.argv[1]))["kernelspecs"])))' "$work/kernelspecs.json")"
}
# A Go cell run in a gonb kernel through the server's REST and websocket API, as the browser
# does: the kernel compiles and runs it as the notebook user.
check_kernel_exec() {
  "$PY" -c 'import tornado' 2>/dev/null ||
    { echo "$PY has no tornado: run docker/setup.sh (the Jupyter venv)"; return 1; }
  local out
  out=$("$PY" docker/kernel-exec.py "$(url '')" "$token" gonb \
    $'%%\nfmt.Printf("cell ran: %s, uid %d\\n", runtime.Version(), os.Getuid())' \
    'cell ran: go1\.[0-9.]+, uid [1-9][0-9]*') || { echo "$out"; return 1; }
  echo "$out"
  result "$(grep -o 'cell ran: .*' <<<"$out" | head -1)"
}
check_health() {
  podman inspect --format '{{json .Config.Healthcheck}}' "$name"
  podman healthcheck run "$name"
  result "$(podman inspect --format '{{.State.Health.Status}}' "$name" 2>/dev/null || echo healthy)"
}

# A second container as a user with another uid, on a copy of the checkout mounted over the
# image's repository, with no token given (docker/README.md, "Keeping your work on the host").
# It must make and print a random token, run a Go cell as that uid, and save a notebook that
# then exists on the host, owned by that uid.
check_mounted() {
  local dir=$work/checkout uid=4242 tok code
  mkdir -p "$dir"
  tar -C "$ROOT" --exclude=./.git --exclude=./report -cf - . | tar -C "$dir" -xf -
  chown -R "$uid:$uid" "$dir"
  podman run -d --name "$name-mounted" --user "$uid:$uid" --group-add users \
    -p "127.0.0.1:$port2:8888" -v "$dir:$NB_HOME" "$IMAGE"
  port=$port2
  wait_jupyter "$name-mounted"
  tok=$(podman logs "$name-mounted" 2>&1 | grep -o 'token=[0-9a-f]*' | head -n 1 | cut -d= -f2)
  echo "printed token: ${#tok} hex digits"
  [ "${#tok}" -ge 32 ] || { echo "no random token in the log"; return 1; }
  code=$(http_code /api/contents)
  [ "$code" = 403 ] || { echo "/api/contents without the token: $code, not 403"; return 1; }
  "$PY" docker/kernel-exec.py "$(url '')" "$tok" gonb \
    $'%%\nfmt.Printf("cell ran: uid %d\\n", os.Getuid())' "cell ran: uid $uid"
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -X PUT -H "Authorization: token $tok" \
    -d '{"type": "notebook", "format": "json", "content": {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}}' \
    "$(url /api/contents/saved-in-container.ipynb)")
  echo "PUT /api/contents/saved-in-container.ipynb: $code"
  [ "$code" = 201 ] || return 1
  stat -c '%n %u' "$dir/notebooks/saved-in-container.ipynb"
  [ "$(stat -c %u "$dir/notebooks/saved-in-container.ipynb")" = "$uid" ] || return 1
  podman rm -f -t 5 "$name-mounted"
  result "uid $uid, random token printed, a Go cell ran, a saved notebook is on the host"
}

# ---------- 6. a notebook inside ----------
run_notebook() {
  local out html
  # GOPROXY=off: the image must hold every module a notebook needs (it works offline).
  # A cell may take long on a loaded machine (the overview runs the whole reproduction).
  podman exec -e GOPROXY=off -e "DASHLAB_CELL_TIMEOUT=${DASHLAB_CELL_TIMEOUT:-900}" "$name" \
    bash docker/run-notebooks.sh "$NOTEBOOK" >"$work/notebook.out" 2>&1 ||
    { cat "$work/notebook.out"; return 1; }
  out=$(cat "$work/notebook.out")
  echo "$out"
  html=$work/report/notebooks/$(basename "$NOTEBOOK" .ipynb).html
  [ -s "$html" ] || { echo "no $html on the host"; return 1; }
  result "$(awk '$1 == "ok" {print $3}' <<<"$out") in the kernel; $(stat -c %s "$html") bytes of HTML on the host"
}
check_charts() {
  local out
  command -v chromium >/dev/null || { echo "chromium not found: run docker/setup.sh"; return 1; }
  go build -o "$work/chartcheck" ./docker/chartcheck
  out=$("$work/chartcheck" "$work/report/notebooks/$(basename "$NOTEBOOK" .ipynb).html" 2>&1) ||
    { echo "$out"; return 1; }
  echo "$out"
  result "$(tail -n 1 <<<"$out")"
}
stop_container() {
  podman stop -t 20 "$name"
  podman rm "$name"
  started=0
  result "stopped and removed"
}

# One check at a time on a machine (they share the podman storage and the stand-ins).
exec 9>/run/lock/dashlab-container-check.lock
flock -w 3600 9 || { echo "container-check: another check held the lock for an hour" >&2; exit 1; }

run_step "podman packages" install_podman
run_step "podman configuration" configure_podman
if has_standin "$GO_BASE" && has_standin "$SLIM_BASE"; then
  timings+=("$(printf '%-44s %5s  %s' "stand-in base images" "-" "cached ($RECIPE)")")
  printf '== %-44s %5s  %s\n' "stand-in base images" "-" "cached ($RECIPE)"
else
  run_step "base: Debian rootfs (mmdebstrap)" make_rootfs
  run_step "base: $SLIM_BASE" build_slim
  run_step "base: $GO_BASE" build_golang
fi
run_step "build $IMAGE" build_image
run_step "image size" image_size
port=$(free_port)
started=1 # from here on, the container is removed on exit
run_step "start the container" start_container
run_step "Jupyter answers" wait_jupyter "$name"
run_step "unprivileged notebook user" check_user
run_step "token required" check_token
run_step "gonb kernel listed" check_kernelspecs
run_step "a Go cell in a gonb kernel (API)" check_kernel_exec
run_step "healthcheck" check_health
run_step "execute $(basename "$NOTEBOOK") inside" run_notebook
run_step "charts drawn (chartcheck)" check_charts
run_step "stop and remove the container" stop_container
port2=$(free_port)
run_step "another uid, checkout mounted, no token" check_mounted
summary
echo "container-check: all passed"
