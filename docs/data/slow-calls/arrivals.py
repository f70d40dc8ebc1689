# Slow calls against late arrivals, from a papshim trace of a papshim-bench sweep (one size,
# the staircase, one algorithm). A call is slow when its mean exit after the last arrival is
# more than 3 tau above the run's median; a rank "arrives off the pattern" when its arrival,
# from the call's first, is more than 2 tau away from the staircase's i*D/(p-1).
# Usage: python3 arrivals.py CALLS.csv[.gz] TAU_S D_S [WARMUP]
import collections, csv, gzip, statistics as st, sys

path, tau, spread = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
warmup = int(sys.argv[4]) if len(sys.argv) > 4 else 0
opener = gzip.open if path.endswith(".gz") else open
rows = [r for r in csv.DictReader(opener(path, "rt")) if r["collective"].startswith("allgather")]
calls = collections.defaultdict(dict)
for r in rows:
    calls[(r["comm"], int(r["seq"]))][int(r["rank"])] = r
comm = collections.Counter(k[0] for k in calls).most_common(1)[0][0]
p = int(rows[0]["comm_size"])
measured = [calls[k] for k in sorted(calls) if k[0] == comm and len(calls[k]) == p][warmup:]
step = spread / (p - 1)
table = []
for c in measured:
    a = [float(c[i]["arrival_s"]) for i in range(p)]
    f = [float(c[i]["exit_s"]) for i in range(p)]
    first, last = min(a), max(a)
    off = [i for i in range(p) if abs(a[i] - first - i * step) > 2 * tau]
    table.append((st.mean(x - last for x in f), off, [round((x - first) * 1e3) for x in a]))
median = st.median(t[0] for t in table)
slow = [t for t in table if t[0] > median + 3 * tau]
off_calls = [t for t in table if t[1]]
both = [t for t in slow if t[1]]
print(f"{path}: {len(table)} calls, median exit after the last arrival {median * 1e3:.1f} ms; "
      f"slow {len(slow)}, with a rank off the pattern {len(off_calls)}, both {len(both)}")
for t in table:
    if t in slow or t[1]:
        print(f"  {'slow' if t in slow else '    '} +{(t[0] - median) * 1e3:5.0f} ms  off the pattern: "
              f"{t[1]}  arrivals (ms) {t[2]}")
