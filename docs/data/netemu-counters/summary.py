# Per job: each algorithm's excess over the unavoidable wait (mean, median, slow calls more than
# 3 tau above the median, in ms above it) and the job's network counters (--network-stats).
# Usage: python3 summary.py TAG...   (TAG.json and TAG.csv from run.sh)
import csv, json, statistics as st, sys

for tag in sys.argv[1:]:
    rows = list(csv.DictReader(open(f"{tag}.csv")))
    totals = {k: sum(int(r[k]) for r in rows) for k in rows[0] if k != "node" and not k.startswith("bytes")}
    counters = ", ".join(f"{k} {v}" for k, v in totals.items() if v)
    print(f"{tag}: {counters or 'no drops, no retransmissions'}")
    d = json.load(open(f"{tag}.json"))
    for size in d["results"]["sizes"]:
        tau = size["tau_s"]
        for point in size["points"]:
            for a in point["algorithms"]:
                excess = [e - u for e, u in zip(a["elapsed_s"], a["unavoidable_wait_s"])]
                median = st.median(excess)
                slow = [round((x - median) * 1e3) for x in excess if x > median + 3 * tau]
                print(f"  {point['pattern']:9s} {a['name']:5s} excess mean {st.mean(excess) * 1e3:5.1f} ms, "
                      f"median {median * 1e3:5.1f} ms, slow calls (ms above the median) {slow}")
