# Each algorithm's excess over the best classic algorithm's (native, ring, Sparbit) per file
# and pattern, and ē over native's (Allgatherv, p = 8, emulated 1 Gbit/s).
# Usage: python3 against_classics.py DIR   (files LAYOUT-new-RUN.json)
import glob, json, statistics as st, sys

CLASSICS = ("native", "ring", "sparbit")
for path in sorted(glob.glob(f"{sys.argv[1]}/*.json")):
    name = path.split("/")[-1][:-5]
    for size in json.load(open(path))["results"]["sizes"]:
        for point in size["points"]:
            runs = {a["name"]: a for a in point["algorithms"]}
            excess = {k: st.mean(e - u for e, u in zip(a["elapsed_s"], a["unavoidable_wait_s"])) for k, a in runs.items()}
            elapsed = {k: st.mean(a["elapsed_s"]) for k, a in runs.items()}
            best = min(CLASSICS, key=lambda k: excess[k])
            print(f"{name:18} {point['pattern']:11} best classic {best:8} {excess[best] * 1e3:7.1f} ms | "
                  + "  ".join(f"{k} {excess[k] / excess[best]:5.2f}" for k in excess)
                  + " | ē/native " + " ".join(f"{k} {elapsed[k] / elapsed['native']:.2f}" for k in ("sparbit", "bdr", "auto") if k in elapsed))
