# BDR's excess over the ring's per run, split by whether a call stalled. A call "stalls" when its
# excess (e - LB) is more than 3 tau above its algorithm's median in that run: the size of a
# TCP retransmission timeout here (200 ms, tau = 8.4 ms at 1 MiB).
# Usage: python3 stalls.py FILE.json...   (sweep JSONs with bdr and ring at the same points)
import json, statistics as st, sys

for path in sys.argv[1:]:
    d = json.load(open(path))
    if d['results'].get('collective') != 'allgather':
        continue
    for size in d['results']['sizes']:
        tau = size['tau_s']
        for point in size['points']:
            if point.get('median_imbalance_factor', 0) < 5:
                continue
            alg = {a['name']: a for a in point['algorithms']}
            if 'bdr' not in alg or 'ring' not in alg:
                continue
            def excess(name):
                a = alg[name]
                return [e - u for e, u in zip(a['elapsed_s'], a['unavoidable_wait_s'])]
            bdr, ring = excess('bdr'), excess('ring')
            def stalls(v):
                return sum(1 for x in v if x > st.median(v) + 3 * tau)
            print(f"{path.split('/')[-1]:40s} {size['bytes'] >> 10:5d}K {point['pattern']:9s} "
                  f"w/tau={point['median_imbalance_factor']:4.1f} bdr/ring mean {st.mean(bdr) / st.mean(ring):.2f} "
                  f"median {st.median(bdr) / st.median(ring):.2f} stalled calls: bdr {stalls(bdr)} ring {stalls(ring)} "
                  f"of {len(bdr)}")
