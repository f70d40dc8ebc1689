#!/usr/bin/env python3
"""ē / native's ē (excess / native's excess), [median / native's median] per run: table.md."""
import glob, gzip, json, re
from collections import defaultdict

def size(b):
    return f"{b // 1024} KiB" if b >= 1024 else f"{b} B"

rows = defaultdict(list)  # (case, bytes, pattern, delay, alg) -> [(e ratio, x ratio, median ratio)]
cases, algorithms = [], []
for path in sorted(glob.glob("*-r*.json.gz")):
    case = re.sub(r"-r\d+\.json\.gz$", "", path)
    if case not in cases: cases.append(case)
    with gzip.open(path) as f: data = json.load(f)
    for s in data["results"]["sizes"]:
        for p in s["points"]:
            native = next(x for x in p["algorithms"] if x["name"] == "native")
            for a in p["algorithms"]:
                if a["name"] == "native": continue
                if a["name"] not in algorithms: algorithms.append(a["name"])
                excess = a.get("excess_ratio")
                rows[(case, s["bytes"], p["pattern"], p["max_delay"], a["name"])].append(
                    (a["elapsed_ratio"], excess, a["median_elapsed_s"] / native["median_elapsed_s"]))
out = [f"# {', '.join(algorithms)} against native", "",
       "Per run: ē/native's ē (excess/native's excess) [median of the per-call ē / native's median].", ""]
for case in cases:
    out += [f"## {case}", "", "| size | pattern | D | " + " | ".join(algorithms) + " |",
            "|---|---|---|" + "---|" * len(algorithms)]
    keys = sorted({k[1:4] for k in rows if k[0] == case}, key=lambda k: (k[0], k[1], ["0", "10tau", "200us"].index(k[2])))
    for b, pat, d in keys:
        cells = []
        for alg in algorithms:
            v = rows.get((case, b, pat, d, alg), [])
            cells.append(", ".join(f"{e:.2f} ({'-' if x is None else f'{x:.2f}'}) [{m:.2f}]" for e, x, m in v))
        out.append(f"| {size(b)} | {pat} | {d} | " + " | ".join(cells) + " |")
    out.append("")
open("table.md", "w").write("\n".join(out) + "\n")
print("\n".join(out))
