#!/usr/bin/env python3
"""The tables of docs/benchmarks.md, "A rotating root predicted": from the sweep JSON files
here, per file, size and pattern, e/native of auto and clairvoyant and the calls that ran a
plan; and per root (call i of a point has root i mod p: the warm-up is a multiple of p),
clairvoyant's mean of e/native per call."""
import glob
import json
import os
import statistics

here = os.path.dirname(os.path.abspath(__file__))
for path in sorted(glob.glob(os.path.join(here, "*.json"))):
    data = json.load(open(path))
    p = data["ranks"]
    for size in data["results"]["sizes"]:
        for point in size["points"]:
            cells = {c["name"]: c for c in point["algorithms"]}
            native = cells["native"]["elapsed_s"]
            parts = []
            for name in ("auto", "clairvoyant"):
                c = cells[name]
                ratio = statistics.mean(c["elapsed_s"]) / statistics.mean(native)
                plans = c["plans"]
                parts.append(f"{name} {ratio:.2f} ({plans['planned']}/{plans['planned'] + plans['unplanned']} planned)")
            by_root = [[] for _ in range(p)]
            for i, (e, n) in enumerate(zip(cells["clairvoyant"]["elapsed_s"], native)):
                by_root[i % p].append(e / n)
            roots = " ".join(f"{statistics.mean(v):.2f}" for v in by_root)
            print(f"{os.path.basename(path):20} {size['bytes'] >> 10:5} KiB {point['pattern']:10} "
                  f"{'  '.join(parts)}  | clairvoyant by root: {roots}")
