#!/usr/bin/python3
"""The collective's own time in papshim traces: last exit - last arrival, per call.

A whole application run is too long and too noisy on a shared machine to show a few
microseconds per collective, and time inside a call includes waiting for late ranks (the
arrival pattern, which no algorithm removes). Once the last rank has arrived, what remains is
the algorithm's own work: max_i exit_i - max_i arrival_i. Per trace (one per algorithm, same
input) this prints its median and quartiles over the complete calls of one collective;
--by-algorithm splits each trace's calls by what ran (`auto`'s calls: the algorithm and
whether a plan ran, from calls.csv's algorithm and plan columns).

  examples/apps/after_last_arrival.py --collective allgather native=DIR1 sparbit=DIR2 ...
"""
import argparse
import csv
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path


def durations(directory, collective):
    """Per complete call: (last exit - last arrival, what ran); and the algorithm rows."""
    calls = defaultdict(list)
    algorithms = Counter()
    with open(Path(directory) / "calls.csv", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["collective"] == collective:
                calls[(row["comm"], row["seq"])].append((float(row["arrival_s"]), float(row["exit_s"]),
                                                         int(row["comm_size"]),
                                                         f"{row['algorithm']} {row.get('plan', '')}".strip()))
                algorithms[row["algorithm"]] += 1
    complete = [rows for rows in calls.values() if len(rows) == rows[0][2] and rows[0][2] > 1]
    return [(max(r[1] for r in rows) - max(r[0] for r in rows), rows[0][3]) for rows in complete], algorithms


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collective", required=True, choices=("allgather", "allgatherv", "allreduce", "reduce"))
    parser.add_argument("--by-algorithm", action="store_true", help="a row per algorithm (and plan) that ran")
    parser.add_argument("traces", nargs="+", help="label=TRACE_DIR")
    options = parser.parse_args()
    print("| run | calls | median us | p25 us | p75 us | algorithm rows |")
    print("|---|---|---|---|---|---|")
    rows = []
    for item in options.traces:
        label, _, directory = item.partition("=")
        calls, algorithms = durations(directory, options.collective)
        if not options.by_algorithm:
            rows.append((label, [t for t, _ in calls], algorithms))
            continue
        for ran in dict.fromkeys(r for _, r in calls):
            rows.append((f"{label}: {ran}", [t for t, r in calls if r == ran], algorithms))
    for label, times, algorithms in rows:
        if len(times) < 2:
            print(f"| {label} | {len(times)} | n/a | n/a | n/a | {dict(algorithms)} |")
            continue
        q1, median, q3 = statistics.quantiles(times, n=4)
        print(f"| {label} | {len(times)} | {median * 1e6:.1f} | {q1 * 1e6:.1f} | {q3 * 1e6:.1f} | {dict(algorithms)} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
