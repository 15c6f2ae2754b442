#!/usr/bin/env bash
# Measures the figures of docs/speed.md: kondavo's perft and search speed,
# each against a peer run in the same session, on one thread. Run it on a
# quiet machine (nothing else heavy: the two cores are shared).
#
#   scripts/speed.sh [KONDAVO] [PEERS_VENV]
#
# KONDAVO: the binary (default target/release/kondavo, built if missing).
# PEERS_VENV: a virtual environment holding dame-rs 0.2.0 and kish 1.1.7
# (default /tmp/peers; made with pip if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
K=${1:-target/release/kondavo}
VENV=${2:-/tmp/peers}
[ -x "$K" ] || cargo build --release
if [ ! -x "$VENV/bin/dame" ] || ! "$VENV/bin/python" -c 'import kish' 2>/dev/null; then
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check dame-rs==0.2.0 kish==1.1.7
fi
DAME="$VENV/bin/dame"
REPS=${REPS:-3}

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
echo "kondavo: $(git rev-parse --short HEAD), $("$K" --version)"

# The nps of the last line of a kondavo perft run.
last_nps() { tail -1 | sed 's/.*nps=//'; }
mnps() { awk -v n="$1" 'BEGIN { printf "%.1f", n / 1e6 }'; }

echo "== International perft, start, depth 9 (duplicates removed)"
for _ in $(seq "$REPS"); do
    k=$("$K" perft --variant international --depth 9 | last_nps)
    echo "kondavo perft --variant international --depth 9: $(mnps "$k") Mnps; dame perft 9: $("$DAME" perft 9)"
done

echo "== Turkish perft, start, depth 8 (routes kept, as kish counts)"
for _ in $(seq "$REPS"); do
    k=$("$K" perft --variant turkish --depth 8 --keep-duplicates | last_nps)
    p=$("$VENV/bin/python" -c '
import time, kish
b = kish.Board()
t = time.perf_counter(); n = b.perft(8); t = time.perf_counter() - t
print(f"{n / t / 1e6:.1f} Mnps ({n} nodes, {t:.2f} s)")')
    echo "kondavo perft --variant turkish --depth 8 --keep-duplicates: $(mnps "$k") Mnps; kish Board().perft(8): $p"
done

echo "== 8x8 perft, start, depth 11"
for v in english italian spanish brazilian russian; do
    for _ in $(seq "$REPS"); do
        echo "kondavo perft --variant $v --depth 11: $(mnps "$("$K" perft --variant "$v" --depth 11 | last_nps)") Mnps"
    done
done

echo "== Search: bench (16 MiB hash) against dame search --time 5 (64 MiB), International start"
for _ in $(seq "$REPS"); do
    k=$("$K" bench --variant international | tail -1)
    d=$("$DAME" search --time 5 | tail -2 | tr '\n' ' ')
    echo "kondavo bench --variant international: $k"
    echo "dame search --time 5: $d"
done

echo "== Depth from the International start in 1 s and 5 s (64 MiB hash)"
for t in 1 5; do
    echo "kondavo search --variant international --movetime $t --hash 64: $("$K" search --variant international --movetime "$t" --hash 64 | grep -v bestmove | tail -1)"
    echo "dame search --time $t: $("$DAME" search --time "$t" | tail -2 | tr '\n' ' ')"
done

echo "== Lazy SMP: bench time, 1 thread and 2"
for n in 1 2; do
    echo "kondavo bench --threads $n: $("$K" bench --threads "$n" | tail -1)"
done
