#!/usr/bin/python3
"""The helper thread on and off (PAPSHIM_HELPER_THREAD=always / 0), p = 8, 1 MiB, emulated
1 Gbit/s, 10tau: per job and pattern, each algorithm's mean e over native's, its mean excess
over native's and over the better of native's and the ring's (where the ring ran), and the
calls that ran a plan. Usage: table.py [FILE.json.gz ...] (default: all files here)."""
import gzip
import json
import sys
from pathlib import Path

files = [Path(f) for f in sys.argv[1:]] or sorted(Path(__file__).parent.glob("*.json.gz"))
print("| job | thread level | pattern | algorithm | e/native | excess/native | excess/best of native and ring | planned |")
print("|---|---|---|---|---|---|---|---|")
for path in files:
    d = json.loads(gzip.open(path).read())
    for size in d["results"]["sizes"]:
        for point in size["points"]:
            algs = {a["name"]: a for a in point["algorithms"]}
            native = algs["native"]
            best = min(native["mean_excess_s"], algs["ring"]["mean_excess_s"]) if "ring" in algs else None
            for name, a in algs.items():
                if name == "native":
                    continue
                versus_best = f"{a['mean_excess_s'] / best:.2f}" if best else "—"
                planned = a.get("plans", {}).get("planned", 0)
                print(f"| {path.name.removesuffix('.json.gz')} | {d['mpi_thread_level']} | {point['pattern']} | {name} "
                      f"| {a['mean_elapsed_s'] / native['mean_elapsed_s']:.3f} "
                      f"| {a['mean_excess_s'] / native['mean_excess_s']:.2f} | {versus_best} | {planned} |")
