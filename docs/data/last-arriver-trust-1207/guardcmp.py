#!/usr/bin/env python3
"""Issue 9's second target: per size, auto's mean (median-call) elapsed time over the
arrival-ordered chain's in the same run, and auto's planned calls and what it ran.
Usage: guardcmp.py RUN.json[.gz] ..."""
import gzip, json, statistics, sys

for path in sys.argv[1:]:
    d = json.load((gzip.open if path.endswith('.gz') else open)(path))
    for size in d['results']['sizes']:
        for point in size['points']:
            a = {x['name']: x for x in point['algorithms']}
            chain, auto = a['arrival_chain'], a['auto']
            r = statistics.mean(auto['elapsed_s']) / statistics.mean(chain['elapsed_s'])
            m = statistics.median(auto['elapsed_s']) / statistics.median(chain['elapsed_s'])
            nat = statistics.mean(a['native']['elapsed_s']) / statistics.mean(chain['elapsed_s'])
            print(f"{path.split('/')[-1]:<34} {d['ranks']} {size['bytes']>>10:>5}K auto/chain {r:.2f} (median {m:.2f}) "
                  f"native/chain {nat:.2f} planned {auto['plans']['planned']} ran {auto['ran']}")
