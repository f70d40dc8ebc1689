# Per file, pattern and delay: each algorithm's excess over native's, and ē over native's
# (Allgatherv, p = 8, emulated 1 Gbit/s; papshim-bench --json files).
# Usage: python3 against_native.py FILE...
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sweep_points import sweep_points

for path in sys.argv[1:]:
    name = path.split("/")[-1][:-5]
    for point, runs, excess, elapsed in sweep_points(path):
        planned = runs["auto"]["plans"]["planned"] if "auto" in runs else None
        print(f"{name:20} {point['pattern']:10} D={point['max_delay']:6} native excess {excess['native'] * 1e3:6.1f} ms | excess/native "
              + " ".join(f"{k} {excess[k] / excess['native']:5.2f}" for k in excess if k != "native")
              + " | ē/native " + " ".join(f"{k} {elapsed[k] / elapsed['native']:.2f}" for k in elapsed if k != "native")
              + ("" if planned is None else f" | auto planned {planned}/{len(runs['auto']['elapsed_s'])}"))
