#!/usr/bin/env python3
"""The steady-state `native` row of each run (time per call), base (c4747ba) against new: summary.md."""
import re, statistics as st
def unit(v, u): return float(v) * {"ns": 1, "us": 1e3, "ms": 1e6}[u]
rows = {}
for build in ("base", "new"):
    for r in range(1, 13):
        bench = None; steady = False
        for line in open(f"{build}-mpich-np2-{r}.log"):
            if line.startswith("steady state"): steady = True
            if not steady: continue
            m = re.match(r"(MPI_\w+ \d+ \w+)\s+native\s+([\d.]+) (ns|us|ms)", line)
            if m: rows.setdefault(m.group(1), {}).setdefault(build, []).append(unit(m.group(2), m.group(3)))
out = ["| benchmark | base (c4747ba) ns, runs 1-12 | new ns, runs 1-12 | new/base of the run pairs | median |", "|---|---|---|---|---|"]
for bench, b in rows.items():
    pairs = [n / o for o, n in zip(b["base"], b["new"])]
    out.append(f"| {bench} | {', '.join(f'{x:.0f}' for x in b['base'])} | {', '.join(f'{x:.0f}' for x in b['new'])} | "
               f"{', '.join(f'{x:.2f}' for x in pairs)} | {st.median(pairs):.3f} |")
open("summary.md", "w").write("\n".join(out) + "\n"); print("\n".join(out))
# The runs fall in two modes for both builds alike (about 2.4x apart: the machine, not the
# build); the medians of each build's runs in the fast mode (within 1.3x of the fastest run of
# either build) compare the builds.
extra = ["", "| benchmark | base: fast-mode runs, median ns | new: fast-mode runs, median ns | new/base |", "|---|---|---|---|"]
for bench, b in rows.items():
    low = min(b["base"] + b["new"])
    fast = {k: [x for x in v if x < 1.3 * low] for k, v in b.items()}
    mb, mn = st.median(fast["base"]), st.median(fast["new"])
    extra.append(f"| {bench} | {len(fast['base'])} runs, {mb:.0f} | {len(fast['new'])} runs, {mn:.0f} | {mn / mb:.3f} |")
open("summary.md", "a").write("\n".join(extra) + "\n"); print("\n".join(extra))
