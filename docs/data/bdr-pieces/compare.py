# Prints each point of the before/after runs of BDR's piece tail (docs/benchmarks.md, "BDR's
# late block in pieces"): the excess of BDR and `auto` over the smaller of native's and the
# ring's (means over the measured calls), ē over native's, and the calls BDR/`auto` planned.
# Usage: python3 compare.py [GLOB ...]   (default: every file here)
import glob, gzip, json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
patterns = sys.argv[1:] or ["*.json.gz"]
for pattern in patterns:
    for path in sorted(glob.glob(os.path.join(here, pattern))):
        data = json.load(gzip.open(path))
        for size in data["results"]["sizes"]:
            for point in size["points"]:
                algs = {a["name"]: a for a in point["algorithms"]}
                if point["max_delay"] in (0, "0"):
                    continue
                best = min(algs["native"]["mean_excess_s"], algs["ring"]["mean_excess_s"])
                print(f"{os.path.basename(path):32} p={data['ranks']} {size['bytes'] >> 10:5} KiB {point['pattern']:12} {point['max_delay']:>6}"
                      f" bdr/best {algs['bdr']['mean_excess_s'] / best:5.2f} auto/best {algs['auto']['mean_excess_s'] / best:5.2f}"
                      f" | e/native ring {algs['ring']['elapsed_ratio']:.2f} bdr {algs['bdr']['elapsed_ratio']:.2f}"
                      f" auto {algs['auto']['elapsed_ratio']:.2f} | planned bdr {algs['bdr']['plans']['planned']}"
                      f" auto {algs['auto']['plans']['planned']}")
