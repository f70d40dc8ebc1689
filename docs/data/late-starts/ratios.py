# BDR's excess over the ring's per point, with the calls in which a rank started more than
# tau late (papshim-bench's late_start_s), and the same ratio over the other calls.
# Usage: python3 ratios.py FILE.json...
import json, statistics as st, sys

for path in sys.argv[1:]:
    d = json.load(open(path))
    for size in d["results"]["sizes"]:
        tau = size["tau_s"]
        for point in size["points"]:
            alg = {a["name"]: a for a in point["algorithms"]}
            excess = {n: [e - u for e, u in zip(a["elapsed_s"], a["unavoidable_wait_s"])] for n, a in alg.items()}
            late = {n: [s > tau for s in a["late_start_s"]] for n, a in alg.items()}
            calm = [i for i in range(len(excess["bdr"])) if not late["bdr"][i] and not late["ring"][i]]
            ratio = st.mean(excess["bdr"]) / st.mean(excess["ring"])
            calm_ratio = st.mean(excess["bdr"][i] for i in calm) / st.mean(excess["ring"][i] for i in calm)
            print(f"{path} {point['pattern']:9s} bdr/ring {ratio:.2f} (median {st.median(excess['bdr']) / st.median(excess['ring']):.2f}); "
                  f"late starts bdr {sum(late['bdr'])} ring {sum(late['ring'])}; without those calls {calm_ratio:.2f}")
