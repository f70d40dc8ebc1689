#!/usr/bin/env python3
"""The tables of docs/benchmarks.md, "`auto` runs BDR": per run and point, each algorithm's
mean excess over the unavoidable wait divided by the smaller of native's and the ring's in
the same run (native's alone where the ring did not run), its mean elapsed time over native's,
and the calls that ran a plan. Arguments: JSON files (a bare name is looked up beside this
script; docs/data/bslb-ring/ uses it too); none: every JSON file beside it."""
import json
import pathlib
import sys

here = pathlib.Path(__file__).parent
for name in sys.argv[1:] or sorted(p.name for p in here.glob("*.json")):
    path = pathlib.Path(name) if "/" in name else here / name
    data = json.loads(path.read_text())
    for size in data["results"]["sizes"]:
        for point in size["points"]:
            algorithms = {a["name"]: a for a in point["algorithms"]}
            base = [algorithms[n]["mean_excess_s"] for n in ("native", "ring") if n in algorithms]
            best = min(base)
            cells = []
            for a in point["algorithms"]:
                plans = a["plans"]
                planned = f" {plans['planned']}/{len(a['elapsed_s'])}" if a["name"] in ("auto", "bdr", "bslb") else ""
                cells.append(f"{a['name']} {a['mean_excess_s'] / best:.2f} (e {a['elapsed_ratio']:.2f}{planned})")
            print(f"{name} {point['pattern']} D={point['max_delay']}: " + ", ".join(cells))
