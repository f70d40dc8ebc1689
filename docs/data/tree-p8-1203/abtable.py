#!/usr/bin/env python3
"""auto's e / native's before (old: whole-vector tree where no plan runs) and after (new: the pipelined tree), from ab.sh's logs."""
import sys
from benchlog import ratios as read
rnd = sys.argv[1] if len(sys.argv) > 1 else "1"
print("| root | vector | balanced (three) | one late, 10τ | staircase, 10τ | fresh random, 10τ |")
print("|---|---|---|---|---|---|")
for root in ("rotate", "0"):
    old, new = read(f"ab-np8-root{root}-old-r{rnd}.log"), read(f"ab-np8-root{root}-new-r{rnd}.log")
    for size in dict.fromkeys(k[0] for k in old):
        bal = lambda v: "–".join(dict.fromkeys((min(x), max(x)))) if (x := [v[(size, p, "0", "auto")] for p in ("one-late", "staircase", "uniform")]) else ""
        cells = [f"{bal(old)} → **{bal(new)}**"]
        cells += [f"{old[(size, p, '10tau', 'auto')]} → **{new[(size, p, '10tau', 'auto')]}**" for p in ("one-late", "staircase", "uniform")]
        print(f"| {'rotating' if root == 'rotate' else root} | {size} | " + " | ".join(cells) + " |")
