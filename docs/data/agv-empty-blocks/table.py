# BDR's excess over the better of native's and the ring's, per file and pattern (Allgatherv,
# p = 8, emulated 1 Gbit/s). Usage: python3 table.py DIR...   (files LAYOUT-BUILD-RUN.json)
import glob, json, statistics as st, sys

for directory in sys.argv[1:]:
    rows = {}
    for path in sorted(glob.glob(f"{directory}/*.json")):
        layout, build, run = path.split("/")[-1][:-5].rsplit("-", 2)
        for size in json.load(open(path))["results"]["sizes"]:
            for point in size["points"]:
                excess = {a["name"]: st.mean(e - u for e, u in zip(a["elapsed_s"], a["unavoidable_wait_s"]))
                          for a in point["algorithms"]}
                ratio = excess["bdr"] / min(excess["native"], excess["ring"])
                rows.setdefault((layout, point["pattern"], build), []).append(f"{ratio:.2f}")
    for (layout, pattern, build), ratios in rows.items():
        print(f"{directory}: {layout:11} {pattern:12} {build:8} {', '.join(ratios)}")
