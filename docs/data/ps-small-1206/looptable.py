#!/usr/bin/env python3
"""loop.sh's JSON files: per size and pattern, each algorithm's mean excess over native's, the
median call's in brackets, e/native in parentheses; what auto ran and its plan counters."""
import glob, gzip, json, statistics

for f in sorted(glob.glob('loop-np8-r*.json*')):
    d = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
    print(f)
    for s in d['results']['sizes']:
        for p in s['points']:
            a = {x['name']: x for x in p['algorithms']}
            med = lambda x: statistics.median(e - u for e, u in zip(x['elapsed_s'], x['unavoidable_wait_s']))
            n = a['native']
            cells = ' '.join(f"{k} {v['mean_excess_s'] / n['mean_excess_s']:.2f}[{med(v) / med(n):.2f}]"
                             f"({v['mean_elapsed_s'] / n['mean_elapsed_s']:.3f})" for k, v in a.items() if k != 'native')
            print(f"  {s['bytes'] >> 10} KiB {p['pattern']}: {cells}; auto ran {a['auto']['ran']}, "
                  f"exchanges {a['auto']['plans']['exchanges']}")
