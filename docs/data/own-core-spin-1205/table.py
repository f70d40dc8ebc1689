#!/usr/bin/env python3
"""Before and after the own-core spin, per algorithm: ē / native's ē in the same run (median
over the rounds, then the rounds' range), and the excess ratio's median: table.md. `after`
against the `before` runs of the same rounds (11-20); `allsizes` (rounds 1-10) in summary.md."""
import glob, gzip, json, re, statistics
from collections import defaultdict

def size(b):
    return f"{b // 1024} KiB" if b >= 1024 else f"{b} B"

rows = defaultdict(list)  # (mpi, coll, bytes, pattern, delay, alg, build) -> [(e, x, m)]
paths = sorted(glob.glob("*-r*.json.gz"))
after_rounds = {re.search(r"-r(\d+)\.", p).group(1) for p in paths if "-after-" in p}
for path in paths:
    mpi, np, coll, build, rnd = re.match(r"(\w+)-(np\d+)-(\w+)-(before|after|allsizes)-r(\d+)\.json\.gz", path).groups()
    if build == "allsizes" or rnd not in after_rounds: continue
    mpi = f"{mpi} {np}"
    with gzip.open(path) as f: data = json.load(f)
    for s in data["results"]["sizes"]:
        for p in s["points"]:
            native = next(x for x in p["algorithms"] if x["name"] == "native")
            for a in p["algorithms"]:
                if a["name"] == "native": continue
                rows[(mpi, coll, s["bytes"], p["pattern"], p["max_delay"], a["name"], build)].append(
                    (a["elapsed_ratio"], a.get("excess_ratio") or float("nan"),
                     a["median_elapsed_s"] / native["median_elapsed_s"]))

def cell(v):
    if not v: return ""
    e = sorted(x[0] for x in v)
    return f"{statistics.median(e):.2f} ({e[0]:.2f}–{e[-1]:.2f}) x{statistics.median(x[1] for x in v):.2f}"

out = ["# Backoff with a core per rank: before (64 pauses, then yield) and after (spin up to 1 ms)", "",
       "p = 2: a core per rank; p = 4: shared cores (the control). Per cell: median over the rounds of ē / native's ē in the same run,",
       "the rounds' range, and x = the median excess / native's excess. before → after.", ""]
for mpi in sorted({k[0] for k in rows}, key=lambda m: (m.split()[1], m)):
    for coll in ("allreduce", "reduce"):
        algs = sorted({k[5] for k in rows if k[0] == mpi and k[1] == coll},
                      key=["symmetric_shm", "dynamic_leader", "auto"].index)
        if not algs: continue
        out += [f"## {mpi} {coll}", "", "| size | pattern | D | " + " | ".join(algs) + " |",
                "|---|---|---|" + "---|" * len(algs)]
        keys = sorted({k[2:5] for k in rows if k[0] == mpi and k[1] == coll},
                      key=lambda k: (k[0], k[1], ["0", "10tau", "200us"].index(k[2])))
        for b, pat, d in keys:
            cells = [f"{cell(rows[(mpi, coll, b, pat, d, a, 'before')])} → {cell(rows[(mpi, coll, b, pat, d, a, 'after')])}"
                     for a in algs]
            out.append(f"| {size(b)} | {pat} | {d} | " + " | ".join(cells) + " |")
        out.append("")
open("table.md", "w").write("\n".join(out) + "\n")
print("\n".join(out))
