#!/usr/bin/python3
"""The predictor's arrival error on a Reduce whose root rotates (rotating_root.c, profile mode):
per trace, the median and p95 of |predicted - actual| arrival in microseconds over the calls that
follow one where the rank was the root, and over the calls that follow the others (calls from
seq 40 on). Usage: errors.py [CALLS.csv[.gz] ...] (default: every *-calls.csv.gz here)."""
import csv
import gzip
import statistics
import sys
from collections import defaultdict
from pathlib import Path


def rows_of(path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", newline="") as table:
        return list(csv.DictReader(table))


def percentile95(values):
    return sorted(values)[int(0.95 * len(values))]


files = [Path(f) for f in sys.argv[1:]] or sorted(Path(__file__).parent.glob("*-calls.csv.gz"))
for path in files:
    by_rank = defaultdict(list)
    for row in rows_of(path):
        by_rank[int(row["rank"])].append(row)
    after_root, after_other = [], []
    for rank, calls in by_rank.items():
        calls.sort(key=lambda row: int(row["seq"]))
        for previous, current in zip(calls, calls[1:]):
            if int(current["seq"]) < 40 or not current["predicted_arrival_s"]:
                continue
            error_us = abs(float(current["predicted_arrival_s"]) - float(current["arrival_s"])) * 1e6
            (after_root if int(previous["root"]) == rank else after_other).append(error_us)
    print(f"{path.name}: after a root call median {statistics.median(after_root):.0f} us, "
          f"p95 {percentile95(after_root):.0f} (n {len(after_root)}); after the others median "
          f"{statistics.median(after_other):.0f} us, p95 {percentile95(after_other):.0f} (n {len(after_other)})")
