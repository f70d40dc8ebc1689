#!/usr/bin/env python3
"""The docs' table: e / native's of the whole-vector tree and the pipelined tree (16 KiB pieces),
per case, size and pattern, balanced (D = 0) and at 10 tau, from the logs of pipe.sh and pipe2.sh."""
from benchlog import ratios
cases = [("p = 8, rotating root", "pipe-np8-rootrotate-r16k-1.log"), ("p = 8, root 0", "pipe-np8-root0-r16k-1.log"),
         ("p = 4, rotating root", "pipe2-np4-rpn1-r1.log"), ("p = 6, rotating root", "pipe2-np6-rpn1-r1.log"),
         ("p = 8, two ranks per node, rotating root", "pipe2-np8-rpn2-r1.log")]
print("| case | vector | one late: D = 0 / 10τ | staircase: D = 0 / 10τ | fresh random: D = 0 / 10τ |")
print("|---|---|---|---|---|")
for name, log in cases:
    values = ratios(log)
    for size in dict.fromkeys(k[0] for k in values):
        cells = []
        for pattern in ("one-late", "staircase", "uniform"):
            cells.append(" / ".join(f"{values[(size, pattern, d, 'binomial')]} → **{values[(size, pattern, d, 'pipelined_binomial')]}**"
                                    for d in ("0", "10tau")))
        print(f"| {name} | {size} | " + " | ".join(cells) + " |")
