#!/usr/bin/env python3
"""After / before, per MPI, collective, algorithm and size: the geometric mean over the imbalanced
points (10τ and 200 µs, both patterns) of the median-over-rounds ē ratio and excess ratio, and
the same at D = 0: summary.md."""
import glob, gzip, json, math, re, statistics
from collections import defaultdict

def size(b):
    return f"{b // 1024} KiB" if b >= 1024 else f"{b} B"

runs = defaultdict(list)  # (mpi, coll, bytes, pattern, delay, alg, build) -> [(e, x)]
paths = sorted(glob.glob("*-r*.json.gz"))
rounds_of = defaultdict(set)
for p in paths:
    b, r = re.search(r"-(before|after|allsizes)-r(\d+)\.", p).groups()
    rounds_of[b].add(r)
for path in paths:
    mpi, np, coll, build, rnd = re.match(r"(\w+)-(np\d+)-(\w+)-(before|after|allsizes)-r(\d+)\.json\.gz", path).groups()
    # `before` twice: against allsizes from its rounds, against after from its own.
    builds = [build] if build != "before" else [f"before-{x}" for x in ("allsizes", "after") if rnd in rounds_of[x]]
    with gzip.open(path) as f: data = json.load(f)
    for s in data["results"]["sizes"]:
        for p in s["points"]:
            for a in p["algorithms"]:
                if a["name"] != "native":
                    for b in builds:
                        runs[(f"{mpi} {np}", coll, s["bytes"], p["pattern"], p["max_delay"], a["name"], b)].append(
                            (a["elapsed_ratio"], a.get("excess_ratio")))

def gmean(v):
    v = [x for x in v if x and x > 0]
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")

out = ["# The own-core spin against the build before it", "",
       "Geometric mean over the points of (median over the rounds, with the spin) / (median over the",
       "same rounds, before): ē and, for the imbalanced points, the excess over the unavoidable wait",
       "(points where either median excess is not positive are left out). Below 1: the spin helps.",
       "allsizes: every call's waits spin (5f89dc7; rounds 1-10); after: only calls up to 1 KiB",
       "(rounds 11-20). p = 4 is the control (shared cores: no spin in either; allsizes rounds only).", "",
       "| MPI | collective | algorithm | size | ē, D = 0 | ē, 10τ and 200 µs | excess, 10τ and 200 µs |",
       "|---|---|---|---|---|---|---|"]
keys = sorted({k[:3] + (k[5],) for k in runs}, key=lambda k: (k[0].split()[1], k[0], k[1], k[3], k[2]))
for mpi, coll, b, alg in keys:
    cells = []
    for delays, field in ((("0",), 0), (("10tau", "200us"), 0), (("10tau", "200us"), 1)):
        parts = []
        for build in ("allsizes", "after"):
            ratios = []
            for pat in ("one-late", "uniform"):
                for d in delays:
                    before = [r[field] for r in runs.get((mpi, coll, b, pat, d, alg, f"before-{build}"), [])]
                    with_spin = [r[field] for r in runs.get((mpi, coll, b, pat, d, alg, build), [])]
                    if before and with_spin:
                        mb, ma = statistics.median(before), statistics.median(with_spin)
                        if mb > 0 and ma > 0: ratios.append(ma / mb)
            if ratios: parts.append(f"{build} {gmean(ratios):.2f}")
        cells.append(", ".join(parts))
    out.append(f"| {mpi} | {coll} | {alg} | {size(b)} | " + " | ".join(cells) + " |")
open("summary.md", "w").write("\n".join(out) + "\n")
print("\n".join(out))
