#!/usr/bin/env python3
"""repeat-*.json.gz -> repeat.md: ē/native's ē of symmetric_shm and auto per size and its place
in the run (first or second time that size ran), balanced (D = 0, both patterns) and at 10τ."""
import glob, gzip, json, re, statistics
from collections import defaultdict

cells = defaultdict(list)  # (np, bytes, instance, delay, alg) -> ratios
for path in sorted(glob.glob("repeat-*.json.gz")):
    np_ = re.search(r"np(\d+)", path).group(1)
    with gzip.open(path) as f: data = json.load(f)
    seen = defaultdict(int)
    for s in data["results"]["sizes"]:
        seen[s["bytes"]] += 1
        for p in s["points"]:
            for a in p["algorithms"]:
                if a["name"] != "native":
                    cells[(int(np_), s["bytes"], seen[s["bytes"]], p["max_delay"], a["name"])].append(a["elapsed_ratio"])
out = ["# 8 and 64 bytes, each twice per run (Open MPI, shared cores)", "",
       "ē / native's ē, every point of every run (both patterns), then the median.", "",
       "| p | size | time in run | D | symmetric_shm | auto |", "|---|---|---|---|---|---|"]
for key in sorted({k[:4] for k in cells}):
    row = [f"{', '.join(f'{v:.2f}' for v in cells[key + (a,)])} → **{statistics.median(cells[key + (a,)]):.2f}**"
           for a in ("symmetric_shm", "auto")]
    out.append(f"| {key[0]} | {key[1]} B | {'first' if key[2] == 1 else 'second'} | {key[3]} | {row[0]} | {row[1]} |")
open("repeat.md", "w").write("\n".join(out) + "\n")
print("\n".join(out))
