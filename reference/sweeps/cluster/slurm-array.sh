#!/bin/bash
# A Slurm job array running one shard of a dashlab sweep per array task.
#
#   sbatch --array=0-7 \
#     --export=ALL,SWEEP_SPEC=/shared/sweeps/my-sweep.yaml,SWEEP_OUT=/shared/out \
#     reference/sweeps/cluster/slurm-array.sh
#   # when the array has finished (or with sbatch --wait):
#   dashlab sweep merge /shared/out/my-sweep.csv /shared/out/my-sweep.part-*-of-8.csv
#
# Each task writes SWEEP_OUT/NAME.part-I-of-N.FORMAT (NAME: the spec file's name without
# .yaml; I counted from 0 whatever the array's first index; N the array's size): its points
# of the sweep, dealt by `dashlab sweep --shard auto/N` from SLURM_ARRAY_TASK_ID. Outputs
# resume: a task that is requeued, pre-empted or resubmitted (e.g. `sbatch --array=3 ...`)
# skips the points its part already holds. `dashlab sweep merge` checks that every point is
# present exactly once.
#
# Environment (pass with --export):
#   SWEEP_SPEC     the sweep spec, on a volume every node sees (required)
#   SWEEP_OUT      the output folder, on a volume every node sees (required)
#   SWEEP_FORMAT   csv (default), jsonl or parquet
#   DASHLAB_IMAGE  run the dashlab container image with Apptainer/Singularity: a .sif file or
#                  docker://REGISTRY/dashlab:TAG (built from the repository's Dockerfile);
#                  SWEEP_SPEC and SWEEP_OUT's folders are bound into it
#   DASHLAB        otherwise, the dashlab binary to run (default: dashlab on PATH; build it
#                  with `go build -o dashlab ./dash/cmd/dashlab`)
#
#SBATCH --job-name=dashlab-sweep
#SBATCH --array=0-3
#SBATCH --cpus-per-task=2
#SBATCH --requeue
#SBATCH --open-mode=append
#SBATCH --output=dashlab-sweep-%A_%a.log
set -euo pipefail

: "${SWEEP_SPEC:?set SWEEP_SPEC to the sweep spec (on a shared volume)}"
: "${SWEEP_OUT:?set SWEEP_OUT to the output folder (on a shared volume)}"
: "${SLURM_ARRAY_TASK_ID:?run this script with sbatch --array}"
n=${SLURM_ARRAY_TASK_COUNT:?run this script with sbatch --array}
i=$((SLURM_ARRAY_TASK_ID - ${SLURM_ARRAY_TASK_MIN:-0}))
format=${SWEEP_FORMAT:-csv}
name=$(basename "$SWEEP_SPEC" .yaml)
out="$SWEEP_OUT/$name.part-$i-of-$n.$format"
mkdir -p "$SWEEP_OUT"

args=(sweep --spec "$SWEEP_SPEC" --out "$out" --shard "auto/$n" --workers "${SLURM_CPUS_PER_TASK:-0}" --quiet)
echo "dashlab-sweep: task $i of $n on $(hostname): $SWEEP_SPEC -> $out"
if [ -n "${DASHLAB_IMAGE:-}" ]; then
  runner=$(command -v apptainer || command -v singularity) || {
    echo "dashlab-sweep: DASHLAB_IMAGE is set but neither apptainer nor singularity is installed" >&2
    exit 1
  }
  # The image's entry point runs a command in the repository inside the image ($DASHLAB_ROOT,
  # with Go); the image is read-only under Apptainer, so Go's build cache goes to /tmp.
  exec "$runner" exec --bind "$(dirname "$(realpath "$SWEEP_SPEC")")" --bind "$(realpath "$SWEEP_OUT")" \
    --env GOCACHE="/tmp/dashlab-gocache-${SLURM_JOB_ID:-0}" "$DASHLAB_IMAGE" dashlab-entrypoint \
    go run ./dash/cmd/dashlab "${args[@]}"
fi
exec "${DASHLAB:-dashlab}" "${args[@]}"
