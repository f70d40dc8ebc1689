# Each algorithm's excess over the best classic algorithm's (native, ring, Sparbit) per file
# and pattern, and ē over native's (Allgatherv, p = 8, emulated 1 Gbit/s).
# Usage: python3 against_classics.py DIR   (files LAYOUT-new-RUN.json)
import glob, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sweep_points import sweep_points

CLASSICS = ("native", "ring", "sparbit")
for path in sorted(glob.glob(f"{sys.argv[1]}/*.json")):
    name = path.split("/")[-1][:-5]
    for point, runs, excess, elapsed in sweep_points(path):
        best = min((k for k in CLASSICS if k in excess), key=lambda k: excess[k])
        print(f"{name:18} {point['pattern']:11} best classic {best:8} {excess[best] * 1e3:7.1f} ms | "
              + "  ".join(f"{k} {excess[k] / excess[best]:5.2f}" for k in excess)
              + " | ē/native " + " ".join(f"{k} {elapsed[k] / elapsed['native']:.2f}" for k in ("sparbit", "bdr", "auto") if k in elapsed))
