#!/usr/bin/env bash
# Regenerates the learned evaluation's weights from nothing, end to end:
# for each variant, generation 0 (`--weights start:<variant>`: material,
# advancement by rank, centre, runaways and king mobility in the learned
# layout) plays itself and generation 1 is trained, from it, on its games;
# each later generation plays with the weights before it and is trained,
# from them, on the games of every generation so far. Self-play resumes where a killed run stopped, so the script can be
# run again until it completes. Settings by environment:
#
#   VARIANTS     variants to do (default: all seven)
#   GAMES        self-play games per generation (default 60000 on 8x8,
#                50000 on 10x10: four to five million positions)
#   NODES        nodes per self-play move (default 2000 on 8x8, 1200 on
#                10x10)
#   GENERATIONS  generations (default 2)
#   EPOCHS       training epochs (default 12)
#   LAMBDA       weight of the search score in the target (default 0.3)
#   WORK         folder for games and weights (default learn-data; not
#                committed: this script regenerates it)
#   INSTALL=1    copy each variant's last generation to weights/<variant>.kdw
#                (embedded by the next build); do it only once games prove
#                the weights stronger (kondavo match, see docs/strength.md)
set -euo pipefail
cd "$(dirname "$0")/.."
VARIANTS=${VARIANTS:-"international english italian brazilian spanish russian turkish"}
GENERATIONS=${GENERATIONS:-2}
EPOCHS=${EPOCHS:-12}
LAMBDA=${LAMBDA:-0.3}
WORK=${WORK:-learn-data}

cargo build --release
K=target/release/kondavo
mkdir -p "$WORK"
for v in $VARIANTS; do
    if [ "$v" = international ]; then
        games_n=${GAMES:-50000}; nodes_n=${NODES:-1200}
    else
        games_n=${GAMES:-60000}; nodes_n=${NODES:-2000}
    fi
    prev=""
    data=()
    for g in $(seq 1 "$GENERATIONS"); do
        games="$WORK/$v-gen$g.kdsp"
        out="$WORK/$v-gen$g.kdw"
        if [ -n "$prev" ]; then play=(--weights "$prev"); init=(--init "$prev"); else play=(--weights "start:$v"); init=(); fi
        resume=()
        if [ -e "$games" ]; then resume=(--resume); fi
        echo "== $v generation $g: self-play"
        "$K" "${play[@]}" selfplay --variant "$v" --games "$games_n" --nodes "$nodes_n" \
            --seed "$g" --out "$games" "${resume[@]}"
        data+=(--data "$games")
        echo "== $v generation $g: training"
        "$K" train --variant "$v" "${data[@]}" --out "$out" "${init[@]}" \
            --epochs "$EPOCHS" --lambda "$LAMBDA" \
            --note "generation $g: $games_n self-play games a generation at $nodes_n nodes a move"
        prev="$out"
    done
    if [ "${INSTALL:-0}" = 1 ]; then
        mkdir -p weights
        cp "$prev" "weights/$v.kdw"
        echo "== installed weights/$v.kdw"
    fi
done
