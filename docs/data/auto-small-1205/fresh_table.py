#!/usr/bin/env python3
"""fresh-*.txt -> fresh.md: per case, iterations and pattern, the median over runs of rank 0's
mean time per call (µs) under native and auto, and the median of the runs' auto/native ratios
(each auto run against the native run just before it)."""
import glob, statistics
from collections import defaultdict

out = ["# Fresh jobs: rank 0's mean time per 8-byte MPI_Allreduce (µs)", "",
       "| case | iterations | pattern | native (median, range) | auto (median, range) | auto/native, median [range] |",
       "|---|---|---|---|---|---|"]
for path in sorted(glob.glob("fresh-*.txt")):
    case = path[len("fresh-"):-len(".txt")]
    runs = defaultdict(lambda: defaultdict(list))
    ratios = defaultdict(list)
    last_native = {}
    for line in open(path):
        mode, iterations, pattern, us = line.split()
        key = (int(iterations), pattern)
        runs[key][mode].append(float(us))
        if mode == "native": last_native[key] = float(us)
        elif key in last_native: ratios[key].append(float(us) / last_native[key])
    for key in sorted(runs):
        n, a = runs[key]["native"], runs[key]["auto"]
        r = ratios[key]
        out.append(f"| {case} | {key[0]} | {key[1]} | {statistics.median(n):.1f} ({min(n):.1f}–{max(n):.1f}) | "
                   f"{statistics.median(a):.1f} ({min(a):.1f}–{max(a):.1f}) | "
                   f"{statistics.median(r):.2f} [{min(r):.2f}–{max(r):.2f}] |")
open("fresh.md", "w").write("\n".join(out) + "\n")
print("\n".join(out))
