# Allgatherv by block layout: per point, each algorithm's excess over the unavoidable wait
# (mean / median, ms), plans, and BDR's excess over the smaller of native's and the ring's.
# Usage: python3 table.py FILE.json...
import json, statistics as st, sys

for path in sys.argv[1:]:
    d = json.load(open(path))
    blocks = d["options"].get("blocks", "decreasing")
    for size in d["results"]["sizes"]:
        for point in size["points"]:
            excess = {}
            for a in point["algorithms"]:
                x = [e - u for e, u in zip(a["elapsed_s"], a["unavoidable_wait_s"])]
                excess[a["name"]] = (st.mean(x), st.median(x))
                plans = a.get("plans", {})
                print(f"{path}: {blocks} {point['pattern']} {a['name']:6s} excess {st.mean(x) * 1e3:6.1f} / "
                      f"{st.median(x) * 1e3:6.1f} ms, planned {plans.get('planned', '-')}")
            if "bdr" in excess:
                best_median = min(v[1] for k, v in excess.items() if k in ("native", "ring"))
                print(f"  bdr / min(native, ring): mean {excess['bdr'][0] / min(v[0] for k, v in excess.items() if k in ('native', 'ring')):.2f}, "
                      f"median {excess['bdr'][1] / best_median:.2f}")
