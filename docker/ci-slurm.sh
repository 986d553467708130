#!/usr/bin/env bash
# docker/ci-slurm.sh: the sharded sweep on a real one-node Slurm cluster.
#
# Installs slurm-wlm and munge (Debian) when missing, starts munged, slurmctld and slurmd
# as root with a private configuration, socket, ports and state under a temporary folder
# (nothing in /etc is changed except munge's key, created by mungekey when missing),
# submits the shipped job-array script reference/sweeps/cluster/slurm-array.sh for the
# small sweep reference/sweeps/ci/slurm-small.yaml as a 3-task array, waits for it, merges
# the shards with `dashlab sweep merge`, and compares the result with the unsharded run,
# byte for byte. It also kills an unsharded run with SIGKILL mid-way and checks that
# running it again gives the same file. The daemons are stopped whatever happens (trap).
#
# Run as root on Debian bookworm with Go; about a minute once the packages are installed.
# Called by .ci/run. Environment: DASHLAB_SLURM_KEEP=1 keeps the work folder.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export PATH=/usr/local/go/bin:$PATH
SPEC=$ROOT/reference/sweeps/ci/slurm-small.yaml
SCRIPT=$ROOT/reference/sweeps/cluster/slurm-array.sh
TASKS=3
start=$SECONDS
say() { echo "ci-slurm ($((SECONDS - start)) s): $*"; }
fail() { echo "ci-slurm: FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "run as root (slurmd and munged need it)"
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
  say "installing slurm-wlm and munge"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi

work=$(mktemp -d /tmp/dashlab-slurm.XXXXXX)
chmod 755 "$work"
export SLURM_CONF=$work/slurm.conf

stop_pid() { # stop_pid PIDFILE NAME: TERM, then KILL after 5 s
  local pid
  [ -s "$1" ] || return 0
  pid=$(cat "$1")
  kill -0 "$pid" 2>/dev/null || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  echo "ci-slurm: $2 ($pid) did not stop: killing it" >&2
  kill -9 "$pid" 2>/dev/null || true
}
cleanup() {
  local rc=$?
  set +e
  if [ -n "${jobid:-}" ]; then scancel "$jobid" 2>/dev/null; fi
  stop_pid "$work/slurmd.pid" slurmd
  stop_pid "$work/slurmctld.pid" slurmctld
  stop_pid "$work/munge/munged.pid" munged
  if [ $rc -ne 0 ]; then
    echo "ci-slurm: failed (exit $rc); logs:" >&2
    for f in "$work"/log/*; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }; done
  fi
  if [ "${DASHLAB_SLURM_KEEP:-0}" = 1 ]; then echo "ci-slurm: kept $work"; else rm -rf "$work"; fi
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "building dashlab"
mkdir -p "$work/bin" "$work/log" "$work/out" "$work/state" "$work/spool" "$work/munge"
(cd "$ROOT" && go build -o "$work/bin/dashlab" ./dash/cmd/dashlab)
DASHLAB=$work/bin/dashlab

say "starting munged"
[ -f /etc/munge/munge.key ] || mungekey -c
chown munge:munge /etc/munge/munge.key "$work/munge"
chmod 755 "$work/munge" # munged wants it searchable by all, writable only by munge
runuser -u munge -- munged --socket="$work/munge/munge.socket" --pid-file="$work/munge/munged.pid" \
  --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed"
for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done
munge --socket="$work/munge/munge.socket" -n | unmunge --socket="$work/munge/munge.socket" | grep -q "STATUS: *Success" ||
  fail "munge does not authenticate"

host=$(hostname)
cpus=$(nproc)
cat >"$SLURM_CONF" <<CONF
ClusterName=dashlabci
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
ReturnToService=2
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=ci Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF

say "starting slurmctld and slurmd"
slurmctld -i
slurmd
for _ in $(seq 100); do
  state=$(sinfo -h -N -o %t 2>/dev/null | head -1)
  [ "$state" = idle ] && break
  sleep 0.2
done
[ "${state:-}" = idle ] || fail "the node is not idle (sinfo: ${state:-nothing})"
say "node $host idle ($cpus CPUs)"

say "submitting $SCRIPT as a $TASKS-task array"
jobid=$(sbatch --parsable --array=0-$((TASKS - 1)) --cpus-per-task=1 --output="$work/log/task-%A_%a.log" \
  --export=ALL,SWEEP_SPEC="$SPEC",SWEEP_OUT="$work/out",DASHLAB="$DASHLAB" "$SCRIPT")
say "job $jobid submitted; waiting"
deadline=$((SECONDS + 300))
while squeue -h -j "$jobid" 2>/dev/null | grep -q .; do
  [ $SECONDS -lt $deadline ] || fail "the job array did not finish within 300 s"
  sleep 1
done
for i in $(seq 0 $((TASKS - 1))); do
  [ -f "$work/out/slurm-small.part-$i-of-$TASKS.csv" ] || fail "task $i wrote no part (log: $(cat "$work"/log/task-*_"$i".log 2>/dev/null))"
done
say "array done: $(ls "$work/out" | tr '\n' ' ')"

"$DASHLAB" sweep merge "$work/merged.csv" "$work"/out/slurm-small.part-*-of-$TASKS.csv
"$DASHLAB" sweep --spec "$SPEC" --out "$work/whole.csv" --quiet
cmp "$work/whole.csv" "$work/merged.csv" || fail "the merged shards differ from the unsharded run"
say "merged shards equal the unsharded run ($(($(wc -l <"$work/whole.csv") - 1)) rows)"

# a part missing must fail the merge
if "$DASHLAB" sweep merge "$work/bad.csv" "$work/out/slurm-small.part-0-of-$TASKS.csv" 2>/dev/null; then
  fail "merging one part of $TASKS succeeded"
fi

say "resume after SIGKILL"
# the same sweep with 200 t_R values (1,600 points, several seconds on one worker
# even on an idle machine, so that the kill lands mid-run)
sed 's/values: \[2us, 3us, 8us\]/range: {from: 1us, to: 200us, step: 1us}/' "$SPEC" >"$work/kill.yaml"
grep -q 'step: 1us' "$work/kill.yaml" || fail "could not derive the longer sweep"
"$DASHLAB" sweep --spec "$work/kill.yaml" --out "$work/kill-whole.csv" --quiet
total=$(($(wc -l <"$work/kill-whole.csv") - 1))
"$DASHLAB" sweep --spec "$work/kill.yaml" --out "$work/killed.csv" --workers 1 --quiet &
pid=$!
rows() { if [ -f "$1" ]; then echo $(($(wc -l <"$1") - 1)); else echo 0; fi; }
for _ in $(seq 2000); do
  [ "$(rows "$work/killed.csv")" -ge 1 ] && break
  sleep 0.01
done
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
written=$(rows "$work/killed.csv")
[ "$written" -lt "$total" ] || fail "the run finished before it was killed ($written rows): the check would prove nothing"
say "killed with $written of $total rows written"
"$DASHLAB" sweep --spec "$work/kill.yaml" --out "$work/killed.csv" --quiet
cmp "$work/kill-whole.csv" "$work/killed.csv" || fail "the resumed run differs from the uninterrupted one"
say "PASS"
