#!/usr/bin/python3
"""Issue 7 row (e): under fresh random delays (uniform, 10tau and 40tau), auto's mean e over the
best classic algorithm's in the same job (native, ring, sparbit, bruck, recursive_doubling),
and every algorithm's mean e over native's. Usage: table.py [FILE.json.gz ...] (default: all
files of this directory)."""
import gzip
import json
import sys
from pathlib import Path

CLASSIC = ["native", "ring", "sparbit", "bruck", "recursive_doubling"]
files = [Path(f) for f in sys.argv[1:]] or sorted(Path(__file__).parent.glob("*.json.gz"))
print("| job | D | auto / best classic (which), means | medians | e / native: ring, sparbit, bruck, rd, auto |")
print("|---|---|---|---|---|")
for path in files:
    d = json.loads(gzip.open(path).read())
    for size in d["results"]["sizes"]:
        for point in size["points"]:
            algs = {a["name"]: a for a in point["algorithms"]}
            best = min(CLASSIC, key=lambda n: algs[n]["mean_elapsed_s"])
            best_median = min(CLASSIC, key=lambda n: algs[n]["median_elapsed_s"])
            auto = algs["auto"]
            native = algs["native"]["mean_elapsed_s"]
            others = ", ".join(f"{algs[n]['mean_elapsed_s'] / native:.2f}"
                               for n in ["ring", "sparbit", "bruck", "recursive_doubling", "auto"])
            print(f"| {path.name.removesuffix('.json.gz')} | {point['max_delay']} "
                  f"| {auto['mean_elapsed_s'] / algs[best]['mean_elapsed_s']:.3f} ({best}) "
                  f"| {auto['median_elapsed_s'] / algs[best_median]['median_elapsed_s']:.3f} ({best_median}) | {others} |")
