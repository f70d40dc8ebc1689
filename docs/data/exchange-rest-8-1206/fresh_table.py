#!/usr/bin/env python3
"""fresh.sh's JSON files: auto's e/native and excess/native, its exchanges and what it ran, per
collective, pattern, rest length and size (one entry per round)."""
import collections, glob, gzip, json
rows = collections.defaultdict(list)
for f in sorted(glob.glob('fresh/*.json*')):
    j = json.load(gzip.open(f) if f.endswith('.gz') else open(f))
    var = f.split('/')[1].rsplit('-r', 1)[0]
    for s in j['results']['sizes']:
        for p in s['points']:
            a = {x['name']: x for x in p['algorithms']}
            n, u = a['native'], a['auto']
            rows[(var, s['bytes'] >> 10)].append(
                f"{u['mean_elapsed_s'] / n['mean_elapsed_s']:.3f}/{u['mean_excess_s'] / n['mean_excess_s']:.2f} "
                f"ex {u['plans']['exchanges']} ran {dict(u['ran'])}")
for k in sorted(rows):
    print(k, ' | '.join(rows[k]))
