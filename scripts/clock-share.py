#!/usr/bin/env python3
"""Share of its clock each engine used in the games of a `kondavo match` PDN.

Usage: scripts/clock-share.py games.pdn

For each game and side, the sum of the side's move times (`%emt`) over its
clock for the game (base + increment x the side's timed moves; the side's
own clock in a time-odds game, from WhiteTimeControl / BlackTimeControl); prints the
mean per engine. Moves of a generated opening carry no comment and are not
counted.
"""
import re
import sys

EMT = re.compile(r"%emt\s+(\d+):(\d+):([\d.]+)")
TOKEN = re.compile(r"\{[^}]*\}|[^\s{]+")
RESULTS = {"1-0", "0-1", "1/2-1/2", "2-0", "0-2", "1-1", "0-0", "*"}


def seconds(m):
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + float(m.group(3))


def main(path):
    shares = {}
    for game in open(path, encoding="utf-8").read().split("[Event ")[1:]:
        tags = dict(re.findall(r'\[(\w+) "([^"]*)"\]', game))
        clocks = {}
        for s, tag in (("W", "WhiteTimeControl"), ("B", "BlackTimeControl")):
            # Time odds: a side's own clock, else the match's.
            tc = re.match(r"([\d.]+)\+([\d.]+)", tags.get(tag, tags.get("TimeControl", "")))
            if tc:
                clocks[s] = (float(tc.group(1)), float(tc.group(2)))
        if len(clocks) < 2:
            continue
        side = "W" if tags.get("FEN", "W").startswith("W") else "B"
        body = game[game.index("\n\n"):] if "\n\n" in game else ""
        used = {"W": 0.0, "B": 0.0}
        moves = {"W": 0, "B": 0}
        mover = None  # the side that made the last move
        for tok in TOKEN.findall(body):
            if tok.startswith("{"):
                emt = EMT.search(tok)
                if emt and mover:
                    used[mover] += seconds(emt)
                    moves[mover] += 1
                continue
            tok = re.sub(r"^\d+\.+", "", tok)
            if not tok or tok in RESULTS:
                continue
            mover = side
            side = "B" if side == "W" else "W"
        for s, name in (("W", tags.get("White")), ("B", tags.get("Black"))):
            base, inc = clocks[s]
            clock = base + inc * moves[s]
            if clock > 0:
                shares.setdefault(name, []).append(used[s] / clock)
    for name, v in shares.items():
        print(f"{name}: games={len(v)} clock-used={sum(v) / len(v):.3f}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
