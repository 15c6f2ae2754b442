#!/usr/bin/env bash
# One generation of the learned evaluation on one machine, its self-play
# split into shards run as background processes: each shard plays the
# games g with g % SHARDS == i of a single run with the same seed and
# settings (`kondavo selfplay --shard i/SHARDS`); when all are done the
# shards are merged into one file, byte for byte the single run's, and
# the weights are trained on it. scripts/shards-slurm.sh does the same on
# a Slurm cluster. Run it again after an interruption: each shard resumes
# where it stopped, and the merge is made again. Settings by environment:
#
#   VARIANT           variant (default international)
#   GAMES             self-play games of the generation (default 20000)
#   NODES             nodes per self-play move (default 2000)
#   SEED              self-play seed (default 1; learn.sh uses the
#                     generation's number)
#   SHARDS            processes (default: the cores)
#   THREADS           games at once in each shard (default 1)
#   SELFPLAY_OPTIONS  more selfplay options, e.g. "--max-plies 200"
#   WEIGHTS           the weights that play (--weights; default the
#                     built-in ones; start:<variant> for generation 0)
#   WORK              folder (default learn-data)
#   NAME              file names (default <variant>-gen<seed>): the shards
#                     go to WORK/NAME.shards/NAME-<i>.kdsp, the merged
#                     games to WORK/NAME.kdsp, the weights to WORK/NAME.kdw
#   TRAIN=0           stop after the merge
#   INIT              weights training starts from (--init; default
#                     generation 0)
#   DATA              more training data: files or folders of earlier
#                     generations' games, separated by spaces
#   EPOCHS, LAMBDA    training (default 12 and 0.3)
#   KONDAVO           the kondavo binary (default: target/release/kondavo,
#                     built first)
#
# Example: VARIANT=russian GAMES=40000 SEED=2 WEIGHTS=learn-data/russian-gen1.kdw \
#   INIT=learn-data/russian-gen1.kdw DATA=learn-data/russian-gen1.kdsp scripts/shards-local.sh
set -euo pipefail
cd "$(dirname "$0")/.."
VARIANT=${VARIANT:-international}
GAMES=${GAMES:-20000}
NODES=${NODES:-2000}
SEED=${SEED:-1}
SHARDS=${SHARDS:-$(nproc 2>/dev/null || echo 2)}
THREADS=${THREADS:-1}
WORK=${WORK:-learn-data}
NAME=${NAME:-$VARIANT-gen$SEED}
EPOCHS=${EPOCHS:-12}
LAMBDA=${LAMBDA:-0.3}
if [ -z "${KONDAVO:-}" ]; then
    cargo build --release
    KONDAVO=target/release/kondavo
fi
K=$KONDAVO
play=()
if [ -n "${WEIGHTS:-}" ]; then play=(--weights "$WEIGHTS"); fi
# Deliberately split on spaces: a list of options.
# shellcheck disable=SC2206
extra=(${SELFPLAY_OPTIONS:-})

dir="$WORK/$NAME.shards"
mkdir -p "$dir"
pids=()
# An interrupted script stops its shards (they resume on the next run).
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' INT TERM
echo "== $NAME: $GAMES games in $SHARDS shards, logs in $dir"
for i in $(seq 0 $((SHARDS - 1))); do
    file="$dir/$NAME-$(printf %04d "$i").kdsp"
    resume=()
    if [ -e "$file" ]; then resume=(--resume); fi
    "$K" "${play[@]}" selfplay --variant "$VARIANT" --games "$GAMES" --nodes "$NODES" \
        --seed "$SEED" --threads "$THREADS" "${extra[@]}" --shard "$i/$SHARDS" \
        --out "$file" "${resume[@]}" >"${file%.kdsp}.log" 2>&1 &
    pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
    log="$dir/$NAME-$(printf %04d "$i").log"
    if wait "${pids[$i]}"; then
        tail -n 1 "$log"
    else
        echo "shard $i/$SHARDS failed: $log" >&2
        tail -n 3 "$log" >&2
        failed=1
    fi
done
if [ "$failed" != 0 ]; then
    echo "== some shards failed: run the script again to resume them" >&2
    exit 1
fi

echo "== $NAME: merging the shards into $WORK/$NAME.kdsp"
rm -f "$WORK/$NAME.kdsp.part"
"$K" selfplay --merge "$WORK/$NAME.kdsp.part" --games "$GAMES" "$dir"/"$NAME"-*.kdsp
mv "$WORK/$NAME.kdsp.part" "$WORK/$NAME.kdsp"

if [ "${TRAIN:-1}" = 0 ]; then exit 0; fi
echo "== $NAME: training $WORK/$NAME.kdw"
init=()
if [ -n "${INIT:-}" ]; then init=(--init "$INIT"); fi
data=()
for d in ${DATA:-}; do data+=(--data "$d"); done
rm -f "$WORK/$NAME.kdw.part"
"$K" train --variant "$VARIANT" "${data[@]}" --data "$WORK/$NAME.kdsp" --out "$WORK/$NAME.kdw.part" \
    "${init[@]}" --epochs "$EPOCHS" --lambda "$LAMBDA" \
    --note "$NAME: $GAMES self-play games at $NODES nodes a move, seed $SEED"
mv "$WORK/$NAME.kdw.part" "$WORK/$NAME.kdw"
echo "== $NAME: weights in $WORK/$NAME.kdw"
