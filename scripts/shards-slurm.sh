#!/usr/bin/env bash
#SBATCH --job-name=kondavo-selfplay
#SBATCH --cpus-per-task=1
#SBATCH --time=24:00:00
#SBATCH --output=kondavo-%x-%A_%a.out
# One generation of the learned evaluation on a Slurm cluster: a job array
# of SHARDS tasks, task i playing shard i/SHARDS of the self-play
# (`kondavo selfplay --shard $SLURM_ARRAY_TASK_ID/$SHARDS`, the games g
# with g % SHARDS == i of a single run with the same seed and settings)
# into a folder every node sees, then a job that starts when every task
# has succeeded, merges the shards into one file (byte for byte the single
# run's) and trains the weights on it.
#
# From the repository root, on a login node (the binary and WORK must be
# on a shared file system):
#
#   cargo build --release
#   SHARDS=64 GAMES=100000 VARIANT=russian WORK=/shared/learn scripts/shards-slurm.sh
#
# submits both jobs (`sbatch --array=0-63` of this script, then the merge
# job with `--dependency=afterok:<array job>`) and prints their ids. The
# same by hand:
#
#   export SHARDS=64 GAMES=100000 VARIANT=russian WORK=/shared/learn
#   sbatch --array=0-63 scripts/shards-slurm.sh                 # STEP=shard
#   STEP=merge sbatch --dependency=afterok:<job id> scripts/shards-slurm.sh
#
# A task that failed or ran out of time is submitted again on its own
# (`sbatch --array=17 scripts/shards-slurm.sh` with the same settings): it
# resumes its file. The merge step can be run again at any time, on a
# node or by hand (`STEP=merge scripts/shards-slurm.sh`).
#
# Settings by environment (exported to the jobs): VARIANT, GAMES, NODES,
# SEED, SHARDS, SELFPLAY_OPTIONS, WEIGHTS, WORK, NAME, TRAIN=0, INIT, DATA,
# EPOCHS, LAMBDA, KONDAVO: as in scripts/shards-local.sh. Also
#   STEP         submit (default outside Slurm), shard (default in an
#                array task), or merge
#   SBATCH_ARGS  more sbatch options for both jobs (partition, account,
#                time), e.g. "--partition=cpu --time=12:00:00"
#   MERGE_CPUS   cores of the merge and training job (default 8)
# Each task plays one game per core it is given (--cpus-per-task).
set -euo pipefail
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
if [ -n "${SLURM_SUBMIT_DIR:-}" ]; then cd "$SLURM_SUBMIT_DIR"; else cd "$(dirname "$self")/.."; fi
VARIANT=${VARIANT:-international}
GAMES=${GAMES:-20000}
NODES=${NODES:-2000}
SEED=${SEED:-1}
SHARDS=${SHARDS:-16}
WORK=${WORK:-learn-data}
NAME=${NAME:-$VARIANT-gen$SEED}
EPOCHS=${EPOCHS:-12}
LAMBDA=${LAMBDA:-0.3}
KONDAVO=${KONDAVO:-target/release/kondavo}
K=$KONDAVO
dir="$WORK/$NAME.shards"

if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then default_step=shard; else default_step=submit; fi
if [ -n "${SLURM_JOB_ID:-}" ] && [ -z "${SLURM_ARRAY_TASK_ID:-}" ]; then default_step=merge; fi
case "${STEP:-$default_step}" in
submit)
    if [ ! -x "$K" ]; then
        echo "no kondavo binary at $K: build it (cargo build --release) or set KONDAVO" >&2
        exit 1
    fi
    mkdir -p "$dir"
    # Absolute paths: the jobs may start elsewhere.
    KONDAVO=$(cd "$(dirname "$K")" && pwd)/$(basename "$K")
    WORK=$(cd "$WORK" && pwd)
    export VARIANT GAMES NODES SEED SHARDS WORK NAME EPOCHS LAMBDA KONDAVO
    # shellcheck disable=SC2086
    array=$(STEP=shard sbatch --parsable ${SBATCH_ARGS:-} --array=0-$((SHARDS - 1)) \
        --output="$dir/slurm-%A_%a.out" "$self")
    array=${array%%;*}
    # shellcheck disable=SC2086
    merge=$(STEP=merge sbatch --parsable ${SBATCH_ARGS:-} --dependency=afterok:"$array" \
        --cpus-per-task="${MERGE_CPUS:-8}" --output="$dir/slurm-merge-%j.out" "$self")
    echo "self-play: job array $array ($SHARDS tasks); merge and training: job $merge"
    echo "games in $dir, merged into $WORK/$NAME.kdsp, weights $WORK/$NAME.kdw"
    ;;
shard)
    i=${SLURM_ARRAY_TASK_ID:?STEP=shard runs as a task of a job array}
    mkdir -p "$dir"
    file="$dir/$NAME-$(printf %04d "$i").kdsp"
    play=()
    if [ -n "${WEIGHTS:-}" ]; then play=(--weights "$WEIGHTS"); fi
    resume=()
    if [ -e "$file" ]; then resume=(--resume); fi
    # shellcheck disable=SC2206
    extra=(${SELFPLAY_OPTIONS:-})
    exec "$K" "${play[@]}" selfplay --variant "$VARIANT" --games "$GAMES" --nodes "$NODES" \
        --seed "$SEED" --threads "${SLURM_CPUS_PER_TASK:-1}" "${extra[@]}" \
        --shard "$i/$SHARDS" --out "$file" "${resume[@]}"
    ;;
merge)
    rm -f "$WORK/$NAME.kdsp.part"
    "$K" selfplay --merge "$WORK/$NAME.kdsp.part" --games "$GAMES" "$dir"/"$NAME"-*.kdsp
    mv "$WORK/$NAME.kdsp.part" "$WORK/$NAME.kdsp"
    if [ "${TRAIN:-1}" = 0 ]; then exit 0; fi
    init=()
    if [ -n "${INIT:-}" ]; then init=(--init "$INIT"); fi
    data=()
    for d in ${DATA:-}; do data+=(--data "$d"); done
    rm -f "$WORK/$NAME.kdw.part"
    "$K" train --variant "$VARIANT" "${data[@]}" --data "$WORK/$NAME.kdsp" \
        --out "$WORK/$NAME.kdw.part" "${init[@]}" --epochs "$EPOCHS" --lambda "$LAMBDA" \
        --note "$NAME: $GAMES self-play games at $NODES nodes a move, seed $SEED"
    mv "$WORK/$NAME.kdw.part" "$WORK/$NAME.kdw"
    echo "weights in $WORK/$NAME.kdw"
    ;;
*)
    echo "STEP must be submit, shard or merge" >&2
    exit 1
    ;;
esac
